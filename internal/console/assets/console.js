// The console page: sign-in, the table list (create, delete), a table's
// summary, items (Scan or Query, a page at a time), the item editor, vector
// search, the table's stream, PartiQL and its settings (GSIs, stream, TTL,
// deletion protection). Every value from the server is shown with
// textContent, never as HTML.

import {
  ApiError, Client, authErrors, columnsOf, createIndexRequest, createTableRequest, formatValue, itemsRequest, keyOf,
  keysOf, parseItem, readStream, searchRequest, sortKeyOperators, streamRequest, ttlRequest, vectorOf,
} from "./dynamodb.js";

const $ = (id) => document.getElementById(id);
// field is the control called name in the form with id form.
const field = (form, name) => $(form).elements.namedItem(name);
const storageKey = "kura.console.credentials";

const state = {
  settings: null,
  client: null,
  table: null, // DescribeTable's Table
  ttl: null, // DescribeTimeToLive's TimeToLiveDescription of that table
  form: null, // the items form as last run
  nextKey: null, // LastEvaluatedKey of the page shown
  pages: 0,
  editing: null, // the item in the editor (null: a new one)
  partiqlNext: null,
};

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) {
    node.textContent = text;
  }
  for (const [k, v] of Object.entries(attrs)) {
    node.setAttribute(k, v);
  }
  return node;
}

function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.textContent = errorText(err);
  box.hidden = false;
  if (err instanceof ApiError && authErrors.has(err.type) && state.settings.authentication) {
    signOut(false);
  }
}

// errorText is what went wrong, as the page shows it: DynamoDB's type and
// message for an error answer.
function errorText(err) {
  return err instanceof ApiError ? `${err.type}: ${err.message}` : String(err.message ?? err);
}

// run calls fn, showing what it throws.
async function run(fn) {
  showError(null);
  try {
    await fn();
  } catch (err) {
    showError(err);
  }
}

// --- sign-in ---------------------------------------------------------------

function needsKey() {
  return state.settings.authentication || state.settings.databasePerKey;
}

function start(credentials, region) {
  state.client = new Client({ endpoint: location.origin, region, credentials });
  $("where").textContent = credentials ? `${credentials.accessKeyId} · ${region}` : region;
  $("signout").hidden = !credentials;
  $("signin").hidden = true;
  $("app").hidden = false;
  return run(loadTables);
}

function signOut(clear = true) {
  sessionStorage.removeItem(storageKey);
  state.client = null;
  $("app").hidden = true;
  $("signout").hidden = true;
  $("signin").hidden = false;
  field("signin-form", "region").value ||= state.settings.region || "us-east-1";
  field("signin-form", "secret").required = state.settings.authentication;
  if (clear) {
    showError(null);
  }
}

$("signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const f = (name) => field("signin-form", name);
  const credentials = {
    accessKeyId: f("key").value.trim(),
    secretAccessKey: f("secret").value || "unchecked",
    sessionToken: f("token").value.trim() || undefined,
  };
  const region = f("region").value.trim();
  sessionStorage.setItem(storageKey, JSON.stringify({ credentials, region }));
  f("secret").value = "";
  start(credentials, region);
});

$("signout").addEventListener("click", () => signOut());

// --- tables ----------------------------------------------------------------

async function loadTables() {
  const names = await state.client.tableNames();
  const list = $("tables");
  list.replaceChildren();
  for (const name of names) {
    const button = el("button", name, { type: "button" });
    button.classList.toggle("active", state.table?.TableName === name);
    button.addEventListener("click", () => run(() => openTable(name)));
    const li = el("li");
    li.append(button);
    list.append(li);
  }
  if (names.length === 0) {
    list.append(el("li", "No tables yet."));
  }
}

$("refresh").addEventListener("click", () => run(loadTables));

$("new-table").addEventListener("click", () => {
  $("create-form").reset();
  $("create-error").textContent = "";
  $("create").showModal();
});
$("create-cancel").addEventListener("click", () => $("create").close());

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = {};
  for (const name of ["name", "pkName", "pkType", "skName", "skType"]) {
    form[name] = field("create-form", name).value.trim();
  }
  try {
    await state.client.call("CreateTable", createTableRequest(form));
  } catch (err) {
    $("create-error").textContent = errorText(err);
    return;
  }
  $("create").close();
  await run(async () => {
    await loadTables();
    await openTable(form.name);
  });
});

