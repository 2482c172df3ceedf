// First run in a real browser: setup through the form (with demo data), the dashboard, the
// prints list, and the switch to German. Fails on any console error (a CSP violation included).
//
//   node first_run.mjs BASE_URL SCREENSHOT_DIR
//
import { launch } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots] = process.argv.slice(2);
const browser = await launch();
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));

  await page.goto(base + "/");
  assert.equal(new URL(page.url()).pathname, "/setup");
  await page.getByLabel("Your name").fill("Ada");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password", { exact: true }).fill("short");
  await page.getByRole("button", { name: "Set up" }).click();
  // The browser itself refuses a password under minlength: the form stays.
  assert.equal(new URL(page.url()).pathname, "/setup");
  await page.getByLabel("Password", { exact: true }).fill("correct horse battery staple");
  await page.getByLabel(/demo data/).check();
  await page.getByRole("button", { name: "Set up" }).click();
  await page.waitForURL("**/dashboard");
  await page.getByRole("link", { name: "All time" }).click();
  await page.waitForURL("**/dashboard?period=all");
  assert.ok(await page.locator("svg rect.actual").count() > 0, "cost chart drawn");
  await page.screenshot({ path: `${shots}/dashboard.png`, fullPage: true });

  await page.getByRole("link", { name: "Prints" }).click();
  await page.getByLabel("Status").selectOption("DONE");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.waitForURL("**/prints?**status=DONE**");
  assert.ok(await page.locator("tbody tr").count() > 0, "demo prints listed");
  await page.screenshot({ path: `${shots}/prints.png`, fullPage: true });

  // Keyboard: the first Tab reaches the skip link.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.className), "skip");

  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByLabel("Language", { exact: true }).selectOption("de-DE");
  await page.getByRole("button", { name: "Save" }).first().click();
  await page.waitForURL("**/settings?saved");
  assert.equal(await page.getAttribute("html", "lang"), "de-DE");
  await page.getByRole("link", { name: "Übersicht" }).click();
  await page.getByRole("link", { name: "Gesamt" }).click();
  const planned = await page.locator(".tile", { hasText: "Geplante Kosten" }).locator("strong").innerText();
  assert.match(planned, /^\d{1,3}(\.\d{3})*,\d{2} €$/, planned);
  await page.screenshot({ path: `${shots}/dashboard-de.png`, fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${shots}/dashboard-phone.png`, fullPage: true });
  assert.deepEqual(problems, [], "no console errors");
  console.log(`ok: screenshots in ${shots}`);
} finally {
  await browser.close();
}
