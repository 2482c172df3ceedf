// A print from its sliced file, in German, in a real browser: setup with demo data, the switch
// to German, a G-code dropped on the prints page, the editor filled from it (the slicer's
// figures above), a grams field typed with the decimal comma, and the draft it makes. Fails on
// any console error.
//
//   node sliced.mjs BASE_URL SCREENSHOT_DIR GCODE_FILE
import { launch, setUpInGerman, watchedPage } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots, gcode] = process.argv.slice(2);
const browser = await launch();
const problems = [];
try {
  const page = await watchedPage(browser, problems);
  await setUpInGerman(page, base);

  await page.goto(base + "/prints");
  await page.getByLabel(/Aus einer geslicten Datei/).setInputFiles(gcode);
  await page.getByRole("button", { name: "Datei lesen" }).click();
  await page.waitForURL("**/prints/sliced");
  const figures = page.locator("#sliced-file");
  await figures.waitFor();
  assert.match(await figures.innerText(), /PrusaSlicer 2\.5\.0/);
  assert.match(await figures.innerText(), /4,45 g/);
  await page.screenshot({ path: `${shots}/sliced-preview-de.png`, fullPage: true });

  // What the file could not suggest (a printer of its model, a filament of its material) the
  // maker picks: here the first choice of each empty list.
  await page.evaluate(() => {
    for (const select of document.querySelectorAll("#print-editor select[required]")) {
      if (!select.value && select.options.length > 1) select.value = select.options[1].value;
    }
  });
  // Grams as a German types them: prefilled with the decimal comma, taken with it, and the
  // live cost follows.
  const grams = page.locator('#print-editor input[data-name="parts[#].filaments[#].usedGrams"]').first();
  assert.match(await grams.inputValue(), /^\d+,\d+$/, "prefilled with the decimal comma");
  const before = await page.locator("#preview-total").innerText();
  await grams.fill("12,5");
  await page.waitForFunction((was) => {
    const now = document.getElementById("preview-total").innerText;
    return now !== was && /€/.test(now);
  }, before);
  await page.screenshot({ path: `${shots}/editor-comma-de.png`, fullPage: true });
  await page.getByRole("button", { name: "Entwurf speichern" }).click();
  await page.waitForURL(/\/prints\/[0-9a-f-]{36}\?did=drafted$/);
  const body = await page.locator("main").innerText();
  assert.match(body, /12,5/, "the grams typed with the comma on the draft");
  assert.match(await page.locator("#print-source").innerText(), /Erstellt aus prusa-two-filaments\.gcode \(PrusaSlicer 2\.5\.0/);
  await page.screenshot({ path: `${shots}/sliced-draft-de.png`, fullPage: true });

  // The same file again names the draft it made, and still makes another.
  await page.goto(base + "/prints");
  await page.getByLabel(/Aus einer geslicten Datei/).setInputFiles(gcode);
  await page.getByRole("button", { name: "Datei lesen" }).click();
  await page.waitForURL("**/prints/sliced");
  assert.match(await page.locator("#sliced-existing").innerText(), /Aus dieser Datei entstand schon: prusa-two-filaments/);
  assert.deepEqual(problems, [], "no console errors");
  console.log(`ok: screenshots in ${shots}`);
} finally {
  await browser.close();
}
