// Every page holds its layout on a phone, a tablet and a laptop: each page the UI links to
// (found by following links from the menu, one of each kind, plus a two-part draft's editor and
// a refused form; Spoolman switched on at an address nothing answers) is measured in German and in English at 390, 768 and 1280 px wide. A page
// fails when it scrolls sideways, when two interactive elements (links, buttons, fields)
// overlap (the boxes are Chromium's, clipped by any scrolling container they sit in), when a
// select shows only part of its chosen option's text, or when a phone's header is higher than
// 120 px.
// Screenshots of the German pages at each width go to the screenshot folder.
//
//   node layout.mjs BASE_URL SCREENSHOT_DIR [--with-overlap]
//
// `--with-overlap` adds an overlap on purpose (the menu's links pulled onto each other) and
// measures only the dashboard: the run must then fail, which shows the check can.
import { launch, setUpInGerman } from "./browser.mjs";
import { execFileSync } from "node:child_process";

const [base, shots, mode] = process.argv.slice(2);
const withOverlap = mode === "--with-overlap";
const widths = [390, 768, 1280];
const browser = await launch();
const failures = [];
const visited = [];
const problems = [];

// Measured inside the page: a sideways scroll and the overlapping pairs of interactive boxes.
function measure() {
  const found = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) {
    found.push(`scrolls sideways (${doc.scrollWidth} px in ${doc.clientWidth})`);
  }
  const clip = (element, rect) => {
    let [left, top, right, bottom] = [rect.left, rect.top, rect.right, rect.bottom];
    for (let up = element.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX !== "visible" || style.overflowY !== "visible") {
        const box = up.getBoundingClientRect();
        left = Math.max(left, box.left); right = Math.min(right, box.right);
        top = Math.max(top, box.top); bottom = Math.min(bottom, box.bottom);
      }
    }
    return { left, top, right, bottom };
  };
  const label = (e) => {
    const text = (e.getAttribute("aria-label") || e.innerText || e.value || e.name || "").trim();
    return `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} "${text.slice(0, 30)}"`;
  };
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary";
  const boxes = [];
  for (const element of document.querySelectorAll(selector)) {
    if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    for (const rect of element.getClientRects()) {
      const box = clip(element, rect);
      if (box.right - box.left > 1 && box.bottom - box.top > 1) boxes.push({ element, box });
    }
  }
  // A select whose chosen option's text does not fit it (a filament read as its maker only).
  const canvas = document.createElement("canvas").getContext("2d");
  for (const select of document.querySelectorAll("select:not([multiple])")) {
    if (!select.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const option = select.selectedOptions[0];
    if (!option || option.value === "") continue;
    const style = getComputedStyle(select);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = canvas.measureText(option.text.trim()).width;
    const arrow = 20;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - arrow;
    if (text > room + 1) found.push(`${label(select)} shows part of its choice "${option.text.trim().slice(0, 40)}" (${Math.round(text)} px in ${Math.round(room)})`);
  }
  // A phone's header leaves the page room (at most ~120 px of 844).
  const header = document.querySelector("header.top");
  if (header && doc.clientWidth < 700 && header.getBoundingClientRect().height > 120) {
    found.push(`the header is ${Math.round(header.getBoundingClientRect().height)} px high`);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a.element === b.element || a.element.contains(b.element) || b.element.contains(a.element)) continue;
      const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (w > 2 && h > 2) found.push(`${label(a.element)} overlaps ${label(b.element)} (${Math.round(w)}×${Math.round(h)} px)`);
    }
  }
  return found;
}

// The kind of a page: its path with ids as `{id}`, so one of each kind is measured.
const kind = (path) => path.replace(/\/[0-9a-f]{8}-[0-9a-f-]{27}/g, "/{id}").replace(/\/\d+(?=\/|$)/g, "/{id}");
const followed = (url) => {
  if (url.origin !== new URL(base).origin) return false;
  const p = url.pathname;
  return p !== "/" && !/^\/(api|api-reference|static|logout|login|setup)(\/|$)/.test(p) && !p.endsWith(".csv");
};

async function measurePage(page, path, locale, name) {
  const response = await page.goto(base + path);
  if (!response.ok()) failures.push(`${locale} ${path}: answered ${response.status()}`);
  await check(page, path, locale, name);
}

async function check(page, path, locale, name) {
  if (withOverlap) {
    await page.evaluate(() => {
      for (const link of document.querySelectorAll("header.top nav a + a")) link.style.marginLeft = "-2.5em";
    });
  }
  for (const width of widths) {
    await page.setViewportSize({ width, height: width < 700 ? 844 : 900 });
    for (const problem of await page.evaluate(measure)) failures.push(`${locale} ${width} px ${path}: ${problem}`);
    if (locale === "de-DE") {
      await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
    }
  }
  visited.push(`${locale} ${path}`);
}

