// The web console in a real browser engine: headless Chromium (Debian's
// package, driven with playwright-core) against a Kura with authentication
// on. jsdom (console-ui.test.js) runs the page's logic but neither enforces
// the Content-Security-Policy Kura serves it with, nor has the browser's
// WebCrypto, <dialog> or form submission; this run has all three, and
// fails on any script error or CSP violation the page causes. Run by
// test/clients_test.go (TestConsoleBrowser) with
// `node --test console-browser.mjs`; KURA_CHROMIUM names the browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { Client } from "../../../internal/console/assets/dynamodb.js";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const api = new Client({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });

test("the console works in Chromium under its Content-Security-Policy", async () => {
  const table = `browser-${Math.random().toString(16).slice(2, 10)}`;
  await api.call("CreateTable", {
    TableName: table, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
  });
  const evil = '<img src=x onerror="window.pwned=1">';
  for (const [pk, sk, note] of [["a", "1", "first"], ["a", "2", evil], ["b", "1", "other"]]) {
    await api.call("PutItem", { TableName: table, Item: { pk: { S: pk }, sk: { S: sk }, note: { S: note } } });
  }
  const browser = await chromium.launch({
    executablePath: process.env.KURA_CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox"], // root in CI containers
  });
  try {
    const page = await browser.newPage();
    // Everything the page reports that is not a refused request (those are
    // the API's answers, which the page shows itself).
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) {
        problems.push(`console: ${m.text()}`);
      }
    });
    page.on("dialog", (d) => d.accept()); // the delete confirmations

    const resp = await page.goto(endpoint + "/console/");
    assert.match(resp.headers()["content-security-policy"], /script-src 'self'/);

    // Sign in: the page signs with WebCrypto; a listed table proves the
    // signature was accepted.
    await page.locator("#signin").waitFor();
    await page.fill("#signin-form [name=key]", "local");
    await page.fill("#signin-form [name=secret]", "local");
    await page.click("#signin-form button");
    const tableButton = page.locator("#tables button", { hasText: table });
    await tableButton.waitFor();
    assert.equal(await page.inputValue("#signin-form [name=secret]"), "");

    // The table's items; markup in a value stays text.
    await tableButton.click();
    await page.waitForFunction(() => document.querySelectorAll("#items tbody tr").length === 3);
    assert.equal(await page.locator("#items img").count(), 0);
    assert.ok(await page.locator("#items td", { hasText: evil }).count() === 1);
    assert.equal(await page.evaluate(() => window.pwned), undefined);

    // A query through the form (submitting it must not navigate: the CSP
    // allows no form action).
    await page.selectOption("#items-form [name=mode]", "query");
    await page.fill("#items-form [name=pk]", "a");
    await page.click("#items-form button:not([type=button])");
    await page.waitForFunction(() => document.querySelectorAll("#items tbody tr").length === 2);
    assert.equal(new URL(page.url()).pathname, "/console/");

    // Edit an item in the modal editor.
    await page.locator("#items tbody tr", { hasText: "first" }).click();
    await page.locator("#editor[open]").waitFor();
    const item = JSON.parse(await page.inputValue("#editor-text"));
    item.note = { S: "edited in Chromium" };
    await page.fill("#editor-text", JSON.stringify(item));
    await page.click("#editor-save");
    await page.locator("#editor[open]").waitFor({ state: "detached" });
    const got = await api.call("GetItem", { TableName: table, Key: { pk: { S: "a" }, sk: { S: "1" } } });
    assert.equal(got.Item.note.S, "edited in Chromium");

    // Delete another, confirming.
    await page.locator("#items tbody tr", { hasText: evil }).click();
    await page.locator("#editor[open]").waitFor();
    await page.click("#editor-delete");
    await page.waitForFunction(() => document.querySelectorAll("#items tbody tr").length === 1);
    assert.equal((await api.call("GetItem", { TableName: table, Key: { pk: { S: "a" }, sk: { S: "2" } } })).Item, undefined);

    // PartiQL.
    await page.click('.tabs button[data-tab="partiql"]');
    await page.fill("#partiql-form [name=statement]", `SELECT note FROM "${table}" WHERE pk = 'b'`);
    await page.click("#partiql-form button:not([type=button])");
    await page.waitForFunction(() => document.getElementById("partiql-out").textContent !== "");
    assert.equal(await page.textContent("#partiql-out"), '{"note":{"S":"other"}}');

    // Settings: turn the table's stream on.
    await page.click('.tabs button[data-tab="settings"]');
    await page.selectOption("#stream-form [name=view]", "KEYS_ONLY");
    await page.click("#stream-form button:not([type=button])");
    await page.locator("#stream-state", { hasText: "On (KEYS_ONLY)." }).waitFor();
    assert.equal((await api.call("DescribeTable", { TableName: table })).Table.StreamSpecification.StreamViewType, "KEYS_ONLY");

    // Signing out forgets the key.
    await page.click("#signout");
    await page.locator("#signin").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);

    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await api.call("DeleteTable", { TableName: table });
  }
});
