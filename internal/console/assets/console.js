// The console page: sign-in and sign-out, the table list (with each
// table's item count; create, delete), a table's summary and tabs, and
// the keyboard. Items are items.js's, the editor editor.js's, the other
// tabs tabs.js's; what they share is page.js's.

import { Client, createTableRequest, keysOf, ttlRequest } from "./dynamodb.js";
import { $, addRow, el, errorText, field, fresh, hooks, plural, progress, rowValues, run, showError, state } from "./page.js";
import { clearItems, focusRow, offerIndexes, resetItemsForm, runItems } from "./items.js";
import { closeEditor } from "./editor.js";
import { clearTabs, showTabs } from "./tabs.js";

const storageKey = "kura.console.credentials";

// --- sign-in ---------------------------------------------------------------

function needsKey() {
  return state.settings.authentication || state.settings.databasePerKey;
}

// regionsKey stands in for an access key where none is needed but the
// region must be named (--regions without authentication): the server
// checks no secret, and the request's credential scope picks the region.
const regionsKey = { accessKeyId: "console", secretAccessKey: "unchecked" };

function start(credentials, region) {
  const regions = state.settings.regions ?? [];
  state.client = new Client({ endpoint: location.origin, region, credentials: credentials ?? (regions.length ? regionsKey : null) });
  $("where").textContent = credentials ? `${credentials.accessKeyId} · ${region}` : region;
  const pick = $("region-picker");
  pick.replaceChildren(...regions.map((r) => el("option", r, { value: r })));
  pick.value = region;
  pick.hidden = regions.length === 0;
  $("signout").hidden = !credentials;
  $("signin").hidden = true;
  $("app").hidden = false;
  return run(loadTables);
}

// Picking another region (--regions) shows that region's tables, with the
// same key.
$("region-picker").addEventListener("change", (e) => {
  const saved = JSON.parse(sessionStorage.getItem(storageKey) ?? "null");
  const region = e.target.value;
  if (saved) {
    saved.region = region;
    sessionStorage.setItem(storageKey, JSON.stringify(saved));
  }
  closeTable();
  start(saved?.credentials ?? null, region);
});

// signOut ends the session: the key is forgotten and every trace of what
// the session showed leaves the page (keepError: the banner says why).
function signOut({ keepError = false } = {}) {
  const why = keepError ? $("error-text").textContent : "";
  sessionStorage.removeItem(storageKey);
  Object.assign(state, fresh(state.settings));
  $("where").textContent = "";
  $("signout").hidden = true;
  $("app").hidden = true;
  $("tables").replaceChildren();
  closeTable();
  resetCreateForm();
  $("create").close();
  $("signin").hidden = false;
  field("signin-form", "region").value ||= state.settings.region || "us-east-1";
  field("signin-form", "secret").required = state.settings.authentication;
  showError(why ? new Error(why) : null);
}
hooks.signOut = signOut;

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
$("error-close").addEventListener("click", () => showError(null));

// --- tables ----------------------------------------------------------------

async function loadTables() {
  const client = state.client;
  if (!client) {
    return; // not signed in
  }
  const names = await client.tableNames();
  if (client !== state.client) {
    return; // signed out meanwhile
  }
  const list = $("tables");
  list.replaceChildren();
  for (const name of names) {
    const button = el("button", undefined, { type: "button", "data-table": name });
    button.append(el("span", name, { class: "name" }), el("span", "", { class: "count", title: "items (DescribeTable's ItemCount)" }));
    button.classList.toggle("active", state.table?.TableName === name);
    button.addEventListener("click", () => run(() => openTable(name)));
    const li = el("li");
    li.append(button);
    list.append(li);
  }
  if (names.length === 0) {
    list.append(el("li", "No tables yet.", { class: "hint" }));
  }
  await countItems(client, names);
}

// countItems fills in the table list's item counts, a few tables at a time.
async function countItems(client, names) {
  const queue = [...names];
  const worker = async () => {
    while (queue.length && client === state.client) {
      const name = queue.shift();
      try {
        const { Table } = await client.call("DescribeTable", { TableName: name });
        showCount(Table);
      } catch (err) {
        if (err.type === "AccessDeniedException") {
          markDenied(name, err.message); // --iam-file: this key may not see it
        }
        // else deleted meanwhile: the list shows it until the next refresh
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, names.length) }, worker));
}