// Follows links from `roots`, measuring one page of each kind; `extra` pages are measured as
// they are (a two-part draft's editor beside the first draft's).
async function crawl(page, locale, roots, extra) {
  const queue = [...roots];
  const seen = new Set();
  while (queue.length > 0) {
    const path = queue.shift();
    const pattern = kind(path.split("?")[0]);
    if (seen.has(pattern)) continue;
    seen.add(pattern);
    const name = pattern.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "home";
    await measurePage(page, path, locale, name);
    const links = await page.$$eval("a[href]", (as) => as.map((a) => a.href));
    for (const href of links) {
      const url = new URL(href);
      if (followed(url)) queue.push(url.pathname + url.search);
    }
  }
  for (const [path, name] of extra) await measurePage(page, path, locale, name);
}

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(String(e)));
  await setUpInGerman(page, base);
  if (withOverlap) {
    await measurePage(page, "/dashboard", "de-DE", "dashboard-with-overlap");
  } else {
    // Spool management and series on, a spool of the demo's black PLA, and a two-part draft
    // (the demo's robot chassis duplicated).
    for (const [form, box] of [["/settings", "spoolManagementEnabled"], ["/settings/features", "printSeriesEnabled"]]) {
      await page.goto(base + "/settings");
      const fields = page.locator(`form[action='${form}']`);
      await fields.locator(`input[name=${box}]`).check();
      await fields.locator("button[type=submit]").click();
      await page.waitForURL("**/settings?saved");
    }
    // A resin, made on the materials page: the materials list and the stock page count it in ml.
    await page.goto(base + "/materials/new");
    await page.locator("select[name=kind]").selectOption("RESIN");
    await page.locator("select[name=manufacturerId]").selectOption({ index: 1 });
    await page.locator("input[name=material]").fill("Standard");
    await page.locator("input[name=colorName]").fill("Grau");
    await page.locator("input[name=colorHex]").fill("#808080");
    await page.locator("input[name=purchasePrice]").fill("39,90");
    await page.locator("input[name=netQuantity]").fill("1000");
    await page.locator("input[name=openingSpool]").check();
    await page.locator("main form button[type=submit]").first().click();
    await page.waitForURL(/\/materials\/[0-9a-f-]{36}\?saved$/);
    // A resin printer with its vat and build plate, made on their pages, and a resin draft made
    // in the editor: choosing the printer shows the vat in the hotends' place.
    const record = async (path, fields, selects) => {
      await page.goto(base + path);
      for (const [name, value] of Object.entries(selects)) await page.locator(`select[name=${name}]`).selectOption(value);
      for (const [name, value] of Object.entries(fields)) await page.locator(`input[name=${name}]`).fill(value);
      await page.locator("main form button[type=submit]").first().click();
      await page.waitForURL(/\/[0-9a-f-]{36}\?saved$/);
    };
    await record("/printers/new", { name: "Harzdrucker", purchasePrice: "600", expectedLifetimeHours: "3000", averagePowerWatts: "60" },
      { technology: "MSLA", manufacturerId: { index: 1 } });
    await record("/components/new", { name: "Wanne mit FEP", purchasePrice: "30", expectedLifetimeHours: "500" }, { type: "VAT" });
    await record("/components/new", { name: "Harz-Bauplattform", purchasePrice: "60", expectedLifetimeHours: "1200" }, { type: "BUILD_PLATE" });
    await page.goto(base + "/prints/new");
    await page.locator("input[name=name]").fill("Harzfigur");
    await page.locator("select[name='parts[0].printerId']").selectOption({ label: "Harzdrucker" });
    await page.locator("select[name='parts[0].buildPlateId']").selectOption({ label: "Harz-Bauplattform" });
    if (!(await page.locator("fieldset[data-technology=FDM]").first().isHidden())) {
      failures.push("a resin printer's part still shows the hotends");
    }
    await page.locator("select[name='parts[0].vat.componentId']").selectOption({ label: "Wanne mit FEP" });
    await page.locator("input[name='parts[0].vat.durationMinutes']").fill("90");
    const resinOption = page.locator("select[name='parts[0].materials[0].materialId'] option", { hasText: "Standard Grau" });
    await page.locator("select[name='parts[0].materials[0].materialId']").selectOption(await resinOption.getAttribute("value"));
    await page.locator("input[name='parts[0].materials[0].quantity']").fill("36,4");
    await page.locator("#print-editor button[type=submit]").first().click();
    await page.waitForURL(/\/prints\/[0-9a-f-]{36}\?did=drafted$/);
    const resinDraft = new URL(page.url()).pathname;
    const resinPrint = await (await page.request.get(`${base}/api${resinDraft}`)).json();
    if (resinPrint.usages?.[0]?.quantity !== "36.4" || resinPrint.parts?.[0]?.vat?.durationSeconds !== 5400) {
      failures.push(`the resin draft is not what the editor was given: ${JSON.stringify(resinPrint.parts)}`);
    }
    // Spoolman switched on at an address nothing answers: its pages say so.
    await page.goto(base + "/settings/integrations");
    await page.locator("input[name='spoolmgr.enabled']").check();
    await page.locator("input[name='spoolmgr.url']").fill("http://127.0.0.1:9");
    await page.locator("main form button[type=submit]").click();
    await page.waitForURL("**/settings/integrations?saved");
    if (!(await page.locator("#spoolmgr-state").innerText()).includes("http://127.0.0.1:9")) {
      failures.push("Settings › Integrations does not name the unreachable address");
    }
    await page.goto(base + "/spools/new");
    await page.locator("select[name=filamentId]").selectOption({ index: 1 });
    await page.locator("input[name=purchasePrice]").fill("24,99");
    await page.locator("input[name=initialNetWeightGrams]").fill("1000");
    await page.locator("form[action='/spools'] button[type=submit]").click();
    await page.waitForURL(/\/spools\/[0-9a-f-]{36}/);
    await page.goto(base + "/prints?search=Robot");
    await page.locator("a", { hasText: "Robot chassis" }).first().click();
    const robot = new URL(page.url()).pathname;
    await page.locator("form[action$='/actions/duplicate'] button").click();
    await page.waitForURL(/\/prints\/[0-9a-f-]{36}\?/);
    const twoParts = new URL(page.url()).pathname + "/edit";
    // The shop's company, and a quote of that copy (a draft of Jane's at 60) sent: the quote's
    // page and its A4 document are measured by name.
    await page.goto(base + "/settings/company");
    for (const [field, value] of [["name", "Musterdruck GmbH"], ["address.street", "Hauptstraße 1"],
      ["address.postalCode", "10115"], ["address.city", "Berlin"], ["address.country", "DE"],
      ["iban", "DE89 3704 0044 0532 0130 00"]]) {
      await page.locator(`input[name='${field}']`).fill(value);
    }
    await page.locator("#company button[type=submit]").click();
    await page.waitForURL("**/settings/company?saved");
    const copy = twoParts.split("/")[2];
    const customer = (await (await page.request.get(`${base}/api/prints/${copy}`)).json()).customerId;
    const quoteForm = `/quotes/new?customerId=${customer}`;
    await page.goto(base + quoteForm);
    await page.locator(`input[name='printIds[]'][value='${copy}']`).check();
    await page.locator("#quote button[type=submit]").click();
    await page.waitForURL(/\/quotes\/[0-9a-f-]{36}$/);
    const quote = new URL(page.url()).pathname;
    await page.locator("form[action$='/actions/send'] button").click();
    await page.waitForURL(/\/document$/);
    // Sending opens the A4 quote; printed to PDF it is one page with the number, the shop and
    // the totals, and no buttons.
    const number = (await (await page.request.get(`${base}/api${quote}`)).json()).number;
    await page.emulateMedia({ media: "print" });
    const pdf = `${shots}/quote.pdf`;
    await page.pdf({ path: pdf, format: "A4", printBackground: true });
    await page.emulateMedia({ media: "screen" });
    const text = execFileSync("pdftotext", ["-layout", pdf, "-"], { encoding: "utf8" });
    for (const want of [number, "Musterdruck GmbH", "10115 Berlin", "Robot chassis", "71.40"]) {
      if (!text.includes(want)) failures.push(`the quote's PDF lacks ${want}:\n${text}`);
    }
    if (text.includes("Download PDF")) failures.push("the quote's PDF shows its buttons");
    const info = execFileSync("pdfinfo", [pdf], { encoding: "utf8" });
    if (!/^Pages:\s+1$/m.test(info)) failures.push(`the quote's PDF is not one page:\n${info}`);
    // An invoice of the DONE robot chassis (Jane's, sold for 60): its form and its draft.
    const robotId = robot.split("/")[2];
    const invoiceForm = `/invoices/new?customerId=${customer}&printId=${robotId}`;
    await page.goto(base + invoiceForm);
    await page.locator("input[name='extras[0].name']").fill("Versand");
    await page.locator("input[name='extras[0].amount']").fill("4,90");
    await page.locator("#invoice button[type=submit]").click();
    await page.waitForURL(/\/invoices\/[0-9a-f-]{36}$/);
    const invoice = new URL(page.url()).pathname;
    // A maintenance task: its own page is reached from the maintenance page's list.
    await page.goto(base + "/maintenance");
    const newTask = page.locator("#new-task");
    await newTask.locator("input[name=name]").fill("Düse reinigen");
    await newTask.locator("input[name='every.count']").fill("20");
    await newTask.locator("button[type=submit]").click();
    await page.waitForURL("**/maintenance?created=*");
    // A viewer (added on Settings › Accounts) reads what it may not change: a customer's
    // record and the pricing, their fields shown disabled.
    await page.goto(base + "/settings/accounts");
    const newAccount = page.locator("#new-account");
    await newAccount.locator("input[name=displayName]").fill("Leser");
    await newAccount.locator("input[name=email]").fill("leser@example.com");
    await newAccount.locator("input[name=password]").fill("correct horse battery staple");
    await newAccount.locator("select[name=role]").selectOption("VIEWER");
    await newAccount.locator("button[type=submit]").click();
    await page.waitForURL("**/settings/accounts*");
    const reader = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    reader.on("pageerror", (e) => problems.push(String(e)));
    await reader.goto(base + "/login");
    await reader.locator("#email").fill("leser@example.com");
    await reader.locator("#password").fill("correct horse battery staple");
    await reader.locator("form button[type=submit]").click();
    await reader.waitForURL("**/dashboard");
    const customerPage = `/customers/${customer}`;
    for (const [path, name] of [[customerPage, "customer-read-only"], ["/settings/pricing", "pricing-read-only"]]) {
      await measurePage(reader, path, "de-DE", name);
      if ((await reader.locator("fieldset.locked[disabled]").count()) !== 1) {
        failures.push(`${path} is not read-only for a viewer`);
      }
      if ((await reader.locator("main form[method=post]").count()) !== 0) {
        failures.push(`${path} offers a viewer a form`);
      }
    }

    const roots = ["/dashboard", "/prints", "/prints/new", "/series", "/customers", "/manufacturers",
      "/printers", "/components", "/filaments", "/materials", "/materials/new", "/labour-rates", "/labour-rates/new", "/charges",
      "/charges/new", "/post-processing-steps", "/post-processing-steps/new", "/stock",
      "/spools/new", "/stock/spoolmgr", "/maintenance", "/settings", "/settings/integrations",
      "/settings/backup", "/settings/alerts", "/settings/pricing", "/settings/company", "/settings/numbering", "/settings/accounts", "/quotes", "/invoices", "/search?q=Robot"];
    for (const locale of ["de-DE", "en-US"]) {
      if (locale === "en-US") {
        await page.goto(base + "/settings");
        await page.locator("select[name=locale]").selectOption("en-US");
        await page.locator("form[action='/settings/language'] button[type=submit]").click();
        await page.waitForURL("**/settings?saved");
      }
      const extra = [[twoParts, "print-editor-two-parts"], [robot, "print-done-two-parts"],
        [`/reports${robot}`, "report-two-parts"], [quoteForm, "quote-form"], [quote, "quote-sent"],
        [`${quote}/document`, "quote-document"], [invoiceForm, "invoice-form"], [invoice, "invoice-draft"],
        [`${resinDraft}/edit`, "print-editor-resin"], [resinDraft, "print-resin"]];
      await crawl(page, locale, roots, extra);
      // A refused form, its faults beside every field.
      await page.goto(base + "/printers/new");
      await page.locator("main form button[type=submit]").first().click();
      await page.waitForURL(/\/printers$/);
      // Every fault in the first round: the server's, not the browser's one at a time.
      const faults = await page.locator("[aria-invalid=true]").evaluateAll((fields) => fields.map((f) => f.name));
      if (faults.join() !== "name,manufacturerId,purchasePrice,expectedLifetimeHours,averagePowerWatts") {
        failures.push(`${locale} the empty printer form marked ${faults.join()}`);
      }
      await check(page, "/printers/new (refused)", locale, "printer-form-refused");
    }
  }
  console.log(`measured ${visited.length} pages × ${widths.length} widths:\n${visited.join("\n")}`);
  if (problems.length > 0) failures.push(...problems.map((p) => `page error: ${p}`));
  if (failures.length > 0) {
    console.error(`layout faults (${failures.length}):\n${failures.join("\n")}`);
    process.exitCode = 1;
  } else {
    console.log(`ok: no sideways scroll and no overlap; screenshots in ${shots}`);
  }
} finally {
  await browser.close();
}