$("delete-table").addEventListener("click", () => run(async () => {
  const name = state.table.TableName;
  if (!confirm(`Delete the table ${name} and all its items?`)) {
    return;
  }
  await state.client.call("DeleteTable", { TableName: name });
  state.table = null;
  $("table-view").hidden = true;
  $("choose").hidden = false;
  await loadTables();
}));

async function openTable(name) {
  const { Table } = await state.client.call("DescribeTable", { TableName: name });
  let ttl = null;
  try {
    ttl = (await state.client.call("DescribeTimeToLive", { TableName: name })).TimeToLiveDescription;
  } catch {
    // the summary goes without it
  }
  state.table = Table;
  state.ttl = ttl;
  for (const b of $("tables").querySelectorAll("button")) {
    b.classList.toggle("active", b.textContent === name);
  }
  $("choose").hidden = true;
  $("table-view").hidden = false;
  $("table-name").textContent = name;
  showSummary(Table, ttl);
  $("description").textContent = JSON.stringify(Table, null, 2);
  const index = field("items-form", "index");
  index.replaceChildren(el("option", `Table ${name}`, { value: "" }));
  for (const i of [...(Table.GlobalSecondaryIndexes ?? []), ...(Table.LocalSecondaryIndexes ?? [])]) {
    index.append(el("option", `Index ${i.IndexName}`, { value: i.IndexName }));
  }
  field("partiql-form", "statement").value = `SELECT * FROM "${name}"`;
  $("partiql-out").textContent = "";
  $("partiql-next").hidden = true;
  showStreamInfo(Table);
  showVectorInfo(Table);
  showSettings(Table, ttl);
  // A new table starts with a scan: the last table's key values mean
  // nothing here.
  for (const [name, value] of [["mode", "scan"], ["pk", ""], ["sk1", ""], ["sk2", ""]]) {
    field("items-form", name).value = value;
  }
  updateQueryFields();
  if (Table.TableStatus !== "ACTIVE") {
    $("items").tHead.replaceChildren();
    $("items").tBodies[0].replaceChildren();
    $("count").textContent = `The table is ${Table.TableStatus}: choose it again to see its items once it is ACTIVE.`;
    $("next").hidden = true;
    return;
  }
  await runItems();
}

function showSummary(t, ttl) {
  const keys = keysOf(t).map((k) => `${k.name} (${k.type}, ${k.role === "HASH" ? "partition" : "sort"})`);
  const indexes = [...(t.GlobalSecondaryIndexes ?? []).map((i) => `${i.IndexName} (global, ${i.IndexStatus})`),
    ...(t.LocalSecondaryIndexes ?? []).map((i) => `${i.IndexName} (local)`)];
  const rows = [
    ["Status", t.TableStatus],
    ["Key", keys.join(", ")],
    ["Items", String(t.ItemCount ?? 0)],
    ["Size", `${t.TableSizeBytes ?? 0} bytes`],
    ["Billing", t.BillingModeSummary?.BillingMode ?? "PROVISIONED"],
    ["Indexes", indexes.join(", ") || "none"],
    ["Stream", t.StreamSpecification?.StreamEnabled ? t.StreamSpecification.StreamViewType : "off"],
    ["Time to live", ttl?.AttributeName ? `${ttl.AttributeName} (${ttl.TimeToLiveStatus})` : "off"],
    ["Deletion protection", t.DeletionProtectionEnabled ? "on" : "off"],
    ["ARN", t.TableArn],
  ];
  const dl = $("summary");
  dl.replaceChildren();
  for (const [k, v] of rows) {
    dl.append(el("dt", k), el("dd", v));
  }
}

// showTab shows the tab called name (its button's data-tab).
function showTab(name) {
  for (const b of document.querySelectorAll(".tabs button")) {
    b.classList.toggle("active", b.dataset.tab === name);
    $("tab-" + b.dataset.tab).hidden = b.dataset.tab !== name;
  }
}

for (const tab of document.querySelectorAll(".tabs button")) {
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
}

// --- items -----------------------------------------------------------------

function updateQueryFields() {
  const f = (name) => field("items-form", name);
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
  field("items-form", name).addEventListener("change", updateQueryFields);
}

$("items-form").addEventListener("submit", (e) => {
  e.preventDefault();
  run(runItems);
});

