// PrintCost UI enhancements. Every page works without this file; it only adds comfort.
"use strict";

// Forms marked data-confirm ask before they submit (destructive actions).
document.addEventListener("submit", (event) => {
  const question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});

// A select marked data-autosubmit submits its form when changed.
document.addEventListener("change", (event) => {
  if (event.target.matches("select[data-autosubmit]")) {
    event.target.form.requestSubmit();
  }
});

// A button marked data-print opens the browser's print dialog (its "Save as PDF" writes the
// file); hidden until this script shows it, as without it the page's hint says what to do.
for (const button of document.querySelectorAll("button[data-print]")) {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}

// The print editor: add and remove parts and lines, keep the field names (JSON paths such as
// parts[0].hotends[1].componentId) in order, and show the live cost breakdown from
// POST /api/prints/calculate. The document is built as Submitted::document builds it on the
// server: empty fields left out, quantity a number, minutes sent as whole seconds.
const editor = document.getElementById("print-editor");
if (editor) {
  for (const button of editor.querySelectorAll("button.js")) button.hidden = false;

  const renumber = () => {
    editor.querySelectorAll("[data-name]").forEach((field) => {
      const indices = [];
      for (let node = field.closest("[data-list]"); node; node = node.parentElement.closest("[data-list]")) {
        const list = node.getAttribute("data-list");
        const siblings = [...node.parentElement.children].filter((c) => c.getAttribute("data-list") === list);
        indices.unshift(siblings.indexOf(node));
      }
      let i = 0;
      field.name = field.getAttribute("data-name").replace(/#/g, () => indices[i++]);
    });
    editor.querySelectorAll(".part [data-number]").forEach((n, i) => { n.textContent = i + 1; });
  };

  // A work line offers the labour rates, charges or steps of its kind.
  const filterWork = (line) => {
    const kind = line.querySelector("[data-work-kind]");
    const sources = line.querySelector("[data-work-source]");
    if (!kind || !sources) return;
    for (const option of sources.options) {
      const other = option.value && kind.value && option.getAttribute("data-kind") !== kind.value;
      option.hidden = other;
      if (other && option.selected) sources.value = "";
    }
  };

  const filterSpools = (line) => {
    const filament = line.querySelector("[data-name$='filamentId'], [data-name$='materialId']");
    const spools = line.querySelector("[data-spools]");
    if (!filament || !spools) return;
    for (const option of spools.options) {
      const other = option.value && option.getAttribute("data-filament") !== filament.value;
      option.hidden = other;
      if (other && option.selected) spools.value = "";
    }
    // A spool mapped to a tray of the part's printer is suggested; the maker still chooses.
    const printer = line.closest(".part")?.querySelector("[data-name$='printerId']");
    const mapped = (printer?.selectedOptions[0]?.getAttribute("data-mapped") || "").split(" ");
    if (!spools.value) {
      const suggested = [...spools.options].find((o) => o.value && !o.hidden && mapped.includes(o.value));
      if (suggested) spools.value = suggested.value;
    }
  };

  // A part's printer limits its components to those that fit it ("fits these printers"); a
  // newly chosen printer fills in what it preselects ("preselect in new prints") where the
  // part's fields are still empty.
  const componentSelects = "select[data-name$='buildPlateId'], select[data-name$='componentId'], select[data-name$='otherComponentIds[]']";
  const applyPrinter = (part, fill) => {
    const printer = part.querySelector("[data-name$='printerId']");
    const chosen = printer.selectedOptions[0];
    for (const select of part.querySelectorAll(componentSelects)) {
      for (const option of select.options) {
        const fits = (option.getAttribute("data-printers") || "").split(" ").filter(Boolean);
        option.hidden = Boolean(option.value && printer.value && fits.length && !fits.includes(printer.value));
        if (option.hidden && option.selected) option.selected = false;
      }
      if (!select.multiple && select.selectedOptions.length === 0) select.value = "";
    }
    // The fields of the printer's technology (FDM: hotends and filament; MSLA: the vat); the
    // other's are hidden and disabled, so they are neither checked nor sent.
    const technology = (printer.value && chosen?.dataset.technology) || "FDM";
    for (const fields of part.querySelectorAll("fieldset[data-technology]")) {
      const other = fields.getAttribute("data-technology") !== technology;
      fields.hidden = other;
      fields.disabled = other;
    }
    if (!fill || !printer.value || !chosen) return;
    const plate = part.querySelector("select[data-name$='buildPlateId']");
    if (!plate.value && chosen.dataset.plate) plate.value = chosen.dataset.plate;
    const head = part.querySelector(technology === "MSLA"
      ? "select[data-name$='vat.componentId']"
      : "select[data-name$='hotends[#].componentId']");
    if (head && !head.value && chosen.dataset.head) head.value = chosen.dataset.head;
    const others = part.querySelector("select[data-name$='otherComponentIds[]']");
    const marked = (chosen.dataset.others || "").split(" ");
    if (others) for (const option of others.options) if (marked.includes(option.value)) option.selected = true;
  };

  // A copy carries the current values of every field (cloneNode keeps only the page's first).
  const copyValues = (from, to) => {
    const sources = from.querySelectorAll("input, select, textarea");
    to.querySelectorAll("input, select, textarea").forEach((field, i) => {
      if (field.multiple) {
        [...field.options].forEach((option, j) => { option.selected = sources[i].options[j].selected; });
      } else {
        field.value = sources[i].value;
      }
    });
  };
  // An empty item: one line of each kind, every field cleared.
  const emptied = (item) => {
    for (const list of ["hotends", "filaments", "materials"]) {
      item.querySelectorAll(`[data-list='${list}']`).forEach((line, i) => { if (i > 0) line.remove(); });
    }
    item.querySelectorAll("input, textarea").forEach((field) => { field.value = ""; });
    item.querySelectorAll("select").forEach((select) => {
      [...select.options].forEach((option) => { option.selected = false; option.hidden = false; });
      if (!select.multiple) select.value = "";
    });
  };

  // The label a field is shown with, and its part's legend ("Printer (Part 2)").
  const described = (field) => {
    const label = field.closest("label");
    const text = label ? label.firstChild.textContent.trim() : field.name;
    const legend = field.closest(".part")?.querySelector("legend");
    return legend ? `${text} (${legend.textContent.trim()})` : text;
  };
  const missing = (fields) => [...new Set(fields.map(described))].join(", ");

  const money = new Intl.NumberFormat(editor.getAttribute("data-locale"), {
    style: "currency", currency: editor.getAttribute("data-currency"),
  });
  const total = document.getElementById("preview-total");
  const lines = document.querySelector("#preview-lines tbody");
  const state = document.getElementById("preview-state");

  // German forms take the decimal comma (the server reads them so); the API takes the point.
  const comma = document.documentElement.lang === "de-DE";
  const documentOf = () => {
    const root = {};
    const decimals = new Set([...editor.querySelectorAll("input[inputmode=decimal]")].map((i) => i.name));
    for (const [name, raw] of new FormData(editor)) {
      const value = String(raw).trim();
      if (!value) continue;
      const path = name.split(".").flatMap((piece) => {
        const [key, ...rest] = piece.split("[");
        if (rest.length === 1 && rest[0] === "]") return [key + "[]"];
        return [key, ...rest.map((r) => Number(r.replace("]", "")))];
      });
      let last = path.pop();
      let node = root;
      path.forEach((step, i) => {
        const next = typeof path[i + 1] === "number" ? [] : {};
        node[step] = node[step] ?? next;
        node = node[step];
      });
      let leaf = value;
      if (comma && decimals.has(name) && /^-?\d+,\d+$/.test(value)) {
        leaf = value.replace(",", ".");
      }
      if (last.endsWith("Minutes")) {
        last = last.replace(/Minutes$/, "Seconds");
        leaf = Math.round(Number(value.replace(",", ".")) * 60);
      } else if (last === "quantity" && path.length === 0 && /^\d+$/.test(value)) {
        leaf = Number(value);
      }
      if (last.endsWith("[]")) {
        last = last.slice(0, -2);
        node[last] = node[last] ?? [];
        node[last].push(leaf);
      } else {
        node[last] = leaf;
      }
    }
    const compact = (v) => Array.isArray(v) ? v.filter((x) => x != null).map(compact)
      : (v && typeof v === "object") ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, compact(x)])) : v;
    return compact(root);
  };

  let timer = null;
  let sequence = 0;
  const preview = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const mine = ++sequence;
      // An incomplete draft shows no total (never a stale one) and says what is missing.
      const blank = () => {
        total.textContent = "–";
        total.setAttribute("data-value", "");
        lines.replaceChildren();
      };
      if (!editor.checkValidity()) {
        const invalid = [...editor.querySelectorAll(":invalid")].filter((f) => f.name);
        state.textContent = `${editor.getAttribute("data-incomplete")} ${missing(invalid)}`;
        blank();
        return;
      }
      const draft = documentOf();
      (draft.parts || []).forEach((p) => { delete p.id; });
      try {
        const response = await fetch(editor.getAttribute("data-preview"), {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" }, body: JSON.stringify(draft),
        });
        const body = await response.json();
        if (mine !== sequence) return;
        if (!response.ok) {
          const paths = ((body.data && body.data.fieldErrors) || []).map((f) => f.path).filter(Boolean);
          const fields = paths.map((path) => editor.querySelector(`[name='${CSS.escape(path)}']`)).filter(Boolean);
          state.textContent = `${editor.getAttribute("data-incomplete")} ${missing(fields)}`;
          blank();
          return;
        }
        state.textContent = "";
        total.textContent = money.format(Number(body.totalCost));
        total.setAttribute("data-value", body.totalCost);
        // The price rule's suggestion, gross and planned margin, while the rule is on.
        const price = document.getElementById("preview-price");
        if (price) {
          price.hidden = !body.price;
          if (body.price) {
            const shown = (value) => (value == null ? "–" : money.format(Number(value)));
            document.getElementById("preview-suggested").textContent = shown(body.price.suggestedNet);
            document.getElementById("preview-gross").textContent = shown(body.price.gross);
            document.getElementById("preview-margin").textContent = shown(body.financials.plannedMargin);
          }
        }
        lines.replaceChildren(...body.costLines.map((line) => {
          const row = document.createElement("tr");
          const category = document.querySelector(`#category-names [data-category='${line.category}']`);
          for (const [text, numeric] of [[category ? category.textContent : line.category, false], [line.label, false], [money.format(Number(line.cost)), true]]) {
            const cell = document.createElement("td");
            cell.textContent = text;
            if (numeric) cell.className = "num";
            row.append(cell);
          }
          return row;
        }));
      } catch (error) {
        if (mine === sequence) state.textContent = String(error);
      }
    }, 250);
  };

  editor.addEventListener("click", (event) => {
    const add = event.target.closest("[data-add]");
    const remove = event.target.closest("[data-remove]");
    if (add) {
      const list = add.getAttribute("data-add");
      const scope = ["parts", "work", "consumables"].includes(list) ? editor : add.closest(".part");
      const items = [...scope.querySelectorAll(`[data-list='${list}']`)];
      const last = items[items.length - 1];
      const copy = last.cloneNode(true);
      copy.querySelectorAll(".fault").forEach((f) => f.remove());
      if (list === "parts" && !add.hasAttribute("data-empty")) {
        copyValues(last, copy);
        copy.querySelector("[data-name='parts[#].id']").value = "";
      } else {
        emptied(copy);
      }
      last.after(copy);
    } else if (remove) {
      const item = remove.closest("[data-list]");
      const list = item.getAttribute("data-list");
      const siblings = [...item.parentElement.children].filter((c) => c.getAttribute("data-list") === list);
      if (siblings.length > 1) item.remove();
    } else {
      return;
    }
    renumber();
    preview();
  });
  editor.addEventListener("input", preview);
  editor.addEventListener("change", (event) => {
    const line = event.target.closest("[data-list='filaments'], [data-list='materials'], [data-list='consumables']");
    if (line) filterSpools(line);
    const work = event.target.closest("[data-list='work']");
    if (work) filterWork(work);
    if (event.target.matches("[data-name$='printerId']")) {
      const part = event.target.closest(".part");
      applyPrinter(part, true);
      part.querySelectorAll("[data-list='filaments'], [data-list='materials'], [data-list='consumables']").forEach(filterSpools);
    }
    preview();
  });
  editor.querySelectorAll(".part").forEach((part) => applyPrinter(part, false));
  editor.querySelectorAll("[data-list='filaments'], [data-list='materials'], [data-list='consumables']").forEach(filterSpools);
  editor.querySelectorAll("[data-list='work']").forEach(filterWork);
  preview();
}