function showCount(t) {
  const count = tableButton(t.TableName)?.querySelector(".count");
  if (count) {
    count.textContent = String(t.ItemCount ?? 0);
  }
}

// markDenied marks a table the signed-in key may not describe (Kura's
// --iam-file refused it), with the refusal as the tooltip.
function markDenied(name, message) {
  const button = tableButton(name);
  if (button) {
    button.classList.add("denied");
    button.title = message;
    button.querySelector(".count").textContent = "no access";
  }
}

function tableButton(name) {
  return [...$("tables").querySelectorAll("button")].find((b) => b.dataset.table === name);
}

$("refresh").addEventListener("click", () => run(loadTables));

// --- new table -------------------------------------------------------------

$("new-table").addEventListener("click", () => {
  if (!state.client) {
    return;
  }
  resetCreateForm();
  $("create").showModal();
});

function resetCreateForm() {
  $("create-form").reset();
  $("create-lsis").replaceChildren();
  $("create-vectors").replaceChildren();
  $("create-capacity").hidden = true;
  $("create-error").textContent = "";
}
$("create-cancel").addEventListener("click", () => $("create").close());
field("create-form", "billing").addEventListener("change", () => {
  $("create-capacity").hidden = field("create-form", "billing").value !== "PROVISIONED";
});
$("add-lsi").addEventListener("click", () => addRow("create-lsis", "lsi-row"));
$("add-vector").addEventListener("click", () => addRow("create-vectors", "vector-row"));

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = { lsis: rowValues("create-lsis"), vectors: rowValues("create-vectors") };
  for (const name of ["name", "pkName", "pkType", "skName", "skType", "billing", "rcu", "wcu", "stream", "ttl"]) {
    form[name] = field("create-form", name).value.trim();
  }
  form.protection = field("create-form", "protection").checked;
  try {
    if (form.lsis.length && !form.skName) {
      throw new Error("A local secondary index needs a table with a sort key.");
    }
    await state.client.call("CreateTable", createTableRequest(form));
  } catch (err) {
    $("create-error").textContent = errorText(err);
    return;
  }
  $("create").close();
  await run(async () => {
    await loadTables();
    if (form.ttl) {
      await turnOnTTL(form.name, form.ttl);
    }
    await openTable(form.name);
  });
});

// turnOnTTL turns time to live on for a new table once it is ACTIVE
// (CreateTable takes no TTL), waiting up to a minute.
async function turnOnTTL(name, attribute) {
  for (let i = 0; ; i++) {
    const { Table } = await state.client.call("DescribeTable", { TableName: name });
    if (Table.TableStatus === "ACTIVE") {
      break;
    }
    if (i === 120) {
      throw new Error(`The table ${name} was created, but it did not become ACTIVE within a minute: turn time to live on in its Settings.`);
    }
    progress(`Waiting for ${name} to be ACTIVE to turn time to live on…`, i, 120);
    await new Promise((r) => setTimeout(r, 500));
  }
  progress();
  await state.client.call("UpdateTimeToLive", ttlRequest(name, attribute, true));
}

$("delete-table").addEventListener("click", () => run(async () => {
  const name = state.table.TableName;
  if (!confirm(`Delete the table ${name} and all its items?`)) {
    return;
  }
  await state.client.call("DeleteTable", { TableName: name });
  closeTable();
  await loadTables();
}));

// --- a table ---------------------------------------------------------------

// closeTable empties the table pane.
function closeTable() {
  state.table = null;
  state.ttl = null;
  closeEditor();
  $("table-view").hidden = true;
  $("choose").hidden = false;
  $("table-name").textContent = "";
  $("summary").replaceChildren();
  clearItems();
  resetItemsForm();
  clearTabs();
  showTab("items");
  progress();
}

async function describe(name) {
  const client = state.client;
  const { Table } = await client.call("DescribeTable", { TableName: name });
  let ttl = null;
  try {
    ttl = (await client.call("DescribeTimeToLive", { TableName: name })).TimeToLiveDescription;
  } catch {
    // the summary goes without it
  }
  return client === state.client ? { Table, ttl } : null;
}

