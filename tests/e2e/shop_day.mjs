// A German shop owner's whole day, in a real browser on Berlin time, at 1280 px and again on a
// phone (390 px): a new filament and its first spool (no phantom stock), a draft from a sliced
// file with its price, a blocking maintenance task, the printer's plug linked as its meter,
// PRINTING and PRINTED (the run metered), "done, with this outcome" from PRINTED, paid, the
// spreadsheet export; then a second order that fails, its retry
// taking the failed print's price in one click, held by the overdue task and passed with a
// reason. Every figure the pages show (cost, price, realized revenue and margin, stock) is
// checked against the API. The pages' load times are measured (navigation timing: request to
// last byte, and navigation start to DOMContentLoaded; median and the slowest) and printed.
// Fails on any console error.
//
//   node shop_day.mjs BASE_URL SCREENSHOT_DIR GCODE_FILE PLUG_TOPIC
//
// PLUG_TOPIC: where the test publishes the plug's energy total (`ENERGY.Total`, kWh) on the
// service's embedded broker.
import { launch, setUpInGerman, watchedPage } from "./browser.mjs";
import { strict as assert } from "node:assert";

const [base, shots, gcode, plugTopic] = process.argv.slice(2);
const browser = await launch();
const problems = [];
const timings = [];
// Money as the German pages write it: `1.234,56 €`.
const euro = (value) => new Intl.NumberFormat("de-DE", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
  .format(Number(value)) + " €";
try {
  const page = await watchedPage(browser, problems, { timezoneId: "Europe/Berlin" });
  page.on("load", async () => {
    const entry = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType("navigation");
      return nav ? [nav.responseEnd - nav.requestStart, nav.domContentLoadedEventEnd - nav.startTime] : null;
    }).catch(() => null);
    if (entry !== null) timings.push(entry);
  });
  const api = async (method, path, body) => page.evaluate(async ([method, path, body]) => {
    const res = await fetch(path, {
      method, headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.text() };
  }, [method, path, body]);
  const json = async (path) => JSON.parse((await api("GET", path)).body);
  await setUpInGerman(page, base);
  await api("PATCH", "/api/settings/features", { spoolManagementEnabled: true });

  // Morning: a new filament, asked whether a spool is on hand (no: the real roll is booked).
  const maker = (await json("/api/manufacturers?pageSize=1")).items[0];
  await page.goto(base + "/filaments/new");
  assert.equal(await page.locator("input[name=openingSpool]").isChecked(), false, "asked, unticked");
  await page.locator("#manufacturerId").selectOption(maker.id);
  await page.locator("#material").fill("PETG");
  await page.locator("#colorName").fill("Tagesgrün");
  await page.locator("#purchasePrice").fill("24,90");
  await page.locator("#netWeightGrams").fill("1000");
  await page.locator("main form.card.form button[type=submit]").click();
  await page.waitForURL(/\/filaments\/[0-9a-f-]{36}\?saved$/);
  const filamentId = new URL(page.url()).pathname.split("/").pop();
  assert.equal((await json(`/api/filaments/${filamentId}/stock`)).activeTotalGrams, "0", "no phantom spool");
  await page.locator("#receive-spool").click();
  assert.equal(await page.locator("input[name=initialNetWeightGrams]").inputValue(), "1000", "prefilled from the catalog");
  await page.locator("input[name=initialNetWeightGrams]").fill("338");
  await page.locator("form[action='/spools'] button[type=submit]").click();
  await page.waitForURL(/\/spools\/[0-9a-f-]{36}\?received$/);
  await page.goto(base + "/stock");
  const stockRow = page.locator("tr", { hasText: "Tagesgrün" }).first();
  assert.match(await stockRow.innerText(), /338 g/, "the one roll, once");
  assert.equal((await json(`/api/filaments/${filamentId}/stock`)).activeTotalGrams, "338");

  // The shop's company and a customer with billing details, for the invoice at the end.
  const company = await api("PATCH", "/api/settings/company", {
    name: "Musterdruck GmbH", email: "rechnung@musterdruck.example", iban: "DE89370400440532013000",
    vatId: "DE123456789", address: { street: "Hauptstraße 1", postalCode: "10115", city: "Berlin", country: "DE" },
  });
  assert.equal(company.status, 200, company.body);
  const customer = JSON.parse((await api("POST", "/api/customers", {
    name: "Erika Muster", email: "erika@example.com",
    address: { street: "Lindenweg 2", postalCode: "80331", city: "München", country: "DE" },
  })).body);
  assert.ok(customer.id, JSON.stringify(customer));

  // A draft from the sliced file, for Erika, priced at 45 €.
  await page.goto(base + "/prints");
  await page.getByLabel(/Aus einer geslicten Datei/).setInputFiles(gcode);
  await page.getByRole("button", { name: "Datei lesen" }).click();
  await page.waitForURL("**/prints/sliced");
  await page.evaluate(() => {
    for (const select of document.querySelectorAll("#print-editor select[required]")) {
      if (!select.value && select.options.length > 1) select.value = select.options[1].value;
    }
  });
  await page.locator("#print-editor select[name=customerId]").selectOption(customer.id);
  await page.locator("#print-editor input[name=salesValue]").fill("45");
  await page.getByRole("button", { name: "Entwurf speichern" }).click();
  await page.waitForURL(/\/prints\/[0-9a-f-]{36}\?did=drafted$/);
  const printUrl = page.url().split("?")[0];
  const printId = printUrl.split("/").pop();
  let print = await json(`/api/prints/${printId}`);
  assert.equal(await page.locator("#planned-total").innerText(), euro(print.totalCost), "cost as the API has it");
  assert.match(await page.locator("#notice").innerText(), /Entwurf angelegt/);
  await page.screenshot({ path: `${shots}/draft-de.png`, fullPage: true });

  // A blocking task on its printer: every print (overdue once this one has run).
  const printerId = print.parts[0].printerId;
  const task = JSON.parse((await api("POST", "/api/maintenance",
    { printerId, name: "Druckbett reinigen", every: { unit: "PRINTS", count: 1 }, blocking: true })).body);

  // The printer's plug is its meter: linked on the printer's page, read live.
  await page.goto(`${base}/printers/${printerId}`);
  await page.locator("#meter-kind").selectOption("MQTT");
  await page.locator("#meter-topic").fill(plugTopic);
  await page.locator("#meter-path").fill("ENERGY.Total");
  await page.locator("#meter-unit").selectOption("KWH");
  await page.locator("#meter-form button.primary").click();
  await page.waitForURL(`${base}/printers/${printerId}?saved`);
  const readLive = async () => {
    for (let i = 0; i < 50; i++) {
      if ((await json(`/api/printers/${printerId}/meter`)).live) return;
      await page.waitForTimeout(200);
    }
    assert.fail("the plug is never read");
  };
  await readLive();
  await page.goto(printUrl);

  // PRINTING, PRINTED (the run between them metered), then done with its outcome in one form.
  const move = async (label) => {
    await page.getByLabel("Verschieben nach").selectOption({ label });
    await page.getByRole("button", { name: "Verschieben", exact: true }).click();
    await page.waitForURL(`${printUrl}?did=status&from=${printId}`);
  };
  await move("Im Druck");
  assert.match(await page.locator("#outcome-soon").innerText(), /sobald der Druck gedruckt ist/);
  await page.waitForTimeout(1500);
  await move("Gedruckt");
  const finish = page.locator("#outcome-form");
  assert.match(await finish.innerText(), /Fertig, mit diesem Ergebnis/);
  await finish.getByRole("button", { name: "Fertig, mit diesem Ergebnis" }).click();
  await page.waitForURL(`${printUrl}?did=finished`);
  print = await json(`/api/prints/${printId}`);
  assert.equal(print.status, "DONE");
  assert.equal(print.outcome.status, "SUCCESS");
  assert.deepEqual(print.outcome.electricity.map((e) => e.source), ["METERED"], "the run metered by the plug");
  assert.match(await page.locator("td.electricity").first().innerText(), /kWh · gemessen/);
  const financials = await page.locator(".charts").innerText();
  assert.ok(financials.includes(euro(print.financials.realizedRevenue)), `realized revenue ${print.financials.realizedRevenue} in ${financials}`);
  assert.ok(financials.includes(euro(print.financials.realizedMargin)), `realized margin ${print.financials.realizedMargin} in ${financials}`);
  await page.getByRole("button", { name: "Als bezahlt markieren" }).click();
  await page.waitForURL(`${printUrl}?did=paid&from=${printId}`);
  assert.equal((await json(`/api/prints/${printId}`)).paid, true);
  await page.screenshot({ path: `${shots}/done-paid-de.png`, fullPage: true });

  // The day's spreadsheet: German words, h:mm, cents.
  const sheet = await page.request.get(`${base}/prints/export.csv?status=DONE&search=${encodeURIComponent(print.name)}`);
  assert.equal(sheet.status(), 200);
  const text = await sheet.text();
  assert.match(text.split("\r\n")[0], /"Name";"Kunde";"Drucker"/);
  assert.ok(text.includes(`"${euro(print.totalCost).replace(" €", "").replace(/\./g, "")}"`), `the planned cost in cents: ${text}`);
  assert.ok(text.includes('"Erfolg"'), "the outcome in words");

  // Its invoice, issued, and its ZUGFeRD PDF.
  await page.locator("#invoice-link").click();
  await page.locator("#invoice button[type=submit]").click();
  await page.waitForURL(/\/invoices\/[0-9a-f-]{36}$/);
  const invoiceUrl = page.url();
  await Promise.all([page.waitForEvent("load"), page.locator("form[action$='/actions/issue'] button").click()]);
  const invoiceId = invoiceUrl.split("/").pop();
  const invoice = await json(`/api/invoices/${invoiceId}`);
  assert.ok(invoice.number, `issued: ${JSON.stringify(invoice)}`);
  const pdf = await page.request.get(`${base}/api/invoices/${invoiceId}/pdf`);
  assert.equal(pdf.status(), 200);
  assert.equal(pdf.headers()["content-type"], "application/pdf");
  assert.equal((await pdf.body()).subarray(0, 5).toString(), "%PDF-");

  // Afternoon: a second order of the same part fails; its retry takes the price in one click.
  const copy = JSON.parse((await api("POST", `/api/prints/${printId}/duplicate`, {})).body);
  const copyUrl = `${base}/prints/${copy.id}`;
  await page.goto(copyUrl);
  // The task is overdue now: the draft's page says so and offers the reason field.
  assert.match(await page.locator("#blocking-task").innerText(), /Druckbett reinigen/);
  await page.locator("#override-reason").fill("Bett per Sicht geprüft, Kunde wartet");
  await page.locator("#maintenance-override select[name=status]").selectOption("PRINTED");
  await page.locator("#override-move").click();
  await page.waitForURL(`${copyUrl}?did=status&from=${copy.id}`);
  assert.equal((await json(`/api/maintenance/${task.id}`)).overrides[0].reason, "Bett per Sicht geprüft, Kunde wartet");
  const failed = page.locator("#outcome-form");
  await failed.locator("select[name=status]").selectOption("FAILED");
  await failed.getByLabel(/Fehlergrund/).fill("Ecke hat sich gelöst");
  await failed.getByRole("button", { name: "Fertig, mit diesem Ergebnis" }).click();
  await page.waitForURL(`${copyUrl}?did=finished`);
  await page.getByRole("button", { name: "Diesen Druck erneut versuchen" }).click();
  await page.waitForURL(/\/prints\/[0-9a-f-]{36}\?did=retry/);
  const retryUrl = page.url().split("?")[0];
  const retryId = retryUrl.split("/").pop();
  assert.equal((await json(`/api/prints/${retryId}`)).salesValue, null, "a retry is made without a price");
  await page.locator("#retry-price").click();
  await page.waitForURL(`${retryUrl}?did=retryPrice&from=${retryId}`);
  assert.equal((await json(`/api/prints/${retryId}`)).salesValue, "45");

  // The dashboard counts the order once (the failed print earned nothing).
  await page.goto(base + "/dashboard?period=30d");
  const board = await json("/api/dashboard?period=30d");
  assert.match(await page.locator("#kpi-sales-value").innerText(), new RegExp(euro(board.kpis.salesValue).replace(/[.€]/g, "\\$&")));
  await page.screenshot({ path: `${shots}/dashboard-de.png`, fullPage: true });

  // On a phone: the same pages hold, the header is short, cost and date are in view.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of [printUrl.replace(base, ""), "/prints", "/dashboard", `/prints/${retryId}/edit`]) {
    await page.goto(base + path);
    const [scroll, client, header] = await page.evaluate(() => [document.documentElement.scrollWidth,
      document.documentElement.clientWidth, document.querySelector("header.top").getBoundingClientRect().height]);
    assert.ok(scroll <= client + 1, `${path} scrolls sideways at 390 px`);
    assert.ok(header <= 120, `${path}: the header is ${header} px high`);
    await page.screenshot({ path: `${shots}/phone-${path.replace(/[^a-z0-9]+/gi, "-")}.png`, fullPage: true });
  }
  // Typing grams in the editor on a phone, the live total stays in view.
  await page.goto(`${base}/prints/${retryId}/edit`);
  const grams = page.locator('#print-editor input[data-name="parts[#].filaments[#].usedGrams"]').first();
  await grams.scrollIntoViewIfNeeded();
  await grams.fill("5");
  const total = await page.locator("#preview-total").boundingBox();
  assert.ok(total && total.y >= 0 && total.y + total.height <= 844, `the live total in view: ${JSON.stringify(total)}`);
  const costCell = page.locator(".print-rows tbody tr").first().locator("td").nth(5);
  await page.goto(base + "/prints");
  assert.ok(await costCell.isVisible(), "the cost column is in view on a phone");

  assert.deepEqual(problems, [], "no console errors");
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const answered = timings.map((t) => t[0]);
  const ready = timings.map((t) => t[1]);
  console.log(`page loads: ${timings.length}; answered (request to last byte) median ${median(answered).toFixed(1)} ms, ` +
    `slowest ${Math.max(...answered).toFixed(1)} ms; ready (navigation to DOMContentLoaded) median ${median(ready).toFixed(1)} ms, ` +
    `slowest ${Math.max(...ready).toFixed(1)} ms`);
  console.log(`ok: screenshots in ${shots}`);
} finally {
  await browser.close();
}
