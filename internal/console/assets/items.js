// The items tab: the Scan and Query builder (index, key condition, sort
// order, filters, projection, Limit), pages back and forth, the grid and
// its selection, batch delete and purge, export and import.

import {
  batchWrite, columnsOf, filterOperators, formatValue, itemsRequest, keyOf, keysOf, sortKeyOperators,
} from "./dynamodb.js";
import { itemsFromCSV, parseItemsFile, toCSV } from "./document.js";
import { $, addRow, download, el, field, hooks, plural, progress, rowValues, run, state } from "./page.js";
import { editItem, openEditor } from "./editor.js";

const f = (name) => field("items-form", name);

// resetItemsForm puts the form back to a scan of the table (its key
// values mean nothing on another table), offering its indexes.
export function resetItemsForm(table = null) {
  $("items-form").reset();
  $("filters").replaceChildren();
  f("index").replaceChildren();
  if (table) {
    offerIndexes(table);
  }
}

// offerIndexes offers the table's indexes in the form (the one chosen
// stays, if it still is there).
export function offerIndexes(table) {
  const index = f("index");
  const chosen = index.value;
  index.replaceChildren(el("option", `Table ${table.TableName}`, { value: "" }));
  for (const i of [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])]) {
    index.append(el("option", `Index ${i.IndexName}`, { value: i.IndexName }));
  }
  index.value = [...index.options].some((o) => o.value === chosen) ? chosen : "";
  updateQueryFields();
}

// clearItems empties the grid and what goes with it.
export function clearItems() {
  $("notice").textContent = "";
  Object.assign(state, { form: null, pageKeys: [], nextKey: null, items: [], columns: [], selected: new Set() });
  $("items").tHead.replaceChildren();
  $("items").tBodies[0].replaceChildren();
  $("count").textContent = "";
  $("prev").disabled = true;
  $("next").disabled = true;
  updateSelection();
}

function updateQueryFields() {
  const query = f("mode").value === "query";
  $("query-fields").hidden = !query;
  const [pk, sk] = keysOf(state.table, f("index").value);
  $("pk-name").textContent = pk.name;
  $("sk-fields").hidden = !sk;
  if (sk) {
    $("sk-name").textContent = sk.name;
    if (f("skOp").options.length === 0) {
      for (const op of sortKeyOperators) {
        f("skOp").append(el("option", op, { value: op }));
      }
    }
    f("sk2").hidden = f("skOp").value !== "between";
  }
}

for (const name of ["mode", "index", "skOp"]) {
  f(name).addEventListener("change", updateQueryFields);
}

$("add-filter").addEventListener("click", () => addRow("filters", "filter-row", (row) => {
  const op = row.querySelector("[data-name=op]");
  for (const name of Object.keys(filterOperators)) {
    op.append(el("option", name, { value: name }));
  }
  const values = () => {
    const n = filterOperators[op.value].values;
    row.querySelector("[data-name=value]").hidden = n < 1;
    row.querySelector("[data-name=value2]").hidden = n < 2;
  };
  op.addEventListener("change", values);
  values();
}));

$("items-form").addEventListener("submit", (e) => {
  e.preventDefault();
  run(runItems);
});

// runItems runs the form from its first page.
export async function runItems() {
  const form = { filters: rowValues("filters"), descending: f("order").value === "desc" };
  for (const name of ["mode", "index", "pk", "skOp", "sk1", "sk2", "projection", "limit"]) {
    form[name] = f(name).value;
  }
  itemsRequest(state.table, form); // a mistake in the form is shown before the page changes
  state.form = form;
  state.pageKeys = [null];
  $("notice").textContent = "";
  await showPage(0);
}