// openTable shows a table, starting with its items tab and a scan, unless
// keepTab (after a settings change: the tab and the form stay).
async function openTable(name, { keepTab = false } = {}) {
  const described = await describe(name);
  if (!described) {
    return;
  }
  const { Table, ttl } = described;
  const another = state.table?.TableName !== name;
  state.table = Table;
  state.ttl = ttl;
  for (const b of $("tables").querySelectorAll("button")) {
    b.classList.toggle("active", b.dataset.table === name);
  }
  showCount(Table);
  $("choose").hidden = true;
  $("table-view").hidden = false;
  $("table-name").textContent = name;
  showSummary(Table, ttl);
  showTabs(Table, ttl);
  if (!keepTab || another) {
    showTab("items");
    resetItemsForm(Table);
  } else {
    offerIndexes(Table);
  }
  if (Table.TableStatus !== "ACTIVE") {
    clearItems();
    $("count").textContent = `The table is ${Table.TableStatus}: choose it again to see its items once it is ACTIVE.`;
    return;
  }
  if (!keepTab || another) {
    await runItems();
  }
}
hooks.openTable = openTable;

// refreshSummary shows the table's figures again (after writes: DynamoDB's
// ItemCount lags by hours, Kura's is live).
hooks.refreshSummary = async () => {
  const described = state.table && await describe(state.table.TableName);
  if (described) {
    state.table = described.Table;
    showSummary(described.Table, described.ttl);
    showCount(described.Table);
  }
};

function showSummary(t, ttl) {
  const keys = keysOf(t).map((k) => `${k.name} (${k.type}, ${k.role === "HASH" ? "partition" : "sort"})`);
  const indexes = [...(t.GlobalSecondaryIndexes ?? []).map((i) => `${i.IndexName} (global, ${i.IndexStatus})`),
    ...(t.LocalSecondaryIndexes ?? []).map((i) => `${i.IndexName} (local)`),
    ...(t.VectorIndexes ?? []).map((i) => `${i.IndexName} (vector, ${i.IndexStatus})`)];
  const capacity = t.ProvisionedThroughput;
  const billing = t.BillingModeSummary?.BillingMode ?? "PROVISIONED";
  const rows = [
    ["Status", t.TableStatus],
    ["Key", keys.join(", ")],
    ["Items", plural(t.ItemCount ?? 0, "item")],
    ["Size", plural(t.TableSizeBytes ?? 0, "byte")],
    ["Billing", billing === "PROVISIONED" && capacity
      ? `PROVISIONED (${capacity.ReadCapacityUnits} read, ${capacity.WriteCapacityUnits} write units)` : billing],
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

// showTab shows the tab called name (its button's data-tab); the error
// banner belongs to the tab it was raised on.
function showTab(name) {
  showError(null);
  for (const b of document.querySelectorAll(".tabs button")) {
    const on = b.dataset.tab === name;
    b.classList.toggle("active", on);
    b.setAttribute("aria-selected", String(on));
    b.tabIndex = on ? 0 : -1;
    $("tab-" + b.dataset.tab).hidden = !on;
  }
}
hooks.showTab = showTab;

for (const tab of document.querySelectorAll(".tabs button")) {
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
}

// --- the keyboard ----------------------------------------------------------

// moveFocus moves the focus among siblings (buttons of a list, tabs) with
// the arrow keys.
function moveFocus(e, items, keys) {
  const i = items.indexOf(document.activeElement);
  const step = e.key === keys[0] ? -1 : e.key === keys[1] ? 1 : 0;
  if (i < 0 || step === 0) {
    return false;
  }
  items[Math.max(0, Math.min(items.length - 1, i + step))].focus();
  e.preventDefault();
  return true;
}

$("tables").addEventListener("keydown", (e) => moveFocus(e, [...$("tables").querySelectorAll("button")], ["ArrowUp", "ArrowDown"]));
document.querySelector(".tabs").addEventListener("keydown", (e) => {
  if (moveFocus(e, [...document.querySelectorAll(".tabs button")], ["ArrowLeft", "ArrowRight"])) {
    showTab(document.activeElement.dataset.tab);
  }
});

// Shortcuts where no field has the focus: / the items form, r refresh the
// table list, n a new item, g the first row of items.
document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (e.ctrlKey || e.metaKey || e.altKey || $("app").hidden || document.querySelector("dialog[open]") ||
      ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName)) {
    return;
  }
  const table = state.table && !$("tab-items").hidden;
  const actions = {
    "/": () => table && field("items-form", "mode").focus(),
    "r": () => run(loadTables),
    "n": () => table && $("new-item").click(),
    "g": () => table && focusRow(0),
  };
  if (actions[e.key]) {
    e.preventDefault();
    actions[e.key]();
  }
});

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
