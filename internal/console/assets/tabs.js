// The table's other tabs: its description, vector search, its stream,
// PartiQL, and its settings (GSIs, stream, time to live, deletion
// protection).

import { columnsOf, createIndexRequest, formatValue, keysOf, readStream, searchRequest, streamRequest, ttlRequest, vectorOf } from "./dynamodb.js";
import { $, el, field, hooks, run, state } from "./page.js";
import { fillGrid } from "./items.js";
import { editItem } from "./editor.js";

// showTabs shows a table (DescribeTable's Table, DescribeTimeToLive's
// description) in the tabs, their forms and results fresh.
export function showTabs(t, ttl) {
  $("description").textContent = JSON.stringify(t, null, 2);
  field("partiql-form", "statement").value = `SELECT * FROM "${t.TableName}"`;
  $("partiql-out").textContent = "";
  $("partiql-next").hidden = true;
  showStreamInfo(t);
  showVectorInfo(t);
  showSettings(t, ttl);
}

// clearTabs empties every tab (no table shown).
export function clearTabs() {
  $("description").textContent = "";
  for (const form of ["partiql-form", "vector-form", "gsi-form", "ttl-form", "stream-form"]) {
    $(form).reset();
  }
  $("partiql-out").textContent = "";
  $("partiql-next").hidden = true;
  state.partiqlNext = null;
  for (const id of ["stream-info", "stream-count", "vector-info", "vector-count", "stream-state", "ttl-state", "protection-state"]) {
    $(id).textContent = "";
  }
  field("vector-form", "index").replaceChildren();
  for (const id of ["stream-records", "vector-results", "gsi-list"]) {
    $(id).tBodies[0].replaceChildren();
  }
  $("vector-results").tHead.replaceChildren();
}

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

hooks.findSimilar = (item, index) => {
  field("vector-form", "index").value = index.IndexName;
  field("vector-form", "vector").value = JSON.stringify(vectorOf(item, index.VectorAttribute.AttributeName));
  hooks.showTab("vector");
  run(searchVectors);
};

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
  await hooks.openTable(state.table.TableName, { keepTab: true });
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
    await hooks.openTable(state.table.TableName, { keepTab: true });
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