async function runItems() {
  state.form = {};
  for (const name of ["mode", "index", "pk", "skOp", "sk1", "sk2"]) {
    state.form[name] = field("items-form", name).value;
  }
  await showPage(null);
}

async function showPage(startKey) {
  const { operation, input } = itemsRequest(state.table, state.form, { startKey });
  const out = await state.client.call(operation, input);
  state.pages = startKey ? state.pages + 1 : 1;
  state.nextKey = out.LastEvaluatedKey ?? null;
  const items = out.Items ?? [];
  const keys = keysOf(state.table, state.form.index);
  fillGrid("items", columnsOf(keys, items), items, {
    keys: keys.map((k) => k.name),
    text: (item, c) => formatValue(item[c]),
    open: (item) => editItem(item),
  });
  $("count").textContent = `${items.length} items on page ${state.pages}` +
    (out.ScannedCount !== undefined && out.ScannedCount !== items.length ? ` (${out.ScannedCount} read)` : "") +
    (state.nextKey ? "; more follow" : "");
  $("next").hidden = !state.nextKey;
}

// fillGrid shows rows in the table with id: a header of columns (those in
// keys marked), a row per entry with text(row, column) in each cell, and
// open(row) run when a row is clicked.
function fillGrid(id, columns, rows, { keys = [], text, open }) {
  const head = el("tr");
  for (const c of columns) {
    const th = el("th", c);
    if (keys.includes(c)) {
      th.className = "key";
    }
    head.append(th);
  }
  $(id).tHead.replaceChildren(head);
  const body = $(id).tBodies[0];
  body.replaceChildren();
  for (const row of rows) {
    const tr = el("tr");
    for (const c of columns) {
      const t = text(row, c);
      tr.append(el("td", t, { title: t.slice(0, 2000) }));
    }
    tr.addEventListener("click", () => run(() => open(row)));
    body.append(tr);
  }
}

$("next").addEventListener("click", () => run(() => showPage(state.nextKey)));

// --- the item editor -------------------------------------------------------

async function editItem(item) {
  // A page of an index may hold only projected attributes: edit the item.
  const { Item } = await state.client.call("GetItem", { TableName: state.table.TableName, Key: keyOf(state.table, item), ConsistentRead: true });
  if (!Item) {
    throw new Error("The item is gone (deleted since the page was read).");
  }
  openEditor(Item);
}

function openEditor(item) {
  state.editing = item;
  $("editor-similar").hidden = !similarIndex(item);
  $("editor-title").textContent = item ? "Edit item" : "New item";
  const template = Object.fromEntries(keysOf(state.table).map((k) => [k.name, { [k.type]: "" }]));
  $("editor-text").value = JSON.stringify(item ?? template, null, 2);
  $("editor-delete").hidden = !item;
  $("editor-error").textContent = "";
  $("editor").showModal();
}

$("new-item").addEventListener("click", () => openEditor(null));
$("editor-cancel").addEventListener("click", () => $("editor").close());

async function editorAction(fn) {
  $("editor-error").textContent = "";
  try {
    await fn();
    $("editor").close();
    await run(() => showPage(null));
  } catch (err) {
    $("editor-error").textContent = errorText(err);
  }
}

$("editor-save").addEventListener("click", () => editorAction(async () => {
  const item = parseItem($("editor-text").value);
  const input = { TableName: state.table.TableName, Item: item };
  if (!state.editing) {
    const [pk] = keysOf(state.table);
    Object.assign(input, { ConditionExpression: "attribute_not_exists(#pk)", ExpressionAttributeNames: { "#pk": pk.name } });
  }
  await state.client.call("PutItem", input);
}));

$("editor-delete").addEventListener("click", () => editorAction(async () => {
  if (!confirm("Delete this item?")) {
    throw new Error("Not deleted.");
  }
  await state.client.call("DeleteItem", { TableName: state.table.TableName, Key: keyOf(state.table, state.editing) });
}));

// --- vector search ---------------------------------------------------------

function showVectorInfo(t) {
  const indexes = t.VectorIndexes ?? [];
  $("vector-info").textContent = indexes.length ? "" : "This table has no vector index.";
  $("vector-form").hidden = indexes.length === 0;
  const select = field("vector-form", "index");
  select.replaceChildren();
  for (const i of indexes) {
    select.append(el("option", `${i.IndexName} (${i.Dimensions} dimensions, ${i.DistanceFunction}, ${i.IndexStatus})`,
      { value: i.IndexName }));
  }
  $("vector-count").textContent = "";
  $("vector-results").tHead.replaceChildren();
  $("vector-results").tBodies[0].replaceChildren();
}

