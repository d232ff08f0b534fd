// The web console against a Kura with --iam-file: a key whose policies let
// it list tables but describe only some sees the others marked, not an
// error. Run by test/iam_test.go (TestConsoleIAM) with
// `node --test console-iam.mjs`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../../../internal/console/assets/dynamodb.js";
import { $, field, openPage, submit, tableButton, until } from "./console-page.mjs";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";

test("a table the key may not describe is marked in the list", async () => {
  const root = new Client({ endpoint, region: "us-east-1", credentials: { accessKeyId: "AKIDROOT", secretAccessKey: "root-secret" } });
  for (const name of ["open-notes", "closed-notes"]) {
    await root.call("CreateTable", {
      TableName: name, BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    });
  }
  await openPage(endpoint);
  await until("the sign-in form", () => !$("signin").hidden);
  field("signin-form", "key").value = "AKIDERIN";
  field("signin-form", "secret").value = "s";
  submit("signin-form");
  await until("the counts", () => tableButton("open-notes")?.querySelector(".count").textContent === "0" &&
    tableButton("closed-notes")?.querySelector(".count").textContent === "no access");
  assert.ok(tableButton("closed-notes").classList.contains("denied"));
  assert.ok(!tableButton("open-notes").classList.contains("denied"));
  assert.match(tableButton("closed-notes").title, /^User: arn:aws:iam::000000000000:user\/erin is not authorized to perform: dynamodb:DescribeTable on resource: .*table\/closed-notes because no identity-based policy allows/);
  assert.equal($("error").hidden, true);
});
