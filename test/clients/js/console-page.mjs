// Driving the web console's page in jsdom, for the console's tests: the
// page and its script come from a real Kura, and every request the page
// makes goes to that Kura. Not a test file itself (node --test does not
// pick up .mjs files without "test" in their name).
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

// until waits for cond() to hold (the page works asynchronously).
export async function until(what, cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}; error banner: ${document.getElementById("error-text").textContent}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

// openPage loads /console/ into jsdom and runs its script (a module,
// which jsdom does not run itself) with the page's globals.
export async function openPage(endpoint) {
  const resp = await fetch(endpoint + "/console/");
  const html = await resp.text();
  const dom = new JSDOM(html, { url: endpoint + "/console/" });
  const { window } = dom;
  window.HTMLDialogElement.prototype.showModal ??= function () { this.setAttribute("open", ""); };
  window.HTMLDialogElement.prototype.close ??= function () { this.removeAttribute("open"); };
  Object.assign(globalThis, {
    window, document: window.document, location: window.location, sessionStorage: window.sessionStorage,
    confirm: () => true,
  });
  const script = new URL("console.js", endpoint + "/console/");
  const served = await fetch(script);
  assert.equal(served.status, 200);
  await served.text(); // a body left unread would hold its connection open
  // The same file, imported from the checkout (Node imports only files).
  await import(new URL("../../../internal/console/assets/console.js", import.meta.url));
  return window;
}

export const $ = (id) => document.getElementById(id);
export const field = (form, name) => $(form).elements.namedItem(name);
export const submit = (form) => $(form).dispatchEvent(new globalThis.window.Event("submit", { cancelable: true }));
export const click = (node) => node.dispatchEvent(new globalThis.window.Event("click", { bubbles: true }));
// tableButton is the table list's button for the table called name.
export const tableButton = (name) => [...$("tables").querySelectorAll("button")].find((b) => b.dataset.table === name);
export const rows = () => [...$("items").tBodies[0].rows];
// cell is the text of a row's cell under the column called name.
export const cell = (row, name) => {
  const i = [...$("items").tHead.rows[0].cells].findIndex((c) => c.textContent === name);
  return i < 0 ? undefined : row.cells[i].textContent;
};
export const change = (form, name, value) => {
  field(form, name).value = value;
  field(form, name).dispatchEvent(new globalThis.window.Event("change"));
};
