// What the console's scripts share: the page's state, element helpers, and
// how errors are shown. Every value from the server is put on the page
// with textContent, never as HTML.

import { ApiError, authErrors } from "./dynamodb.js";

export const $ = (id) => document.getElementById(id);
// field is the control called name in the form with id form.
export const field = (form, name) => $(form).elements.namedItem(name);

// state is everything a session has: signOut puts it back to fresh(),
// keeping the server's settings.
export const state = fresh(null);

export function fresh(settings) {
  return {
    settings, // settings.json
    client: null,
    table: null, // DescribeTable's Table
    ttl: null, // DescribeTimeToLive's TimeToLiveDescription of that table
    form: null, // the items form as last run
    page: 0, // the page of items shown, from 0
    pageKeys: [], // the ExclusiveStartKey of each page up to the one shown (null: the first)
    nextKey: null, // LastEvaluatedKey of the page shown
    items: [], // the page shown
    columns: [],
    selected: new Set(), // indexes into items
    editing: null, // the item in the editor (null: a new one)
    view: "dynamodb", // the editor's view: "dynamodb" or "document"
    partiqlNext: null,
    busy: false, // a batch (delete, purge, import) is running
  };
}

// hooks are the functions one script offers the others (set by console.js).
export const hooks = { signOut: () => {}, openTable: async () => {}, refreshSummary: async () => {} };

export function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) {
    node.textContent = text;
  }
  for (const [k, v] of Object.entries(attrs)) {
    node.setAttribute(k, v);
  }
  return node;
}

// plural is "1 item", "2 items".
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// showError shows what went wrong in the banner (null: hides it). An
// error answer that means the key is wrong ends the session.
export function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    $("error-text").textContent = "";
    return;
  }
  $("error-text").textContent = errorText(err);
  box.hidden = false;
  if (err instanceof ApiError && authErrors.has(err.type) && state.settings?.authentication) {
    hooks.signOut({ keepError: true });
  }
}

// errorText is what went wrong, as the page shows it: a plain sentence for
// a key the server refuses, otherwise DynamoDB's type and message (up to
// any diagnostic dump after a blank line, such as the canonical request of
// a signature mismatch).
export function errorText(err) {
  if (!(err instanceof ApiError)) {
    return String(err?.message ?? err);
  }
  const key = state.client?.credentials?.accessKeyId ?? "";
  if (err.type === "InvalidSignatureException" && err.message.startsWith("The request signature we calculated does not match")) {
    return `The secret access key is not the one for the access key ID ${key}: the server could not verify the signature. Check the secret and sign in again.`;
  }
  if (err.type === "UnrecognizedClientException") {
    return `The server does not know the access key ID ${key} (or the session token is not valid). Check the key and sign in again.`;
  }
  if (err.type === "MissingAuthenticationTokenException") {
    return "The server needs signed requests: sign in with an access key.";
  }
  return `${err.type}: ${err.message.split("\n\n")[0]}`;
}

// run calls fn, showing what it throws.
export async function run(fn) {
  showError(null);
  try {
    await fn();
  } catch (err) {
    showError(err);
  }
}

// addRow appends a copy of the <template> with id template to container:
// a row of controls (data-name) with a remove button (data-remove).
export function addRow(container, template, init = () => {}) {
  const row = $(template).content.firstElementChild.cloneNode(true);
  row.querySelector("[data-remove]").addEventListener("click", () => row.remove());
  init(row);
  $(container).append(row);
  row.querySelector("[data-name]").focus();
  return row;
}

// rowValues are the values of the rows in container: one object per row,
// keyed by its controls' data-name.
export function rowValues(container) {
  return [...$(container).children].map((row) => Object.fromEntries(
    [...row.querySelectorAll("[data-name]")].map((c) => [c.dataset.name, c.value.trim()])));
}

// download offers text as a file called name.
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", undefined, { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// progress shows (or, with max undefined, hides) how far a batch is.
export function progress(text, value, max) {
  $("progress-box").hidden = max === undefined;
  $("progress").max = max ?? 1;
  $("progress").value = value ?? 0;
  $("progress-text").textContent = text ?? "";
}
