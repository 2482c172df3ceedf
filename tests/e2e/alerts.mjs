// Settings › Alerts in German, in a real browser, on a service that runs the bridge (its
// embedded broker, one Modbus source that does not answer): setup with demo data, a ntfy
// webhook added through the form for two kinds with a token, "send test" to it and to MQTT,
// a low-stock threshold set through the API so that alert stands beside the offline source,
// the page with both and its channels. Fails on any console error.
//
//   node alerts.mjs BASE_URL SCREENSHOT_DIR WEBHOOK_URL
import { launch, setUpInGerman, watchedPage } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots, webhook] = process.argv.slice(2);
const browser = await launch();
const problems = [];
try {
  const page = await watchedPage(browser, problems);
  await setUpInGerman(page, base);
  // A German shop's instance speaks German: alerts are worded in its default language.
  const language = await page.evaluate(async () => {
    const s = await (await fetch("/api/settings")).json();
    const body = { currency: s.currency, defaultLanguage: "de-DE",
      electricityPrice: s.electricityPrice, spoolManagementEnabled: s.spoolManagementEnabled };
    return (await fetch("/api/settings", {
      method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    })).status;
  });
  assert.equal(language, 200);

  await page.getByRole("link", { name: "Einstellungen" }).click();
  await page.getByRole("link", { name: "Alarme" }).click();
  await page.waitForURL("**/settings/alerts");
  await page.getByLabel("Name").fill("ntfy Werkstatt");
  await page.getByLabel(/^URL/).fill(webhook);
  await page.getByLabel("Format").selectOption("NTFY");
  await page.getByLabel("Bestand niedrig").check();
  await page.getByLabel("Wartung überfällig").check();
  await page.getByLabel(/^Token/).fill("tk_werkstatt");
  await page.getByRole("button", { name: "Webhook hinzufügen" }).click();
  await page.waitForURL("**/settings/alerts?added");
  assert.match(await page.locator(".notice").innerText(), /Der Webhook wurde hinzugefügt/);
  const row = page.locator("tr.webhook", { hasText: "ntfy Werkstatt" });
  assert.match(await row.innerText(), /Bestand niedrig, Wartung überfällig/);
  assert.match(await row.innerText(), /Token gesetzt/);
  assert.ok(!(await page.content()).includes("tk_werkstatt"), "the token is never shown");

  await row.getByRole("button", { name: "Test senden" }).click();
  assert.match(await page.locator("#test-result").innerText(), /Test an ntfy Werkstatt: angekommen \(200\)/);
  await page.locator("#channel-mqtt").getByRole("button", { name: "Test senden" }).click();
  assert.match(await page.locator("#test-result").innerText(), /Test an MQTT: angekommen/);
  assert.match(await page.locator("#channel-mqtt").innerText(), /verbunden/);

  // A threshold above a demo filament's stock: the alert stands within a few evaluations.
  const filament = await page.evaluate(async () =>
    (await (await fetch("/api/filaments?pageSize=1")).json()).items[0]);
  const set = await page.evaluate(async (id) => (await fetch(`/api/filaments/${id}/stock`, {
    method: "PATCH", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ minimumStockGrams: "100000" }),
  })).status, filament.id);
  assert.equal(set, 200);
  for (let i = 0; i < 40; i++) {
    await page.goto(base + "/settings/alerts");
    const standing = await page.locator("#standing").innerText();
    if (/Bestand niedrig: /.test(standing) && /Modbus-Quelle offline: zaehler/.test(standing)
      && !/Print failed/.test(standing)) break;
    await page.waitForTimeout(500);
  }
  const standing = await page.locator("#standing").innerText();
  assert.match(standing, /Bestand niedrig: /);
  assert.match(standing, /unter dem Mindestbestand von 100.000 g/);
  assert.match(standing, /Modbus-Quelle offline: zaehler/);
  assert.doesNotMatch(standing, /Low stock|Print failed/, "every standing alert reworded in German");
  await page.screenshot({ path: `${shots}/alerts-de.png`, fullPage: true });

  assert.deepEqual(problems, [], "no console errors");
  console.log(`ok: screenshots in ${shots}`);
} finally {
  await browser.close();
}
