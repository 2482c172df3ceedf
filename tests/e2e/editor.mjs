// The print editor in a real browser, in German, with the demo shop (two printers, each with
// the one hotend and build plate that fit it, belts always used): choosing a printer offers
// only the components that fit it and fills in what it preselects; the live cost panel shows
// no total while the draft is incomplete and says what is missing; "add a part" copies the
// last part whole, "add an empty part" starts empty. Screenshots at 1280 and 390 px.
// Fails on any console error.
//
//   node editor.mjs BASE_URL SCREENSHOT_DIR
import { inGerman } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots] = process.argv.slice(2);
await inGerman(base, async (page) => {
  await page.goto(base + "/prints/new");
  const part = (n) => page.locator(".part").nth(n);
  const field = (n, name) => part(n).locator(`[data-name='${name}']`);
  const chosen = async (locator) => locator.evaluate((s) => s.selectedOptions[0]?.textContent ?? "");
  const state = page.locator("#preview-state");
  const total = page.locator("#preview-total");

  // Nothing chosen yet: no total, and the panel names what is missing.
  await page.waitForFunction(() => document.getElementById("preview-state").textContent.includes("Drucker (Teil 1)"));
  assert.equal(await total.innerText(), "–");

  // The MK4S: its plate and hotend filled in, the P1S's hidden, the belts (always used) chosen.
  await field(0, "parts[#].printerId").selectOption({ label: "Original Prusa MK4S" });
  assert.equal(await chosen(field(0, "parts[#].buildPlateId")), "Satin spring steel sheet");
  assert.equal(await chosen(field(0, "parts[#].hotends[#].componentId")), "Nextruder hotend 0.4 mm");
  const hidden = await field(0, "parts[#].hotends[#].componentId").evaluate((s) =>
    [...s.options].filter((o) => o.hidden).map((o) => o.textContent));
  assert.deepEqual(hidden, ["P1S hotend 0.4 mm hardened"], "only the hotend that fits is offered");
  const others = await field(0, "parts[#].otherComponentIds[]").evaluate((s) => [...s.selectedOptions].map((o) => o.textContent));
  assert.deepEqual(others, ["Belts, fans and lubrication"]);

  await page.locator("input[name=name]").fill("Halterung");
  await field(0, "parts[#].hotends[#].durationMinutes").fill("90");
  await field(0, "parts[#].filaments[#].filamentId").selectOption({ index: 1 });
  await field(0, "parts[#].filaments[#].usedGrams").fill("42,5");
  // The spools offered are the chosen filament's.
  const spool = await field(0, "parts[#].filaments[#].spoolId").evaluate((s) =>
    [...s.options].find((o) => o.value && !o.hidden)?.value);
  assert.ok(spool, "a spool of the filament is offered");
  await field(0, "parts[#].filaments[#].spoolId").selectOption(spool);
  await page.waitForFunction(() => document.getElementById("preview-total").getAttribute("data-value"));
  const one = Number(await total.getAttribute("data-value"));
  assert.equal(await state.innerText(), "");

  // A copy of the last part: every field as the first part has it, so the total doubles.
  await page.getByRole("button", { name: "Teil hinzufügen (Kopie des letzten)" }).click();
  assert.equal(await chosen(field(1, "parts[#].printerId")), "Original Prusa MK4S");
  assert.equal(await field(1, "parts[#].filaments[#].usedGrams").inputValue(), "42,5");
  assert.equal(await field(1, "parts[#].hotends[#].durationMinutes").inputValue(), "90");
  await page.waitForFunction((was) => Number(document.getElementById("preview-total").getAttribute("data-value")) > was, one);
  assert.equal(Number(await total.getAttribute("data-value")), one * 2, "a whole copy costs the same");
  await page.screenshot({ path: `${shots}/editor-1280.png`, fullPage: true });

  // An empty part: nothing chosen in it, and the total gives way to what is missing.
  await page.getByRole("button", { name: "Leeres Teil hinzufügen" }).click();
  assert.equal(await field(2, "parts[#].printerId").inputValue(), "");
  assert.equal(await field(2, "parts[#].filaments[#].usedGrams").inputValue(), "");
  await page.waitForFunction(() => document.getElementById("preview-state").textContent.includes("Drucker (Teil 3)"));
  assert.equal(await total.innerText(), "–", "no stale total");
  // The P1S in it: its own plate and hotend.
  await field(2, "parts[#].printerId").selectOption({ label: "Bambu Lab P1S" });
  assert.equal(await chosen(field(2, "parts[#].buildPlateId")), "Textured PEI plate");
  assert.equal(await chosen(field(2, "parts[#].hotends[#].componentId")), "P1S hotend 0.4 mm hardened");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${shots}/editor-390.png`, fullPage: true });
  await part(2).getByRole("button", { name: "Dieses Teil entfernen" }).click();
  await page.waitForFunction(() => document.getElementById("preview-total").getAttribute("data-value"));
  assert.equal(Number(await total.getAttribute("data-value")), one * 2);
});
console.log(`ok: screenshots in ${shots}`);
