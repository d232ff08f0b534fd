// The item editor: an item as DynamoDB JSON or as a plain JSON document
// (a toggle; see document.js), saved with PutItem, deleted with
// DeleteItem; "Find similar" for an item with a vector.

import { keyOf, keysOf, vectorOf } from "./dynamodb.js";
import { itemText, parseItemText } from "./document.js";
import { $, errorText, hooks, showError, state } from "./page.js";

const hints = {
  dynamodb: "DynamoDB JSON: each value typed, as the API writes it.",
  document: 'A plain JSON document: numbers keep every digit; sets and binary are written {"$SS": [...]}, ' +
    '{"$NS": [...]}, {"$BS": [...]}, {"$B": "base64"}.',
};
const saving = " Save writes the whole item (PutItem); a new item is not written over an existing one, " +
  "and an item whose key you change is saved as another item.";

// editItem opens the item a page shows, read again whole (a page of an
// index may hold only projected attributes).
export async function editItem(item) {
  const { Item } = await state.client.call("GetItem", { TableName: state.table.TableName, Key: keyOf(state.table, item), ConsistentRead: true });
  if (!Item) {
    throw new Error("The item is gone (deleted since the page was read).");
  }
  openEditor(Item);
}

// similarIndex is the first vector index of the table whose vector item
// holds, or null.
export function similarIndex(item) {
  return (state.table.VectorIndexes ?? []).find((i) => item && vectorOf(item, i.VectorAttribute.AttributeName)) ?? null;
}

export function openEditor(item) {
  showError(null); // the dialog has its own
  state.editing = item;
  $("editor-similar").hidden = !similarIndex(item);
  $("editor-title").textContent = item ? "Edit item" : "New item";
  const template = Object.fromEntries(keysOf(state.table).map((k) => [k.name, { [k.type]: "" }]));
  showView(state.view, item ?? template);
  $("editor-delete").hidden = !item;
  $("editor-error").textContent = "";
  $("editor").showModal();
  $("editor-text").focus();
}

// closeEditor closes the editor and forgets what it held.
export function closeEditor() {
  $("editor").close();
  $("editor-text").value = "";
  state.editing = null;
}

function showView(view, item) {
  state.view = view;
  for (const radio of document.getElementsByName("editor-view")) {
    radio.checked = radio.value === view;
  }
  $("editor-text").value = itemText(item, view);
  $("editor-hint").textContent = hints[view] + saving;
}

for (const radio of document.getElementsByName("editor-view")) {
  radio.addEventListener("change", () => {
    $("editor-error").textContent = "";
    try {
      showView(radio.value, parseItemText($("editor-text").value, state.view));
    } catch (err) {
      // the text stays as it is, in the view it is written in
      for (const r of document.getElementsByName("editor-view")) {
        r.checked = r.value === state.view;
      }
      $("editor-error").textContent = errorText(err);
    }
  });
}

$("editor-cancel").addEventListener("click", closeEditor);
$("editor").addEventListener("close", () => {
  if (!$("editor").open) { // closed with Escape too; the event comes later
    $("editor-text").value = "";
    state.editing = null;
  }
});

async function editorAction(fn) {
  $("editor-error").textContent = "";
  try {
    await fn();
  } catch (err) {
    $("editor-error").textContent = errorText(err);
    return;
  }
  closeEditor();
  await hooks.reloadPage().catch(showError);
}

$("editor-save").addEventListener("click", () => editorAction(async () => {
  const item = parseItemText($("editor-text").value, state.view);
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

$("editor-similar").addEventListener("click", () => {
  const item = state.editing;
  closeEditor();
  hooks.findSimilar(item, similarIndex(item));
});