// showPage shows page n (from 0) of the form as last run: the pages before
// it were read, so their start keys are known.
async function showPage(n) {
  const client = state.client;
  const table = state.table;
  const { operation, input } = itemsRequest(table, state.form, { startKey: state.pageKeys[n] });
  const out = await client.call(operation, input);
  if (client !== state.client || table !== state.table) {
    return; // signed out or another table meanwhile
  }
  state.page = n;
  state.nextKey = out.LastEvaluatedKey ?? null;
  state.pageKeys = [...state.pageKeys.slice(0, n + 1), state.nextKey];
  state.items = out.Items ?? [];
  state.selected = new Set();
  const keys = keysOf(table, state.form.index);
  state.columns = columnsOf(keys, state.items);
  fillGrid("items", state.columns, state.items, {
    keys: keys.map((k) => k.name),
    text: (item, c) => formatValue(item[c]),
    open: (item) => editItem(item),
    selected: state.selected,
  });
  $("count").textContent = `${plural(state.items.length, "item")} on page ${n + 1}` +
    (out.ScannedCount !== undefined && out.ScannedCount !== state.items.length ? ` (${out.ScannedCount} read)` : "") +
    (state.nextKey ? "; more follow" : "");
  $("prev").disabled = n === 0;
  $("next").disabled = !state.nextKey;
  updateSelection();
}

// reloadPage shows the page again (after a write), and the table's figures.
hooks.reloadPage = async () => {
  await hooks.refreshSummary();
  if (state.form && state.table?.TableStatus === "ACTIVE") {
    await showPage(state.page ?? 0);
  }
};

$("next").addEventListener("click", () => run(() => showPage(state.page + 1)));
$("prev").addEventListener("click", () => run(() => showPage(state.page - 1)));
$("new-item").addEventListener("click", () => state.table && openEditor(null));

// fillGrid shows rows in the table with id: a header of columns (those in
// keys marked, and kept in view when the grid scrolls sideways), a row per
// entry with text(row, column) in each cell, and open(row) run when a row
// is clicked or Enter pressed on it. With selected (a Set of row numbers),
// each row has a checkbox (Space toggles it).
export function fillGrid(id, columns, rows, { keys = [], text, open, selected = null }) {
  const head = el("tr");
  if (selected) {
    const all = el("input", undefined, { type: "checkbox", "aria-label": "Select all" });
    all.addEventListener("change", () => {
      rows.forEach((_, i) => (all.checked ? selected.add(i) : selected.delete(i)));
      for (const box of $(id).tBodies[0].querySelectorAll("input[type=checkbox]")) {
        box.checked = all.checked;
        box.closest("tr").classList.toggle("selected", all.checked);
      }
      updateSelection();
    });
    const th = el("th", undefined, { class: "sel" });
    th.append(all);
    head.append(th);
  }
  for (const c of columns) {
    head.append(el("th", c, keys.includes(c) ? { class: "key" } : {}));
  }
  $(id).tHead.replaceChildren(head);
  const body = $(id).tBodies[0];
  body.replaceChildren();
  rows.forEach((row, i) => {
    const tr = el("tr", undefined, { tabindex: "0" });
    let box = null;
    if (selected) {
      box = el("input", undefined, { type: "checkbox", "aria-label": "Select" });
      box.addEventListener("click", (e) => e.stopPropagation());
      box.addEventListener("change", () => {
        box.checked ? selected.add(i) : selected.delete(i);
        tr.classList.toggle("selected", box.checked);
        updateSelection();
      });
      const td = el("td", undefined, { class: "sel" });
      td.append(box);
      tr.append(td);
    }
    for (const c of columns) {
      const t = text(row, c);
      tr.append(el("td", t, { title: t.slice(0, 2000), ...(keys.includes(c) ? { class: "key" } : {}) }));
    }
    tr.addEventListener("click", () => run(() => open(row)));
    tr.addEventListener("keydown", (e) => {
      if (e.target !== tr) {
        return;
      }
      const moves = { ArrowDown: tr.nextElementSibling, ArrowUp: tr.previousElementSibling };
      if (e.key === "Enter") {
        run(() => open(row));
      } else if (e.key === " " && box) {
        box.click();
      } else if (e.key in moves) {
        moves[e.key]?.focus();
      } else {
        return;
      }
      e.preventDefault();
    });
    body.append(tr);
  });
  pinColumns($(id));
}

