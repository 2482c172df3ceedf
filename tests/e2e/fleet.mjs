// The printer fleet in a real browser: link a printer to Bambuddy on its fleet page (trays
// shown), map a tray, attach the Bambuddy job to a DONE print and import its outcome from the
// prefilled form. Screenshots: the printer page and the import preview.
//
//   node fleet.mjs BASE_URL SCREENSHOT_DIR BAMBUDDY_URL
import { launch } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots, fleet] = process.argv.slice(2);
const browser = await launch();
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));

  await page.goto(base + "/");
  await page.getByLabel("Your name").fill("Ada");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password", { exact: true }).fill("correct horse battery staple");
  await page.getByRole("button", { name: "Set up" }).click();
  await page.waitForURL("**/dashboard");

  const api = async (method, path, data) => {
    const res = await page.request.fetch(base + path, { method, data, headers: { Origin: base } });
    assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
    return res.json();
  };
  await api("PATCH", "/api/settings/integrations", { printfleet: { enabled: true, url: fleet, apiKey: "fleet-key" } });
  const maker = await api("POST", "/api/manufacturers", { name: "Bambu Lab" });
  const printer = await api("POST", "/api/printers", { name: "X1 Carbon", manufacturerId: maker.id, purchasePrice: "1449", expectedLifetimeHours: "8000", averagePowerWatts: 150 });
  const component = (type, name, price) => api("POST", "/api/components", { type, name, purchasePrice: price, expectedLifetimeHours: "2000" });
  const hotend = await component("HOTEND", "0.4 hardened", "45");
  const plate = await component("BUILD_PLATE", "Textured PEI", "40");
  const filament = await api("POST", "/api/filaments", { manufacturerId: maker.id, material: "PLA", colorName: "Black", colorHex: "#000000", purchasePrice: "19.99", netWeightGrams: "1000" });

  await page.goto(`${base}/printers/${printer.id}/fleet`);
  await page.getByLabel("Bambuddy printer").selectOption({ label: "X1C Left (#1)" });
  await page.getByRole("button", { name: "Link" }).click();
  await page.waitForURL("**/fleet?did=LINK_PRINTER");
  assert.equal(await page.locator("#notice").innerText(), "X1 Carbon: linked to the chosen Bambuddy printer.");
  assert.ok(await page.getByRole("cell", { name: "255:254" }).isVisible(), "the external holder's tray");
  const spool = page.locator("#spool-255\\:254");
  await spool.selectOption({ index: 1 });
  await page.locator("tr", { has: spool }).getByRole("button", { name: "Map" }).click();
  await page.waitForURL("**/fleet?did=MAP_TRAY");
  await page.screenshot({ path: `${shots}/printer-fleet.png`, fullPage: true });

  const print = await api("POST", "/api/prints", { name: "Bracket", parts: [{ printerId: printer.id, buildPlateId: plate.id,
    hotends: [{ componentId: hotend.id, durationSeconds: 5400 }], filaments: [{ filamentId: filament.id, usedGrams: "40" }] }] });
  await api("POST", `/api/prints/${print.id}/complete`, {});
  await page.goto(`${base}/prints/${print.id}`);
  await page.getByRole("button", { name: "Attach" }).click();
  await page.waitForURL(`**/prints/${print.id}?did=fleetAttach`);
  assert.equal(await page.locator("#notice").innerText(), "Bracket: the Bambuddy job is attached.");
  assert.ok(await page.getByText("Bracket plate · completed").isVisible(), "the attached job");
  await page.screenshot({ path: `${shots}/import-preview.png`, fullPage: true });
  await page.getByRole("button", { name: "Import the outcome" }).click();
  await page.waitForURL(`**/prints/${print.id}?did=fleetImport`);
  assert.equal(await page.locator("#notice").innerText(), "Bracket: outcome imported from Bambuddy.");
  const recorded = await api("GET", `/api/prints/${print.id}`);
  assert.equal(recorded.outcome.status, "SUCCESS");
  assert.equal(recorded.outcome.filaments[0].usedGrams, "42.5");
  await page.screenshot({ path: `${shots}/imported.png`, fullPage: true });
  assert.deepEqual(problems, []);
  console.log(`screenshots in ${shots}`);
} finally {
  await browser.close();
}