// similarIndex is the first vector index of the table whose vector item
// holds, or null.
function similarIndex(item) {
  return (state.table.VectorIndexes ?? []).find((i) => item && vectorOf(item, i.VectorAttribute.AttributeName)) ?? null;
}

async function searchVectors() {
  const form = {};
  for (const name of ["index", "vector", "topK"]) {
    form[name] = field("vector-form", name).value;
  }
  const out = await state.client.call("SearchVectors", searchRequest(state.table, form));
  const results = out.SearchResults ?? [];
  fillGrid("vector-results", ["score", ...columnsOf(keysOf(state.table), results.map((r) => r.Item))], results, {
    text: (r, c) => (c === "score" ? String(r.Score) : formatValue(r.Item[c])),
    open: (r) => editItem(r.Item),
  });
  $("vector-count").textContent = `${results.length} nearest items, nearest first`;
}

$("vector-form").addEventListener("submit", (e) => {
  e.preventDefault();
  run(searchVectors);
});

$("editor-similar").addEventListener("click", () => {
  const index = similarIndex(state.editing);
  field("vector-form", "index").value = index.IndexName;
  field("vector-form", "vector").value = JSON.stringify(vectorOf(state.editing, index.VectorAttribute.AttributeName));
  $("editor").close();
  showTab("vector");
  run(searchVectors);
});

// --- the stream ------------------------------------------------------------

function showStreamInfo(t) {
  const spec = t.StreamSpecification;
  $("stream-info").textContent = t.LatestStreamArn
    ? `${t.LatestStreamArn} (${spec?.StreamEnabled ? spec.StreamViewType : "disabled; its records stay readable for 24 hours"})`
    : "This table has no stream (turn one on in Settings).";
  $("stream-read").hidden = !t.LatestStreamArn;
  $("stream-count").textContent = "";
  $("stream-records").tBodies[0].replaceChildren();
}

// image is a stream record's item image as one line.
function image(av) {
  return av ? formatValue({ M: av }) : "";
}

$("stream-read").addEventListener("click", () => run(async () => {
  const { records, truncated } = await readStream(state.client, state.table.LatestStreamArn);
  const seq = (r) => BigInt(r.dynamodb?.SequenceNumber ?? "0");
  records.sort((a, b) => (seq(a) < seq(b) ? 1 : seq(a) > seq(b) ? -1 : 0)); // newest first
  const body = $("stream-records").tBodies[0];
  body.replaceChildren();
  for (const r of records) {
    const d = r.dynamodb ?? {};
    const keys = Object.entries(d.Keys ?? {}).map(([k, v]) => `${k}=${formatValue(v)}`).join(", ");
    const tr = el("tr");
    for (const text of [new Date((d.ApproximateCreationDateTime ?? 0) * 1000).toISOString(), r.eventName, keys,
      image(d.OldImage), image(d.NewImage)]) {
      tr.append(el("td", text, { title: text.slice(0, 2000) }));
    }
    body.append(tr);
  }
  $("stream-count").textContent = `${records.length} records, newest first` +
    (truncated ? " (the stream holds more: these are the oldest 2000)" : "");
}));

// --- PartiQL ---------------------------------------------------------------

async function runStatement(nextToken) {
  const input = { Statement: field("partiql-form", "statement").value };
  if (nextToken) {
    input.NextToken = nextToken;
  }
  const out = await state.client.call("ExecuteStatement", input);
  state.partiqlNext = out.NextToken ?? null;
  $("partiql-out").textContent = (out.Items ?? []).map((i) => JSON.stringify(i)).join("\n") ||
    "Done (no items returned).";
  $("partiql-next").hidden = !state.partiqlNext;
}

$("partiql-form").addEventListener("submit", (e) => {
  e.preventDefault();
  run(() => runStatement(null));
});
$("partiql-next").addEventListener("click", () => run(() => runStatement(state.partiqlNext)));

// --- settings --------------------------------------------------------------