// pinColumns keeps a grid's selection and key columns in view: each is
// sticky at the width of those before it.
function pinColumns(table) {
  const head = table.tHead.rows[0];
  if (!head) {
    return;
  }
  const pinned = [...head.cells].map((c, i) => [c, i]).filter(([c]) => c.classList.contains("key") || c.classList.contains("sel"));
  let left = 0;
  for (const [th, i] of pinned) {
    for (const cell of [th, ...[...table.tBodies[0].rows].map((r) => r.cells[i])]) {
      cell.classList.add("pin");
      cell.style.left = `${left}px`;
    }
    left += th.offsetWidth;
  }
}

// focusRow moves the focus to row n of the items.
export function focusRow(n) {
  $("items").tBodies[0].rows[n]?.focus();
}

function updateSelection() {
  const n = state.selected.size;
  $("delete-selected").disabled = n === 0 || state.busy;
  $("delete-selected").textContent = n ? `Delete selected (${n})` : "Delete selected";
}

// batch runs a batch of writes (delete, purge, import) with its progress
// shown, then shows the table as it is after it.
async function batch(fn) {
  if (state.busy) {
    throw new Error("A batch is still running.");
  }
  state.busy = true;
  updateSelection();
  try {
    await fn();
  } finally {
    state.busy = false;
    progress();
    await hooks.reloadPage();
  }
}

$("delete-selected").addEventListener("click", () => run(() => {
  const items = [...state.selected].map((i) => state.items[i]);
  if (!items.length || !confirm(`Delete ${plural(items.length, "item")} from ${state.table.TableName}?`)) {
    return;
  }
  const table = state.table;
  return batch(async () => {
    const requests = items.map((item) => ({ DeleteRequest: { Key: keyOf(table, item) } }));
    await batchWrite(state.client, table.TableName, requests,
      (done) => progress(`Deleted ${done} of ${requests.length} items`, done, requests.length));
    $("notice").textContent = `Deleted ${plural(requests.length, "item")}.`;
  });
}));

$("purge").addEventListener("click", () => run(() => {
  const table = state.table;
  if (!table || !confirm(`Delete every item of ${table.TableName}? The table and its settings stay.`)) {
    return;
  }
  return batch(async () => {
    const keys = keysOf(table);
    const names = Object.fromEntries(keys.map((k, i) => [`#k${i}`, k.name]));
    let deleted = 0;
    let startKey;
    do {
      const input = { TableName: table.TableName, ProjectionExpression: Object.keys(names).join(", "), ExpressionAttributeNames: names };
      if (startKey) {
        input.ExclusiveStartKey = startKey;
      }
      const out = await state.client.call("Scan", input);
      const requests = (out.Items ?? []).map((item) => ({ DeleteRequest: { Key: item } }));
      const before = deleted;
      await batchWrite(state.client, table.TableName, requests, (done) => {
        deleted = before + done;
        progress(`Deleted ${plural(deleted, "item")}…`, deleted, table.ItemCount || deleted);
      });
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    $("notice").textContent = `Purged ${table.TableName}: deleted ${plural(deleted, "item")}.`;
  });
}));

$("export-json").addEventListener("click", () => {
  download(`${state.table.TableName}.json`, "application/json", JSON.stringify(state.items, null, 2) + "\n");
});
$("export-csv").addEventListener("click", () => {
  download(`${state.table.TableName}.csv`, "text/csv", toCSV(state.columns, state.items));
});

$("import").addEventListener("click", () => $("import-file").click());
$("import-file").addEventListener("change", () => run(async () => {
  const input = $("import-file");
  const file = input.files[0];
  input.value = "";
  if (!file || !state.table) {
    return;
  }
  const table = state.table;
  const text = await file.text();
  const types = Object.fromEntries((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  const items = /\.csv$/i.test(file.name) || file.type === "text/csv" ? itemsFromCSV(text, types) : parseItemsFile(text);
  await batch(async () => {
    progress(`Importing ${plural(items.length, "item")}…`, 0, items.length);
    const requests = items.map((item) => ({ PutRequest: { Item: item } }));
    await batchWrite(state.client, table.TableName, requests,
      (done) => progress(`Imported ${done} of ${plural(items.length, "item")}`, done, items.length));
  });
  $("notice").textContent = `Imported ${plural(items.length, "item")} from ${file.name}.`;
}));
