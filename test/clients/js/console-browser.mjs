// The web console in a real browser engine: headless Chromium (Debian's
// package, driven with playwright-core) against a Kura with authentication
// on. jsdom (console-ui.test.js) runs the page's logic but neither enforces
// the Content-Security-Policy Kura serves it with, nor has the browser's
// WebCrypto, <dialog>, layout, downloads or file inputs; this run has them
// all, and each test fails on any script error or CSP violation the page
// causes. Each page state is screenshot into KURA_SCREENSHOTS (default: a
// new folder under the system's temp folder, printed). Run by
// test/clients_test.go (TestConsoleBrowser) with
// `node --test console-browser.mjs`; KURA_CHROMIUM names the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { Client } from "../../../internal/console/assets/dynamodb.js";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const api = new Client({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
const shots = process.env.KURA_SCREENSHOTS || mkdtempSync(join(tmpdir(), "kura-console-"));
mkdirSync(shots, { recursive: true });
console.log(`# screenshots in ${shots}`);
const limit = { timeout: 90_000 };

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.KURA_CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox"], // root in CI containers
  });
});
after(() => browser?.close());

const unique = (prefix) => `${prefix}-${Math.random().toString(16).slice(2, 10)}`;

// table creates a table (pk and sk strings) holding items.
async function table(name, items = [], extra = {}) {
  await api.call("CreateTable", {
    TableName: name, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }], ...extra,
  });
  for (const item of items) {
    await api.call("PutItem", { TableName: name, Item: item });
  }
  return name;
}

const drop = (...names) => Promise.all(names.map((n) => api.call("DeleteTable", { TableName: n }).catch(() => {})));

