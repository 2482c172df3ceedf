// Metered electricity in German, in a real browser: the shop's printer with its plug (live
// reading, last kept one, power measured over six metered runs and the buttons that adopt it),
// a print's outcome with each part's run and electricity (and the correction form's run
// fields), and the dashboard's electricity by printer. The service was prepared by the test
// (tests/ui_e2e/main.rs): a German account, the plug's history, six recorded prints. Fails on
// any console error.
//
//   node metered.mjs BASE_URL SCREENSHOT_DIR PRINTER_ID PRINT_ID
import { launch, watchedPage } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots, printer, print] = process.argv.slice(2);
const browser = await launch();
const problems = [];
try {
  // The shop's zone (the run fields hold its wall clock); the date fields' own format is the
  // browser's (Debian's headless Chromium here has only its English one).
  const page = await watchedPage(browser, problems, { locale: "de-DE", timezoneId: "Europe/Berlin" });
  await page.goto(base + "/login");
  await page.locator("#email").fill("ada@example.com");
  await page.locator("#password").fill("correct horse battery staple");
  await page.locator("form button[type=submit]").click();
  await page.waitForURL("**/dashboard");

  await page.goto(`${base}/printers/${printer}`);
  const meter = await page.locator("#meter").innerText();
  assert.match(meter, /Gemessene Leistung/);
  assert.match(meter, /180 W/);
  assert.match(await page.locator("#meter-live").innerText(), /1\.844,46 kWh/);
  assert.match(await page.locator("#power-adopt").innerText(), /Als Durchschnittsleistung übernehmen: 180 W/);
  await page.locator("#meter").screenshot({ path: `${shots}/printer-meter-de.png` });

  await page.goto(`${base}/prints/${print}`);
  const parts = await page.locator("td.electricity").first().innerText();
  assert.match(parts, /kWh · gemessen/);
  assert.match(await page.locator("#correction-form").innerText(), /Druckzeiten und Strom/);
  await page.screenshot({ path: `${shots}/outcome-electricity-de.png`, fullPage: true });

  await page.goto(`${base}/dashboard?period=all`);
  const electricity = await page.locator("#electricity").innerText();
  assert.match(electricity, /Strom je Drucker/);
  assert.match(electricity, /\d+ \/ \d+/);
  await page.locator("#electricity").screenshot({ path: `${shots}/dashboard-electricity-de.png` });

  // On a phone, the new parts of these pages scroll nowhere sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of [`/printers/${printer}`, `/prints/${print}`, "/dashboard?period=all"]) {
    await page.goto(base + path);
    const wide = await page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(wide <= 0, `${path} scrolls sideways by ${wide} px at 390 px`);
  }

  assert.deepEqual(problems, [], "no console errors");
  console.log(`ok: screenshots in ${shots}`);
} finally {
  await browser.close();
}
