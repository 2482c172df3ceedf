// The whole product in a real browser, on a fresh box: setup, the inventory, a two-part print
// priced live (and checked against POST /api/prints/calculate), DONE, a FAILED outcome, its
// retry, a corrected outcome, a spool movement, German, and the A4 report printed to PDF by
// Chromium and read back with pdftotext. Fails on any console error.
//
//   node full_flow.mjs BASE_URL SCREENSHOT_DIR
import { launch } from "./browser.mjs";
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";

const [base, shots] = process.argv.slice(2);
const browser = await launch();
const problems = [];
const path = (page) => new URL(page.url()).pathname;

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // The two refusals this flow provokes on purpose (a referenced delete: 409; a FAILED outcome
  // without a reason: 422) are logged by Chromium as failed loads; anything else is a problem.
  const provoked = /status of (409|422) /;
  page.on("console", (m) => { if (m.type() === "error" && !provoked.test(m.text())) problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("dialog", (d) => d.accept());

  // First-run setup, then spool management on.
  await page.goto(base + "/setup");
  await page.getByLabel("Your name").fill("Ada");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password", { exact: true }).fill("correct horse battery staple");
  await page.getByRole("button", { name: "Set up" }).click();
  await page.waitForURL("**/dashboard");
  await page.goto(base + "/settings");
  await page.getByLabel(/Spool management/).check();
  await page.getByRole("button", { name: "Save" }).nth(1).click();
  await page.waitForURL("**/settings?saved");

  // The inventory, through its forms.
  const create = async (collection, fill) => {
    await page.goto(`${base}/${collection}/new`);
    await fill();
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(new RegExp(`/${collection}/[0-9a-f-]{36}\\?saved$`));
  };
  await create("manufacturers", () => page.getByLabel("Name").fill("Prusa Research"));
  await create("customers", async () => {
    await page.getByLabel("Name").fill("Jane Doe");
    await page.getByLabel(/Email/).fill("jane@example.com");
  });
  await create("printers", async () => {
    await page.getByLabel("Name").fill("MK4S");
    await page.getByLabel("Manufacturer").selectOption({ label: "Prusa Research" });
    await page.getByLabel("Purchase price").fill("1099");
    await page.getByLabel(/Expected lifetime/).fill("6000");
    await page.getByLabel(/Average power/).fill("120");
  });
  for (const [type, name, price, hours] of [["Hotend", "Nozzle 0.4", "100", "2000"], ["Build plate", "Satin sheet", "40", "1000"]]) {
    await create("components", async () => {
      await page.getByLabel("Type").selectOption({ label: type });
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Purchase price").fill(price);
      await page.getByLabel(/Expected lifetime \(printing hours\)/).fill(hours);
    });
  }
  await create("filaments", async () => {
    await page.getByLabel("Manufacturer").selectOption({ label: "Prusa Research" });
    await page.getByLabel("Material").fill("PLA");
    await page.getByLabel("Colour name").fill("Galaxy Black");
    await page.getByLabel("Purchase price").fill("29.99");
    await page.getByLabel(/Net weight/).fill("1000");
    await page.getByLabel(/Minimum stock/).fill("2500");
  });
  // A referenced record cannot be deleted: the form says why.
  await page.goto(base + "/manufacturers");
  await page.getByRole("link", { name: "Prusa Research" }).click();
  await page.getByRole("button", { name: "Delete" }).click();
  await page.waitForLoadState();
  assert.match(await page.getByRole("alert").innerText(), /Still in use; archive it instead/);

  // A second spool (with spool management on, the filament came with an opening spool); still
  // below the filament's minimum stock.
  await page.goto(base + "/spools/new");
  await page.getByLabel("Filament").selectOption({ index: 1 });
  await page.getByLabel("Purchase price").fill("24.99");
  await page.getByLabel(/Net weight/).fill("1000");
  await page.getByRole("button", { name: "Save" }).click();
  await page.waitForURL(/\/spools\/[0-9a-f-]{36}\?received$/);
  const spoolUrl = page.url().split("?")[0];
  await page.goto(base + "/stock");
  assert.ok(await page.locator("#low-stock").isVisible(), "low-stock warning");

  // A two-part print, priced as we type.
  await page.goto(base + "/prints/new");
  await page.getByLabel("Name").fill("Phone stand");
  await page.getByLabel(/Customer/).selectOption({ label: "Jane Doe" });
  await page.getByLabel(/Sales value/).fill("25");
  const fillPart = async (part, minutes, grams) => {
    await part.getByLabel("Printer").selectOption({ label: "MK4S" });
    await part.getByLabel("Build plate").selectOption({ label: "Satin sheet" });
    // An FDM printer's fields (a resin printer's vat is hidden and disabled beside them).
    const fdm = part.locator("fieldset[data-technology=FDM]");
    await fdm.getByLabel("Hotend").selectOption({ label: "Nozzle 0.4" });
    await fdm.getByLabel(/Printing time/).fill(minutes);
    await fdm.getByLabel("Filament").selectOption({ index: 1 });
    await fdm.getByLabel("Grams").fill(grams);
    await fdm.getByLabel("Spool").selectOption({ index: 1 });
  };
  await fillPart(page.locator(".part").nth(0), "90", "42.5");
  await page.getByRole("button", { name: "Add a part" }).click();
  await fillPart(page.locator(".part").nth(1), "30", "10");
  assert.equal(await page.locator(".part").nth(1).getByLabel("Printer").getAttribute("name"), "parts[1].printerId");
  const total = page.locator("#preview-total");
  await page.waitForFunction(() => {
    const el = document.getElementById("preview-total");
    return el.getAttribute("data-value") && document.querySelectorAll("#preview-lines tr").length >= 8;
  });
  const ids = await page.evaluate(() => {
    const part = (i) => {
      const value = (name) => document.querySelector(`[name='parts[${i}].${name}']`).value;
      return {
        printerId: value("printerId"), buildPlateId: value("buildPlateId"),
        hotends: [{ componentId: value("hotends[0].componentId"), durationSeconds: Number(value("hotends[0].durationMinutes")) * 60 }],
        filaments: [{ filamentId: value("filaments[0].filamentId"), usedGrams: value("filaments[0].usedGrams"), spoolId: value("filaments[0].spoolId") }],
      };
    };
    return { customerId: document.querySelector("[name='customerId']").value, parts: [part(0), part(1)] };
  });
  const priced = await page.request.post(base + "/api/prints/calculate", {
    headers: { Origin: base },
    data: { name: "Phone stand", customerId: ids.customerId, salesValue: "25", parts: ids.parts },
  });
  assert.equal(priced.status(), 200);
  const expected = (await priced.json()).totalCost;
  await page.waitForFunction((want) => document.getElementById("preview-total").getAttribute("data-value") === want, expected);
  assert.equal(await total.getAttribute("data-value"), expected, "live total equals /api/prints/calculate");
  await page.screenshot({ path: `${shots}/print-editor.png`, fullPage: true });
  await page.getByRole("button", { name: "Save draft" }).click();
  await page.waitForURL(/\/prints\/[0-9a-f-]{36}\?did=drafted$/);
  const printUrl = page.url().split("?")[0];
  const onPrint = (url) => url.href.split("?")[0] === printUrl;
  assert.equal(await page.locator("#print-status").innerText(), "Draft");

  // DONE, then a FAILED outcome.
  await page.getByLabel("Move to").selectOption({ label: "Done" });
  await page.getByRole("button", { name: "Move", exact: true }).click();
  // A draft that skips PRINTING asks first.
  await page.locator("#confirm-move-yes").click();
  await page.waitForLoadState();
  assert.equal(await page.locator("#print-status").innerText(), "Done");
  const outcome = page.locator("#outcome-form");
  await outcome.getByLabel("Outcome").selectOption("FAILED");
  await outcome.getByRole("button", { name: "Record outcome" }).click();
  await page.waitForLoadState();
  // FAILED needs a reason: the field says so and nothing was recorded.
  assert.match(await page.locator("#failureReason-fault").innerText(), /Required/);
  await page.locator("#outcome-form").getByLabel(/Failure reason/).fill("Warped corner");
  await page.locator("#outcome-form").getByRole("button", { name: "Record outcome" }).click();
  await page.waitForURL(`${printUrl}?did=recorded`);
  assert.equal(await page.locator("#outcome-status").innerText(), "Failed");
  await page.screenshot({ path: `${shots}/print-detail.png`, fullPage: true });

  // Retry: a new draft linked to the failed print.
  await page.getByRole("button", { name: "Retry this print" }).click();
  await page.waitForURL((url) => !onPrint(url) && /\/prints\/[0-9a-f-]{36}$/.test(url.pathname));
  assert.equal(await page.locator("#print-status").innerText(), "Draft");
  await page.getByRole("link", { name: "Retry of" }).click();
  await page.waitForURL(printUrl);
  assert.equal(await page.locator(".retry-link").count(), 1);

  // Correct the outcome: the revision history grows.
  const correction = page.locator("#correction-form");
  await correction.getByLabel("Outcome").selectOption("SUCCESS");
  await correction.getByLabel(/Failure reason/).fill("");
  await correction.getByLabel(/Why is it corrected/).fill("Customer accepted the part");
  await correction.getByRole("button", { name: "Correct outcome" }).click();
  await page.waitForURL(`${printUrl}?did=corrected`);
  assert.equal(await page.locator("#outcome-status").innerText(), "Success");
  assert.equal(await page.locator("#revisions tbody tr").count(), 2);

  // Book a spool movement.
  await page.goto(spoolUrl);
  const before = await page.locator("#ledger tbody tr").count();
  await page.getByLabel("Kind").selectOption("CORRECTION");
  await page.getByLabel("Grams", { exact: true }).fill("-12.5");
  await page.getByLabel(/Note/).fill("Weighed");
  await page.getByRole("button", { name: "Book a movement" }).click();
  await page.waitForURL("**?booked");
  assert.equal(await page.locator("#ledger tbody tr").count(), before + 1);
  assert.match(await page.locator("#ledger tbody tr").first().innerText(), /-12\.5 g/);

  // German, then the A4 report to PDF.
  await page.goto(base + "/settings");
  await page.getByLabel("Language", { exact: true }).selectOption("de-DE");
  await page.getByRole("button", { name: "Save" }).first().click();
  await page.waitForURL("**/settings?saved");
  await page.goto(printUrl);
  await page.getByRole("link", { name: "A4-Bericht" }).click();
  await page.waitForURL(/\/reports\/prints\//);
  // "PDF herunterladen" opens the browser's print dialog (shown by app.js; window.print).
  await page.evaluate(() => { window.printed = 0; window.print = () => { window.printed += 1; }; });
  await page.getByRole("button", { name: "PDF herunterladen" }).click();
  assert.equal(await page.evaluate(() => window.printed), 1, "the button opens the print dialog");
  await page.screenshot({ path: `${shots}/report.png`, fullPage: true });
  await page.goto(base + "/dashboard?period=all");
  await page.screenshot({ path: `${shots}/dashboard.png`, fullPage: true });
  await page.goto(printUrl.replace("/prints/", "/reports/prints/"));
  await page.emulateMedia({ media: "print" });
  const pdf = `${shots}/report.pdf`;
  await page.pdf({ path: pdf, format: "A4", printBackground: true });
  const text = execFileSync("pdftotext", ["-layout", pdf, "-"], { encoding: "utf8" });
  for (const want of ["Druckbericht", "Phone stand", "Jane Doe", "Kostenaufstellung", "Erfolg", "Gesamtkosten", "Verkaufswert", "25,00 €",
    "Filamente", "Galaxy Black", "42,5 g", "10 g"]) {
    assert.ok(text.includes(want), `PDF text has ${want}:\n${text}`);
  }
  // The two-part print's report is one A4 page.
  const info = execFileSync("pdfinfo", [pdf], { encoding: "utf8" });
  assert.match(info, /^Pages:\s+1$/m, info);
  assert.ok(!text.includes("PDF herunterladen"), "no buttons in the printed report");
  assert.ok(!text.includes("Ergebnis erfassen"), "no forms in the printed report");

  assert.deepEqual(problems, [], "no console errors");
  console.log(`ok: screenshots and report.pdf in ${shots}`);
} finally {
  await browser.close();
}