// open opens the console in a fresh browser context (a laptop's screen):
// page, shot(name) to take a screenshot, done() to check that nothing went
// wrong on the page.
async function open(name, { colorScheme = "light" } = {}) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true, colorScheme });
  const page = await context.newPage();
  // Everything the page reports that is not a refused request (those are
  // the API's answers, which the page shows itself), and every CSP
  // violation.
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) {
      problems.push(`console: ${m.text()}`);
    }
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP: ${e.violatedDirective} ${e.blockedURI}`));
  });
  page.on("dialog", (d) => d.accept()); // the delete confirmations
  const resp = await page.goto(endpoint + "/console/");
  assert.match(resp.headers()["content-security-policy"], /script-src 'self'/);
  let n = 0;
  return {
    page,
    shot: (what) => page.screenshot({ path: join(shots, `${name}-${String(++n).padStart(2, "0")}-${what}.png`) }),
    done: async () => {
      await context.close();
      assert.deepEqual(problems, []);
    },
  };
}

async function signIn(page, secret = "local") {
  await page.locator("#signin").waitFor();
  await page.fill("#signin-form [name=key]", "local");
  await page.fill("#signin-form [name=secret]", secret);
  await page.click("#signin-form button");
}

async function openTable(page, name) {
  await page.locator("#tables button", { hasText: name }).click();
  await page.locator("#table-name", { hasText: name }).waitFor();
}

// fill sets the named controls of a form: text, a select's option, or a
// checkbox (true).
async function fill(page, form, values) {
  for (const [name, value] of Object.entries(values)) {
    const control = page.locator(`${form} [name=${name}]`);
    const tag = await control.evaluate((c) => c.tagName);
    await (value === true ? control.check() : tag === "SELECT" ? control.selectOption(value) : control.fill(value));
  }
}

const rowCount = (page, n) => page.waitForFunction((n) => document.querySelectorAll("#items tbody tr").length === n, n);
const summary = (page, term) => page.evaluate((term) =>
  [...document.querySelectorAll("#summary dt")].find((dt) => dt.textContent === term)?.nextElementSibling.textContent, term);

test("before signing in, only the sign-in form shows; a wrong secret gets a plain sentence; sign-out leaves nothing", limit, async () => {
  const name = await table(unique("signin"), [{ pk: { S: "secret-a" }, sk: { S: "1" }, note: { S: "private note" } }]);
  const { page, shot, done } = await open("signin");
  try {
    await page.locator("#signin").waitFor();
    assert.equal(await page.locator("#app").isVisible(), false, "the table pane shows under the sign-in form");
    // Its buttons, pressed anyway (by a script: they are out of sight), do nothing.
    await page.evaluate(() => ["refresh", "new-table"].forEach((id) => document.getElementById(id).click()));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await page.locator("#error").isVisible(), false, `Refresh before signing in: ${await page.textContent("#error")}`);
    assert.equal(await page.locator("#create").isVisible(), false, "New before signing in opens the dialog");
    await shot("sign-in");

    await signIn(page, "wrong");
    await page.locator("#error").waitFor();
    const refusal = await page.textContent("#error");
    assert.match(refusal, /The secret access key is not the one for the access key ID local/);
    assert.doesNotMatch(refusal, /Canonical/);
    assert.equal(await page.textContent("#where"), "", "the header keeps the refused key");
    await shot("wrong-secret");

    await signIn(page);
    await openTable(page, name);
    await rowCount(page, 1);
    await shot("signed-in");

    await page.click("#signout");
    await page.locator("#signin").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.equal(await page.locator("#app").isVisible(), false);
    assert.equal(await page.textContent("#where"), "");
    const left = await page.evaluate(() => document.body.textContent +
      [...document.querySelectorAll("input, textarea")].map((i) => i.value).join(" "));
    for (const trace of [name, "secret-a", "private note"]) {
      assert.ok(!left.includes(trace), `after sign-out the page still holds ${trace}`);
    }
    await shot("signed-out");
  } finally {
    await done();
    await drop(name);
  }
});

test("the summary and the grid: live item count, one item, vector and other indexes, nested numbers, pinned keys, fresh tabs", limit, async () => {
  const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`attribute${i}`, { S: "a fairly long value to scroll" }]));
  const name = await table(unique("summary"), [{ pk: { S: "a" }, sk: { S: "1" }, book: { M: { pages: { N: "412" } } }, ...wide }]);
  const vectors = unique("vectors");
  await api.call("CreateTable", {
    TableName: vectors, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }], KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    VectorIndexes: [{ IndexName: "byEmb", VectorAttribute: { AttributeName: "emb" }, Dimensions: 2, DistanceFunction: "COSINE",
      Projection: { ProjectionType: "ALL" } }],
  });
  const { page, shot, done } = await open("summary");
  try {
    await signIn(page);
    await openTable(page, name);
    await rowCount(page, 1);
    assert.match(await page.textContent("#count"), /^1 item on page 1/);
    assert.equal(await summary(page, "Items"), "1 item");
    assert.ok(await page.locator("#items td", { hasText: '{"pages":412}' }).count() === 1, "nested numbers are numbers");

    // The key columns stay in view when the grid scrolls sideways.
    await page.evaluate(() => { document.querySelector("#tab-items .grid").scrollLeft = 2000; });
    const grid = await page.locator("#tab-items .grid").boundingBox();
    const key = await page.locator("#items tbody td", { hasText: /^a$/ }).first().boundingBox();
    assert.ok(key.x >= grid.x && key.x < grid.x + 200, `the partition key scrolled away (x ${key.x}, grid at ${grid.x})`);
    await shot("scrolled-sideways");

    // A new item through the editor: the summary counts it.
    await page.click("#new-item");
    await page.fill("#editor-text", '{"pk": {"S": "b"}, "sk": {"S": "2"}}');
    await page.click("#editor-save");
    await rowCount(page, 2);
    await page.waitForFunction(() => [...document.querySelectorAll("#summary dd")][2].textContent === "2 items");

    // An error belongs to its tab; another table opens on its items.
    await page.click('.tabs button[data-tab="partiql"]');
    const before = await page.locator(".tabs").boundingBox();
    await page.fill("#partiql-form [name=statement]", "SELECT * FROM nowhere");
    await page.click("#partiql-form button:not([type=button])");
    await page.locator("#error").waitFor();
    assert.deepEqual(await page.locator(".tabs").boundingBox(), before, "the error banner shifts the page");
    await shot("error");
    await page.click('.tabs button[data-tab="describe"]');
    assert.equal(await page.locator("#error").isVisible(), false, "the error survives the tab change");
    // A dialog shows its own errors: the banner goes when one opens.
    await page.click('.tabs button[data-tab="partiql"]');
    await page.click("#partiql-form button:not([type=button])");
    await page.locator("#error").waitFor();
    await page.evaluate(() => document.getElementById("new-item").click()); // as the n key does
    await page.locator("#editor[open]").waitFor();
    assert.equal(await page.locator("#error").isVisible(), false, "the error banner stays over a dialog");
    await page.click("#editor-cancel");
    // Settings: turn the stream on (the tab stays).
    await page.click('.tabs button[data-tab="settings"]');
    await page.selectOption("#stream-form [name=view]", "KEYS_ONLY");
    await page.click("#stream-form button:not([type=button])");
    await page.locator("#stream-state", { hasText: "On (KEYS_ONLY)." }).waitFor();
    assert.equal((await api.call("DescribeTable", { TableName: name })).Table.StreamSpecification.StreamViewType, "KEYS_ONLY");
    await shot("settings");
    await openTable(page, vectors);
    assert.equal(await page.locator("#tab-items").isVisible(), true, "the last tab stays selected on another table");
    assert.match(await summary(page, "Indexes"), /^byEmb \(vector, ACTIVE\)$/);
    await shot("vector-table");
  } finally {
    await done();
    await drop(name, vectors);
  }
});

test("create a table with LSIs, provisioned capacity, a stream, TTL and deletion protection; and one with a vector index", limit, async () => {
  const name = unique("created");
  const vectors = unique("created-vec");
  const { page, shot, done } = await open("create");
  try {
    await signIn(page);
    await page.locator("#tables li").first().waitFor();
    await page.click("#new-table");
    await fill(page, "#create-form", { name, pkName: "pk", skName: "sk", skType: "N", billing: "PROVISIONED", rcu: "3", wcu: "2" });
    await page.click("#add-lsi");
    await page.fill("#create-lsis [data-name=name]", "byDate");
    await page.fill("#create-lsis [data-name=skName]", "date");
    await fill(page, "#create-form", { stream: "NEW_IMAGE", ttl: "expires", protection: true });
    await shot("create-dialog");
    await page.click("#create-form button.primary");
    await page.locator("#table-name", { hasText: name }).waitFor();
    await page.waitForFunction(() => document.getElementById("count").textContent.startsWith("0 items"));
    const { Table } = await api.call("DescribeTable", { TableName: name });
    assert.deepEqual(Table.ProvisionedThroughput.ReadCapacityUnits, 3);
    assert.deepEqual(Table.LocalSecondaryIndexes.map((l) => l.IndexName), ["byDate"]);
    assert.equal(Table.StreamSpecification.StreamViewType, "NEW_IMAGE");
    assert.equal(Table.DeletionProtectionEnabled, true);
    const ttl = (await api.call("DescribeTimeToLive", { TableName: name })).TimeToLiveDescription;
    assert.equal(ttl.AttributeName, "expires");
    assert.match(await summary(page, "Time to live"), /^expires \(ENABL/);
    assert.match(await summary(page, "Billing"), /^PROVISIONED \(3 read, 2 write units\)$/);
    await shot("created");

    await page.click("#new-table");
    await fill(page, "#create-form", { name: vectors, pkName: "id" });
    await page.click("#add-vector");
    await page.fill("#create-vectors [data-name=name]", "byEmb");
    await page.fill("#create-vectors [data-name=attribute]", "emb");
    await page.fill("#create-vectors [data-name=dimensions]", "3");
    await page.click("#create-form button.primary");
    await page.locator("#table-name", { hasText: vectors }).waitFor();
    assert.match(await summary(page, "Indexes"), /^byEmb \(vector, /);
  } finally {
    await done();
    await api.call("UpdateTable", { TableName: name, DeletionProtectionEnabled: false }).catch(() => {});
    await drop(name, vectors);
  }
});

test("items: add in the document view, edit, delete; query with a filter and a sort order; page back and forth", limit, async () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ pk: { S: "p" }, sk: { S: `s${i}` }, n: { N: String(i) }, kind: { S: i % 2 ? "odd" : "even" } }));
  const evil = '<img src=x onerror="window.pwned=1">';
  items[3].note = { S: evil };
  const name = await table(unique("items"), items);
  const { page, shot, done } = await open("items");
  try {
    await signIn(page);
    await openTable(page, name);
    await rowCount(page, 7);
    // Markup in a value stays text.
    assert.equal(await page.locator("#items img").count(), 0);
    assert.equal(await page.locator("#items td", { hasText: evil }).count(), 1);
    assert.equal(await page.evaluate(() => window.pwned), undefined);

    // A new item written as a document: its number keeps every digit.
    await page.click("#new-item");
    await page.check("input[name=editor-view][value=document]");
    assert.deepEqual(JSON.parse(await page.inputValue("#editor-text")), { pk: "", sk: "" });
    await page.fill("#editor-text", '{"pk": "q", "sk": "1", "big": 12345678901234567890123456789.5, "tags": {"$SS": ["x"]}}');
    await shot("editor-document");
    await page.click("#editor-save");
    await rowCount(page, 8);
    const got = (await api.call("GetItem", { TableName: name, Key: { pk: { S: "q" }, sk: { S: "1" } } })).Item;
    assert.deepEqual(got, { pk: { S: "q" }, sk: { S: "1" }, big: { N: "12345678901234567890123456789.5" }, tags: { SS: ["x"] } });

    // Edit it, toggling to DynamoDB JSON and back.
    await page.locator("#items tbody tr", { hasText: "12345678901234567890123456789.5" }).click();
    await page.locator("#editor[open]").waitFor();
    await page.check("input[name=editor-view][value=dynamodb]");
    assert.deepEqual(JSON.parse(await page.inputValue("#editor-text")).big, { N: "12345678901234567890123456789.5" });
    await shot("editor-dynamodb");
    await page.check("input[name=editor-view][value=document]");
    const doc = (await page.inputValue("#editor-text")).replace('"tags"', '"note": "edited", "tags"');
    await page.fill("#editor-text", doc);
    await page.click("#editor-save");
    await page.locator("#items td", { hasText: "edited" }).waitFor();

    // Delete it.
    await page.locator("#items tbody tr", { hasText: "edited" }).click();
    await page.click("#editor-delete");
    await rowCount(page, 7);

    // A query with a filter, newest first, two a page: forth and back.
    await fill(page, "#items-form", { mode: "query", pk: "p", order: "desc", limit: "2" });
    await page.click("#add-filter");
    await page.fill("#filters [data-name=attribute]", "kind");
    await page.fill("#filters [data-name=value]", "even");
    await page.click("#items-form button.primary");
    const sks = () => page.evaluate(() => [...document.querySelectorAll("#items tbody tr")].map((r) =>
      [...r.cells].find((c) => /^s\d$/.test(c.textContent))?.textContent));
    await page.locator("#count", { hasText: "1 item on page 1 (2 read); more follow" }).waitFor();
    const pages = [await sks()];
    await shot("query-page-1");
    while (!(await page.isDisabled("#next"))) {
      await page.click("#next");
      await page.waitForFunction((n) => document.getElementById("count").textContent.includes(`page ${n}`), pages.length + 1);
      pages.push(await sks());
    }
    assert.deepEqual(pages.flat().filter(Boolean), ["s6", "s4", "s2", "s0"]);
    assert.equal(new URL(page.url()).pathname, "/console/", "submitting a form must not navigate (the CSP allows no form action)");
    await shot("query-last-page");
    await page.click("#prev");
    await page.waitForFunction((n) => document.getElementById("count").textContent.includes(`page ${n}`), pages.length - 1);
    assert.deepEqual(await sks(), pages.at(-2));
    assert.equal(await page.isDisabled("#next"), false);
  } finally {
    await done();
    await drop(name);
  }
});

test("batch: delete selected items, export JSON and CSV, import JSON and CSV with progress, purge", limit, async () => {
  const items = Array.from({ length: 5 }, (_, i) => ({ pk: { S: `k${i}` }, sk: { S: "x" }, n: { N: String(i) } }));
  const name = await table(unique("batch"), items);
  const { page, shot, done } = await open("batch");
  try {
    await signIn(page);
    await openTable(page, name);
    await rowCount(page, 5);

    await page.locator("#items tbody tr", { hasText: "k1" }).locator("input[type=checkbox]").check();
    await page.locator("#items tbody tr", { hasText: "k3" }).locator("input[type=checkbox]").check();
    assert.equal(await page.textContent("#delete-selected"), "Delete selected (2)");
    await shot("selected");
    await page.click("#delete-selected");
    await rowCount(page, 3);
    assert.equal((await api.call("Scan", { TableName: name })).Count, 3);
    await page.check("#items thead input[type=checkbox]");
    assert.equal(await page.textContent("#delete-selected"), "Delete selected (3)");
    await page.uncheck("#items thead input[type=checkbox]");
    assert.equal(await page.isDisabled("#delete-selected"), true);

    const [json] = await Promise.all([page.waitForEvent("download"), page.click("#export-json")]);
    const exported = JSON.parse(readFileSync(await json.path(), "utf8"));
    assert.deepEqual(exported.map((i) => i.pk.S).sort(), ["k0", "k2", "k4"]);
    const [csv] = await Promise.all([page.waitForEvent("download"), page.click("#export-csv")]);
    assert.equal(csv.suggestedFilename(), `${name}.csv`);
    assert.match(readFileSync(await csv.path(), "utf8"), /^pk,sk,n\r\n/);

    // 60 documents, a number in each too long for a JavaScript number.
    const many = "[" + Array.from({ length: 60 }, (_, i) => `{"pk": "j${i}", "sk": "y", "big": {"deep": 98765432109876543210}}`).join(",\n") + "]";
    await page.evaluate(() => {
      window.progressed = [];
      new MutationObserver(() => window.progressed.push(document.getElementById("progress-text").textContent))
        .observe(document.getElementById("progress-text"), { childList: true, characterData: true, subtree: true });
    });
    await page.setInputFiles("#import-file", { name: "items.json", mimeType: "application/json", buffer: Buffer.from(many) });
    await page.waitForFunction(() => document.getElementById("notice").textContent === "Imported 60 items from items.json.");
    assert.deepEqual((await page.evaluate(() => window.progressed)).filter((p) => p.startsWith("Imported")),
      ["Imported 25 of 60 items", "Imported 50 of 60 items", "Imported 60 of 60 items"]);
    await shot("imported-json");
    await page.setInputFiles("#import-file", { name: "more.csv", mimeType: "text/csv", buffer: Buffer.from("pk,sk,note\r\nc1,z,hello\r\nc2,z,\"a, b\"\r\n") });
    await page.waitForFunction(() => document.getElementById("notice").textContent === "Imported 2 items from more.csv.");
    const c2 = (await api.call("GetItem", { TableName: name, Key: { pk: { S: "c2" }, sk: { S: "z" } } })).Item;
    assert.deepEqual(c2.note, { S: "a, b" });
    const j7 = (await api.call("GetItem", { TableName: name, Key: { pk: { S: "j7" }, sk: { S: "y" } } })).Item;
    assert.deepEqual(j7.big, { M: { deep: { N: "98765432109876543210" } } });
    assert.equal(await summary(page, "Items"), "65 items");

    await page.click("#purge");
    await page.waitForFunction(() => document.getElementById("count").textContent.startsWith("0 items"));
    assert.equal((await api.call("Scan", { TableName: name })).Count, 0);
    assert.equal(await summary(page, "Items"), "0 items");
    await shot("purged");
  } finally {
    await done();
    await drop(name);
  }
});

test("the dark theme follows the system; the keyboard moves through tables, tabs and rows; a favicon", limit, async () => {
  const name = await table(unique("keys"), [{ pk: { S: "a" }, sk: { S: "1" } }, { pk: { S: "b" }, sk: { S: "2" } }]);
  const { page, shot, done } = await open("keyboard", { colorScheme: "dark" });
  try {
    const icon = await page.evaluate(async () => (await fetch(document.querySelector("link[rel=icon]").href)).status);
    assert.equal(icon, 200);
    await signIn(page);
    const button = page.locator("#tables button", { hasText: name });
    await button.waitFor();
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    assert.equal(bg, "rgb(20, 24, 29)", "the dark theme");

    // The table list: focus, arrows, Enter.
    await page.locator("#tables button").first().focus();
    const buttons = await page.locator("#tables button").count();
    for (let i = 0; i < buttons && !(await button.evaluate((b) => b === document.activeElement)); i++) {
      await page.keyboard.press("ArrowDown");
    }
    await page.keyboard.press("Enter");
    await page.locator("#table-name", { hasText: name }).waitFor();
    await rowCount(page, 2);

    // g: the first row; arrows move; Enter opens the editor; Escape closes it.
    await page.locator("#table-name").click(); // nothing focused that takes keys
    await page.keyboard.press("g");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.locator("#editor[open]").waitFor();
    const second = await page.locator("#items tbody tr").nth(1).locator("td.key").first().textContent();
    assert.equal(JSON.parse(await page.inputValue("#editor-text")).pk.S, second);
    await shot("dark-editor");
    await page.keyboard.press("Escape");
    await page.locator("#editor[open]").waitFor({ state: "detached" });

    // n: a new item; / the items form; r refreshes the table list.
    await page.keyboard.press("n");
    await page.locator("#editor[open]").waitFor();
    assert.equal(await page.locator("#editor-title").textContent(), "New item");
    await page.keyboard.press("Escape");
    await page.locator("#editor[open]").waitFor({ state: "detached" });
    await page.keyboard.press("/");
    assert.equal(await page.evaluate(() => document.activeElement.name), "mode");
    const other = await table(unique("keys-more"));
    await page.locator("#table-name").click();
    await page.keyboard.press("r");
    await page.locator("#tables button", { hasText: other }).waitFor();
    await drop(other);

    // The tabs: arrows move and show.
    await page.locator('.tabs button[data-tab="items"]').focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.locator("#tab-describe").isVisible(), true);
    await shot("dark-description");
  } finally {
    await done();
    await drop(name);
  }
});
