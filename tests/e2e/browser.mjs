// Debian's Chromium, headless, with the flags this machine's closed network needs: what every
// scenario runs in.
import { chromium } from "playwright-core";
import { strict as assert } from "node:assert";

export const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

// A new page at 1280×900 that records console errors and page errors in `problems`; `options`
// add to the page's (a `timezoneId`, say).
export async function watchedPage(browser, problems, options = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, ...options });
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));
  return page;
}

// Setup through the form as Ada with demo data, then the account switched to German; ends on
// Settings (`?saved`).
export async function setUpInGerman(page, base) {
  await page.goto(base + "/setup");
  await page.getByLabel("Your name").fill("Ada");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password", { exact: true }).fill("correct horse battery staple");
  await page.getByLabel(/demo data/).check();
  await page.getByRole("button", { name: "Set up" }).click();
  await page.waitForURL("**/dashboard");
  await page.goto(base + "/settings");
  await page.getByLabel("Language", { exact: true }).selectOption("de-DE");
  await page.getByRole("button", { name: "Save" }).first().click();
  await page.waitForURL("**/settings?saved");
}

// Runs `steps(page)` in a fresh browser on a watched page, set up as Ada in German with demo
// data; fails on any console or page error; always closes the browser.
export async function inGerman(base, steps) {
  const browser = await launch();
  const problems = [];
  try {
    const page = await watchedPage(browser, problems);
    await setUpInGerman(page, base);
    await steps(page);
    assert.deepEqual(problems, [], "no console errors");
  } finally {
    await browser.close();
  }
}
