// The web console's page, driven as a user drives it: the page and its
// script come from a real Kura (authentication on), run in jsdom, and
// every request the page makes goes to that Kura. Run by
// test/clients_test.go (TestJavaScriptSDK).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../../../internal/console/assets/dynamodb.js";
import { $, cell, change, click, field, openPage, rows, submit, tableButton, until } from "./console-page.mjs";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const api = new Client({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });

test("the console signs in, browses, queries, edits, deletes, runs PartiQL, reads a stream, searches vectors, creates and deletes a table", async () => {
  const table = `ui-${Math.random().toString(16).slice(2, 10)}`;
  await api.call("CreateTable", {
    TableName: table, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
  });
  const streamed = `${table}-stream`;
  await api.call("CreateTable", {
    TableName: streamed, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  });
  await api.call("PutItem", { TableName: streamed, Item: { id: { S: "x" }, v: { N: "1" } } });
  await api.call("PutItem", { TableName: streamed, Item: { id: { S: "x" }, v: { N: "2" } } });
  await api.call("DeleteItem", { TableName: streamed, Key: { id: { S: "x" } } });
  const vectors = `${table}-vec`;
  await api.call("CreateTable", {
    TableName: vectors, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    VectorIndexes: [{
      IndexName: "byEmbedding", VectorAttribute: { AttributeName: "emb" }, Dimensions: 3, DistanceFunction: "COSINE",
      Projection: { ProjectionType: "KEYS_ONLY" },
    }],
  });
  for (const [id, v] of [["a", [1, 0, 0]], ["b", [0.9, 0.1, 0]], ["c", [0, 1, 0]]]) {
    await api.call("PutItem", { TableName: vectors, Item: { id: { S: id }, emb: { L: v.map((x) => ({ N: String(x) })) } } });
  }
  const evil = '<img src=x onerror="globalThis.pwned=1">';
  for (const [pk, sk, note] of [["a", "1", "first"], ["a", "2", evil], ["b", "1", "other"]]) {
    await api.call("PutItem", { TableName: table, Item: { pk: { S: pk }, sk: { S: sk }, note: { S: note } } });
  }
  try {
    await openPage(endpoint);

    // Authentication is on: the page asks for a key first. A wrong one is
    // refused by the server and the page asks again.
    await until("the sign-in form", () => !$("signin").hidden);
    assert.equal(field("signin-form", "region").value, "us-east-1");
    field("signin-form", "key").value = "local";
    field("signin-form", "secret").value = "wrong";
    submit("signin-form");
    // In a plain sentence, not DynamoDB's canonical-request dump; and
    // nothing of the refused session stays on the page.
    await until("the refusal", () => $("error-text").textContent.startsWith("The secret access key is not the one for the access key ID local:"));
    await until("the sign-in form again", () => !$("signin").hidden);
    assert.doesNotMatch($("error-text").textContent, /Canonical/);
    assert.equal($("where").textContent, "", "the header forgets the refused key");
    assert.equal($("app").hidden, true);
    field("signin-form", "key").value = "local";
    field("signin-form", "secret").value = "local";
    submit("signin-form");
    await until("the table list", () => tableButton(table));
    assert.equal($("error").hidden, true, "signing in again clears the refusal");
    assert.equal(field("signin-form", "secret").value, "", "the secret stays out of the form");

    // The table: its summary and a scan of its items.
    click(tableButton(table));
    await until("the items", () => rows().length === 3);
    assert.equal(tableButton(table).querySelector(".count").textContent, "3", "the list shows each table's item count");
    assert.equal($("table-name").textContent, table);
    const summary = Object.fromEntries([...$("summary").querySelectorAll("dt")].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]));
    assert.equal(summary.Status, "ACTIVE");
    assert.equal(summary.Key, "pk (S, partition), sk (S, sort)");
    assert.equal(summary.Items, "3 items");
    assert.deepEqual([...$("items").tHead.rows[0].cells].map((c) => c.textContent), ["", "pk", "sk", "note"]);
    const markup = rows().find((r) => cell(r, "sk") === "2").cells[3];
    assert.equal(markup.textContent, evil);
    assert.equal(markup.children.length, 0, "a value is text, never markup");
    assert.equal(globalThis.pwned, undefined);
    assert.equal($("stream-info").textContent, "This table has no stream (turn one on in Settings).");
    assert.equal($("stream-read").hidden, true);

    // A query: partition a, sort key begins with 1.
    change("items-form", "mode", "query");
    assert.equal($("query-fields").hidden, false);
    field("items-form", "pk").value = "a";
    change("items-form", "skOp", "begins_with");
    field("items-form", "sk1").value = "1";
    submit("items-form");
    await until("the query's items", () => rows().length === 1);
    assert.equal(cell(rows()[0], "note"), "first");

    // Edit that item in the editor.
    click(rows()[0]);
    await until("the editor", () => $("editor").hasAttribute("open"));
    const item = JSON.parse($("editor-text").value);
    assert.deepEqual(item, { pk: { S: "a" }, sk: { S: "1" }, note: { S: "first" } });
    item.note = { S: "edited" };
    item.count = { N: "3" };
    $("editor-text").value = JSON.stringify(item);
    click($("editor-save"));
    await until("the editor to close", () => !$("editor").hasAttribute("open"));
    const got = await api.call("GetItem", { TableName: table, Key: { pk: { S: "a" }, sk: { S: "1" } } });
    assert.deepEqual(got.Item, item);
    await until("the page to show the edit", () => rows().length === 1 && cell(rows()[0], "note") === "edited");
    assert.equal(cell(rows()[0], "count"), "3");
    assert.equal($("count").textContent, "1 item on page 1");

    // A new item; a second one with the same key is refused, not written over.
    click($("new-item"));
    await until("the editor", () => $("editor").hasAttribute("open"));
    assert.deepEqual(JSON.parse($("editor-text").value), { pk: { S: "" }, sk: { S: "" } });
    $("editor-text").value = '{"pk": {"S": "c"}, "sk": {"S": "9"}}';
    click($("editor-save"));
    await until("the editor to close", () => !$("editor").hasAttribute("open"));
    assert.ok((await api.call("GetItem", { TableName: table, Key: { pk: { S: "c" }, sk: { S: "9" } } })).Item);
    click($("new-item"));
    $("editor-text").value = '{"pk": {"S": "c"}, "sk": {"S": "9"}, "x": {"S": "over"}}';
    click($("editor-save"));
    await until("the refusal", () => $("editor-error").textContent.startsWith("ConditionalCheckFailedException: "));
    $("editor-text").value = "{broken";
    click($("editor-save"));
    await until("the parse error", () => $("editor-error").textContent.startsWith("The item is not valid JSON"));
    click($("editor-cancel"));
    assert.equal((await api.call("GetItem", { TableName: table, Key: { pk: { S: "c" }, sk: { S: "9" } } })).Item.x, undefined);
    // The summary and the list count what the editor wrote.
    const items = () => [...$("summary").querySelectorAll("dt")].find((dt) => dt.textContent === "Items").nextElementSibling.textContent;
    await until("the summary's new count", () => items() === "4 items");
    assert.equal(tableButton(table).querySelector(".count").textContent, "4");

    // A nested document's numbers are numbers.
    change("items-form", "mode", "scan");
    submit("items-form");
    await until("the scan", () => rows().length === 4);
    click($("new-item"));
    await until("the editor", () => $("editor").hasAttribute("open"));
    $("editor-text").value = '{"pk": {"S": "d"}, "sk": {"S": "1"}, "book": {"M": {"pages": {"N": "412"}}}}';
    click($("editor-save"));
    await until("the nested item", () => rows().some((r) => cell(r, "book") === '{"pages":412}'));
    await until("the summary's new count", () => items() === "5 items");
    click(rows().find((r) => cell(r, "pk") === "d"));
    await until("the editor", () => $("editor").hasAttribute("open"));
    click($("editor-delete"));
    await until("the item to go", () => items() === "4 items");

    // Delete the edited item.
    change("items-form", "mode", "scan");
    submit("items-form");
    await until("the scan", () => rows().length === 4);
    click(rows().find((r) => cell(r, "note") === "edited"));
    await until("the editor", () => $("editor").hasAttribute("open"));
    click($("editor-delete"));
    await until("the item to go", () => rows().length === 3);
    assert.equal((await api.call("GetItem", { TableName: table, Key: { pk: { S: "a" }, sk: { S: "1" } } })).Item, undefined);

    // PartiQL.
    click(document.querySelector('.tabs button[data-tab="partiql"]'));
    assert.equal($("tab-partiql").hidden, false);
    assert.equal($("tab-items").hidden, true);
    field("partiql-form", "statement").value = `SELECT note FROM "${table}" WHERE pk = 'b'`;
    submit("partiql-form");
    await until("the statement's items", () => $("partiql-out").textContent !== "");
    assert.equal($("partiql-out").textContent, '{"note":{"S":"other"}}');
    field("partiql-form", "statement").value = `SELECT * FROM "no-such-table"`;
    submit("partiql-form");
    await until("the error", () => $("error-text").textContent.startsWith("ResourceNotFoundException: "));

    // Settings: a GSI added and used, a stream turned on and off, time to
    // live on (and DynamoDB's refusal to turn it off again within the
    // hour), deletion protection on and off, the GSI deleted.
    click(document.querySelector('.tabs button[data-tab="settings"]'));
    assert.equal($("tab-settings").hidden, false);
    const gsiRows = () => [...$("gsi-list").tBodies[0].rows].map((r) => [...r.cells].slice(0, 4).map((c) => c.textContent));
    assert.deepEqual(gsiRows(), [["No global secondary indexes."]]);
    assert.equal($("gsi-capacity").hidden, true, "an on-demand table's index takes no capacity");
    field("gsi-form", "name").value = "byNote";
    field("gsi-form", "pkName").value = "note";
    field("gsi-form", "projection").value = "KEYS_ONLY";
    submit("gsi-form");
    await until("the new index", () => gsiRows()[0]?.[0] === "byNote");
    assert.deepEqual(gsiRows()[0].slice(0, 3), ["byNote", "note (partition)", "KEYS_ONLY"]);
    assert.equal(field("gsi-form", "name").value, "");
    const described = (await api.call("DescribeTable", { TableName: table })).Table;
    assert.deepEqual(described.GlobalSecondaryIndexes.map((g) => g.IndexName), ["byNote"]);
    assert.ok([...field("items-form", "index").options].some((o) => o.value === "byNote"), "the items form offers the index");

    assert.equal($("stream-state").textContent, "Off.");
    field("stream-form", "view").value = "NEW_IMAGE";
    submit("stream-form");
    await until("the stream on", () => $("stream-state").textContent === "On (NEW_IMAGE).");
    assert.equal($("stream-off").hidden, false);
    assert.match($("stream-info").textContent, /\/stream\/.* \(NEW_IMAGE\)$/);
    click($("stream-off"));
    await until("the stream off", () => $("stream-state").textContent === "Off.");
    assert.equal((await api.call("DescribeTable", { TableName: table })).Table.StreamSpecification?.StreamEnabled ?? false, false);

    assert.equal($("ttl-state").textContent, "Off.");
    field("ttl-form", "attribute").value = "expires";
    submit("ttl-form");
    await until("time to live on", () => $("ttl-state").textContent === "ENABLED on expires.");
    click($("ttl-off"));
    await until("the refusal", () => $("error-text").textContent ===
      "ValidationException: Time to live has been modified multiple times within a fixed interval");
    assert.equal($("ttl-state").textContent, "ENABLED on expires.");

    assert.equal($("protection-state").textContent, "Off.");
    click($("protection-toggle"));
    await until("protection on", () => $("protection-state").textContent === "On: the table cannot be deleted.");
    assert.equal((await api.call("DescribeTable", { TableName: table })).Table.DeletionProtectionEnabled, true);
    click($("protection-toggle"));
    await until("protection off", () => $("protection-state").textContent === "Off.");

    click([...$("gsi-list").tBodies[0].rows[0].cells].at(-1).querySelector("button"));
    await until("the index gone", () => gsiRows()[0]?.[0] !== "byNote" || /DELETING/.test(gsiRows()[0][3]));
    click(document.querySelector('.tabs button[data-tab="items"]'));

    // A table's stream, newest record first.
    click(tableButton(streamed));
    await until("the streamed table", () => $("table-name").textContent === streamed);
    click(document.querySelector('.tabs button[data-tab="stream"]'));
    assert.match($("stream-info").textContent, /\/stream\/.* \(NEW_AND_OLD_IMAGES\)$/);
    click($("stream-read"));
    await until("the records", () => $("stream-count").textContent !== "");
    assert.equal($("stream-count").textContent, "3 records, newest first");
    const records = [...$("stream-records").tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => c.textContent));
    assert.deepEqual(records, [
      ["REMOVE", "id=x", '{"id":"x","v":2}', ""],
      ["MODIFY", "id=x", '{"id":"x","v":1}', '{"id":"x","v":2}'],
      ["INSERT", "id=x", "", '{"id":"x","v":1}'],
    ]);

    // Vector search from an item: "Find similar". (The items form was
    // left on a query of this table's keys: another table starts with a
    // scan.)
    assert.equal($("vector-info").textContent, "This table has no vector index.");
    change("items-form", "mode", "query");
    field("items-form", "pk").value = "a";
    click(document.querySelector('.tabs button[data-tab="stream"]'));
    click(tableButton(vectors));
    await until("the vector table's items", () => $("table-name").textContent === vectors && rows().length === 3);
    assert.equal($("tab-items").hidden, false, "another table opens on its items");
    assert.equal(document.querySelector(".tabs button.active").dataset.tab, "items");
    assert.match([...$("summary").querySelectorAll("dd")][5].textContent, /^byEmbedding \(vector, ACTIVE\)$/);
    assert.equal(field("items-form", "mode").value, "scan");
    assert.equal($("query-fields").hidden, true);
    assert.equal($("vector-form").hidden, false);
    click(rows().find((r) => cell(r, "id") === "a"));
    await until("the editor", () => $("editor").hasAttribute("open"));
    assert.equal($("editor-similar").hidden, false);
    click($("editor-similar"));
    await until("the nearest items", () => $("vector-count").textContent !== "");
    assert.equal($("editor").hasAttribute("open"), false);
    assert.equal($("tab-vector").hidden, false);
    assert.equal($("vector-count").textContent, "3 nearest items, nearest first");
    const hits = [...$("vector-results").tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent));
    assert.deepEqual(hits.map((h) => h[1]), ["a", "b", "c"]);
    assert.ok(Math.abs(Number(hits[0][0])) < 1e-6, `score ${hits[0][0]}`);
    field("vector-form", "vector").value = "[0, 1";
    submit("vector-form");
    await until("the parse error", () => $("error-text").textContent.startsWith("The search vector is not valid JSON"));
    field("vector-form", "vector").value = "[0, 1]";
    submit("vector-form");
    await until("DynamoDB's refusal", () => $("error-text").textContent.startsWith("ValidationException: "));

    // A new table, then deleted.
    const created = `${table}-new`;
    click($("new-table"));
    assert.ok($("create").hasAttribute("open"));
    field("create-form", "name").value = created;
    field("create-form", "pkName").value = "id";
    field("create-form", "pkType").value = "N";
    submit("create-form");
    await until("the new table", () => $("table-name").textContent === created && $("count").textContent === "0 items on page 1");
    assert.equal($("error").hidden, true);
    assert.equal($("create").hasAttribute("open"), false);
    const { Table } = await api.call("DescribeTable", { TableName: created });
    assert.deepEqual(Table.KeySchema, [{ AttributeName: "id", KeyType: "HASH" }]);
    assert.deepEqual(Table.AttributeDefinitions, [{ AttributeName: "id", AttributeType: "N" }]);
    click($("new-table"));
    field("create-form", "name").value = created;
    field("create-form", "pkName").value = "id";
    submit("create-form");
    await until("the refusal", () => $("create-error").textContent.startsWith("ResourceInUseException: "));
    click($("create-cancel"));
    click($("delete-table"));
    await until("the table list without it", () => $("table-view").hidden && !tableButton(created));
    await assert.rejects(api.call("DescribeTable", { TableName: created }), (e) => e.type === "ResourceNotFoundException");

    // An error belongs to the tab it was raised on.
    click(tableButton(table));
    await until("the table", () => $("table-name").textContent === table && rows().length > 0);
    click(document.querySelector('.tabs button[data-tab="partiql"]'));
    field("partiql-form", "statement").value = "SELECT * FROM nowhere";
    submit("partiql-form");
    await until("the error", () => !$("error").hidden);
    click(document.querySelector('.tabs button[data-tab="items"]'));
    assert.equal($("error").hidden, true, "a tab change clears the error");

    // Sign out: every trace of the session leaves the page.
    click($("signout"));
    await until("the sign-in form", () => !$("signin").hidden);
    assert.equal(sessionStorage.length, 0);
    assert.equal($("where").textContent, "");
    assert.equal($("app").hidden, true);
    assert.equal($("tables").children.length, 0);
    assert.equal($("table-view").hidden, true);
    assert.equal(rows().length, 0);
    assert.equal($("summary").children.length, 0);
    assert.equal($("description").textContent, "");
    assert.equal($("editor-text").value, "");
    for (const trace of [table, "pk (S, partition)", "local · us-east-1"]) {
      const holders = [...document.body.querySelectorAll("*")].filter((e) => e.children.length === 0 && e.textContent.includes(trace));
      assert.deepEqual(holders.map((e) => e.id || e.outerHTML.slice(0, 80)), [], `the page still shows ${trace}`);
    }
    assert.ok(![...document.querySelectorAll("input, textarea")].some((i) => i.value.includes(table)), "a form still holds the table name");
  } finally {
    await api.call("DeleteTable", { TableName: table });
    await api.call("DeleteTable", { TableName: streamed });
    await api.call("DeleteTable", { TableName: vectors });
  }
});
