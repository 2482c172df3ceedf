// Maintenance in German, in a real browser: setup with demo data, a blocking task added through
// the form on the printer of a demo print, a copy of that print run through the API (so the
// task is overdue), the maintenance page and the dashboard's list of what is due, the task
// marked done, and Settings › Backup. Fails on any console error.
//
//   node maintenance.mjs BASE_URL SCREENSHOT_DIR
import { launch, setUpInGerman, watchedPage } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots] = process.argv.slice(2);
const browser = await launch();
const problems = [];
try {
  const page = await watchedPage(browser, problems);
  await setUpInGerman(page, base);

  // The printer of a finished demo print.
  const done = await page.evaluate(async () =>
    (await (await fetch("/api/prints?status=DONE&pageSize=1")).json()).items[0]);
  await page.getByRole("link", { name: "Wartung" }).click();
  await page.waitForURL("**/maintenance");
  await page.getByLabel("Was ist zu tun").fill("Düse tauschen");
  await page.getByLabel("Drucker", { exact: true }).selectOption(done.printerId);
  await page.locator("#count").fill("1");
  await page.locator("#unit").selectOption("PRINTS");
  await page.getByLabel(/Blockierend/).check();
  await page.getByRole("button", { name: "Aufgabe anlegen" }).click();
  await page.waitForURL("**/maintenance?created=*");
  assert.match(await page.locator(".notice").innerText(), /Aufgabe angelegt: Düse tauschen/);

  // A copy of the print runs once on that printer: the task is used up.
  const ran = await page.evaluate(async (id) => {
    const post = (path, body) => fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const copy = await (await post(`/api/prints/${id}/duplicate`, {})).json();
    const finished = await (await post(`/api/prints/${copy.id}/complete`, {})).json();
    const filaments = finished.usages.map((u) => ({ usageId: u.id, usedGrams: u.usedGrams }));
    const parts = finished.parts.map((p) => ({ partId: p.id, durationSeconds: p.durationSeconds }));
    const res = await post(`/api/prints/${copy.id}/outcome`,
      { status: "SUCCESS", durationSeconds: finished.durationSeconds, filaments, parts });
    return [res.status, await res.text()];
  }, done.id);
  assert.equal(ran[0], 200, ran[1]);
  await page.goto(base + "/maintenance");
  const row = page.locator("#tasks tbody tr", { hasText: "Düse tauschen" });
  assert.match(await row.innerText(), /Überfällig/);
  assert.equal(await page.getByRole("link", { name: "Wartung" }).getAttribute("aria-current"), "page");
  await page.screenshot({ path: `${shots}/maintenance-de.png`, fullPage: true });

  await page.getByRole("link", { name: "Übersicht" }).click();
  const due = page.locator("#maintenance-due");
  assert.match(await due.innerText(), /Düse tauschen.*Überfällig/s);
  await page.screenshot({ path: `${shots}/dashboard-maintenance-de.png`, fullPage: true });

  await page.goto(base + "/maintenance");
  await row.getByRole("button", { name: "Erledigt" }).click();
  await page.waitForURL("**/maintenance?done=*");
  assert.match(await page.locator(".notice").innerText(), /Als erledigt vermerkt: Düse tauschen/);
  assert.match(await row.innerText(), /OK/);

  await page.goto(base + "/settings/backup");
  await page.getByRole("button", { name: "Jetzt eine Sicherung in den Ordner schreiben" }).click();
  await page.waitForURL("**/settings/backup");
  assert.match(await page.locator("#last-run").innerText(), /geschrieben und geprüft/);
  assert.ok(await page.locator("#kept-backups tbody tr").count() === 1, "one backup listed");
  await page.screenshot({ path: `${shots}/backup-de.png`, fullPage: true });

  assert.deepEqual(problems, [], "no console errors");
  console.log(`ok: screenshots in ${shots}`);
} finally {
  await browser.close();
}
