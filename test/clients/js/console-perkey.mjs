// The web console against a Kura with a database per access key and
// region (--shared-db=false) and authentication off, whose new tables stay
// CREATING for a while (--create-delay): run by test/clients_test.go
// (TestConsolePerKey) with `node --test console-perkey.mjs`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../../../internal/console/assets/dynamodb.js";
import { $, click, field, openPage, submit, tableButton, until } from "./console-page.mjs";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";

test("the console shows the database of the key and region signed in with, and a table not ACTIVE yet", async () => {
  const alice = new Client({ endpoint, region: "eu-west-1", credentials: { accessKeyId: "ALICE", secretAccessKey: "any" } });
  const create = () => alice.call("CreateTable", {
    TableName: "alice-table", BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
  });
  await openPage(endpoint);

  // No authentication, but a database per key: the page asks which one,
  // and takes no secret.
  await until("the sign-in form", () => !$("signin").hidden);
  assert.equal(field("signin-form", "secret").required, false);
  assert.equal(field("signin-form", "region").value, "us-east-1");
  field("signin-form", "key").value = "ALICE";
  field("signin-form", "region").value = "eu-west-1";
  submit("signin-form");
  await until("ALICE's empty list", () => $("tables").textContent === "No tables yet.");
  assert.equal($("where").textContent, "ALICE · eu-west-1");
  // The table is created now, so that it is still CREATING (for a
  // second) when it is chosen.
  await create();
  click($("refresh"));
  await until("ALICE's tables", () => tableButton("alice-table"));

  // CREATING: the page says so instead of scanning.
  click(tableButton("alice-table"));
  await until("the table", () => $("table-name").textContent === "alice-table" && $("count").textContent !== "");
  assert.equal($("count").textContent, "The table is CREATING: choose it again to see its items once it is ACTIVE.");
  assert.equal($("error").hidden, true);
  const active = Date.now() + 10000;
  for (;;) {
    const { Table } = await alice.call("DescribeTable", { TableName: "alice-table" });
    if (Table.TableStatus === "ACTIVE") {
      break;
    }
    assert.ok(Date.now() < active, "the table never became ACTIVE");
    await new Promise((r) => setTimeout(r, 100));
  }
  click(tableButton("alice-table"));
  await until("its items", () => $("count").textContent === "0 items on page 1");

  // A new table with time to live: CreateTable takes none, so the page
  // waits for the table to be ACTIVE (a second here) and turns it on.
  click($("new-table"));
  field("create-form", "name").value = "alice-ttl";
  field("create-form", "pkName").value = "id";
  field("create-form", "ttl").value = "expires";
  submit("create-form");
  await until("the new table's time to live", () => $("table-name").textContent === "alice-ttl" &&
    /^expires \(ENABL/.test([...$("summary").querySelectorAll("dd")][7].textContent), 15000);
  assert.equal((await alice.call("DescribeTimeToLive", { TableName: "alice-ttl" })).TimeToLiveDescription.AttributeName, "expires");
  assert.equal($("progress-box").hidden, true);

  // Another key sees another database.
  click($("signout"));
  await until("the sign-in form", () => !$("signin").hidden);
  field("signin-form", "key").value = "BOB";
  field("signin-form", "region").value = "eu-west-1";
  submit("signin-form");
  await until("BOB's tables", () => $("tables").textContent === "No tables yet.");
});
