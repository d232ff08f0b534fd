// The web console against a Kura that serves two regions (--regions
// us-east-1,eu-west-1) with authentication off: run by
// test/clients_test.go (TestConsoleRegions) with `node --test
// console-regions.mjs`. The header's region picker shows each region's
// own tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../../../internal/console/assets/dynamodb.js";
import { $, openPage, tableButton, until } from "./console-page.mjs";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";

test("the region picker shows each region's tables", async () => {
  const west = new Client({ endpoint, region: "eu-west-1", credentials: { accessKeyId: "ANY", secretAccessKey: "any" } });
  await west.call("CreateTable", {
    TableName: "west-table", BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
  });
  await openPage(endpoint);
  // No key is asked for: the home region's (empty) list comes first.
  await until("the home region's list", () => $("tables").textContent === "No tables yet.");
  const pick = $("region-picker");
  assert.equal(pick.hidden, false);
  assert.deepEqual([...pick.options].map((o) => o.value), ["us-east-1", "eu-west-1"]);
  assert.equal(pick.value, "us-east-1");
  assert.equal($("where").textContent, "us-east-1");

  pick.value = "eu-west-1";
  pick.dispatchEvent(new globalThis.window.Event("change"));
  await until("eu-west-1's table", () => tableButton("west-table"));
  assert.equal($("where").textContent, "eu-west-1");

  pick.value = "us-east-1";
  pick.dispatchEvent(new globalThis.window.Event("change"));
  await until("us-east-1's list again", () => $("tables").textContent === "No tables yet.");
});