function showSettings(t, ttl) {
  const body = $("gsi-list").tBodies[0];
  body.replaceChildren();
  for (const g of t.GlobalSecondaryIndexes ?? []) {
    const key = (g.KeySchema ?? []).map((k) => `${k.AttributeName} (${k.KeyType === "HASH" ? "partition" : "sort"})`);
    const tr = el("tr");
    for (const text of [g.IndexName, key.join(", "), g.Projection?.ProjectionType ?? "",
      g.IndexStatus + (g.Backfilling ? ", backfilling" : "")]) {
      tr.append(el("td", text));
    }
    const del = el("button", "Delete", { type: "button" });
    del.addEventListener("click", () => run(() => deleteIndex(g.IndexName)));
    const td = el("td");
    td.append(del);
    tr.append(td);
    body.append(tr);
  }
  if (!t.GlobalSecondaryIndexes?.length) {
    const tr = el("tr");
    tr.append(el("td", "No global secondary indexes.", { colspan: "5" }));
    body.append(tr);
  }
  $("gsi-capacity").hidden = (t.BillingModeSummary?.BillingMode ?? "PROVISIONED") !== "PROVISIONED";

  const stream = t.StreamSpecification?.StreamEnabled ? t.StreamSpecification.StreamViewType : "";
  $("stream-state").textContent = stream ? `On (${stream}).` : "Off.";
  $("stream-off").hidden = !stream;
  $("stream-form").querySelector("button:not([type=button])").hidden = Boolean(stream);
  field("stream-form", "view").hidden = Boolean(stream);

  const ttlOn = ttl?.AttributeName && ttl.TimeToLiveStatus !== "DISABLED";
  $("ttl-state").textContent = ttlOn ? `${ttl.TimeToLiveStatus} on ${ttl.AttributeName}.` : "Off.";
  $("ttl-off").hidden = !ttlOn;
  $("ttl-form").querySelector("button:not([type=button])").hidden = Boolean(ttlOn);
  field("ttl-form", "attribute").hidden = Boolean(ttlOn);

  $("protection-state").textContent = t.DeletionProtectionEnabled ? "On: the table cannot be deleted." : "Off.";
  $("protection-toggle").textContent = t.DeletionProtectionEnabled ? "Turn off" : "Turn on";
}

// changeSettings makes a settings call, then shows the table as it is
// after it.
async function changeSettings(op, input) {
  await state.client.call(op, input);
  await openTable(state.table.TableName);
}

async function deleteIndex(name) {
  if (!confirm(`Delete the index ${name}?`)) {
    return;
  }
  await changeSettings("UpdateTable",
    { TableName: state.table.TableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] });
}

$("gsi-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const form = {};
  for (const name of ["name", "pkName", "pkType", "skName", "skType", "projection", "rcu", "wcu"]) {
    form[name] = field("gsi-form", name).value.trim();
  }
  run(async () => {
    await state.client.call("UpdateTable", createIndexRequest(state.table, form));
    for (const name of ["name", "pkName", "skName"]) {
      field("gsi-form", name).value = "";
    }
    await openTable(state.table.TableName);
  });
});

$("stream-form").addEventListener("submit", (e) => {
  e.preventDefault();
  run(() => changeSettings("UpdateTable", streamRequest(state.table.TableName, field("stream-form", "view").value)));
});
$("stream-off").addEventListener("click", () => run(() => changeSettings("UpdateTable", streamRequest(state.table.TableName, ""))));

$("ttl-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const attribute = field("ttl-form", "attribute").value.trim();
  run(() => changeSettings("UpdateTimeToLive", ttlRequest(state.table.TableName, attribute, true)));
});
$("ttl-off").addEventListener("click", () => run(() =>
  changeSettings("UpdateTimeToLive", ttlRequest(state.table.TableName, state.ttl.AttributeName, false))));

$("protection-toggle").addEventListener("click", () => run(() => changeSettings("UpdateTable",
  { TableName: state.table.TableName, DeletionProtectionEnabled: !state.table.DeletionProtectionEnabled })));

// --- start -----------------------------------------------------------------

async function main() {
  const resp = await fetch(new URL("settings.json", location.href));
  state.settings = await resp.json();
  const saved = JSON.parse(sessionStorage.getItem(storageKey) ?? "null");
  if (!needsKey()) {
    return start(null, state.settings.region || "us-east-1");
  }
  if (saved) {
    return start(saved.credentials, saved.region);
  }
  signOut();
}

main().catch(showError);
