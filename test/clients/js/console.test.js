// The web console's own DynamoDB client (internal/console/assets), run
// against a real Kura with authentication on: its SigV4 signer must agree
// with the AWS SDK's, and the requests its forms build must find what the
// tables hold. Run by test/clients_test.go (TestJavaScriptSDK).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import { sign } from "../../../internal/console/assets/sigv4.js";
import {
  ApiError, Client, batchWrite, columnsOf, createIndexRequest, createTableRequest, formatValue, itemsRequest, keyOf, orderShards,
  parseItem, readStream, searchRequest, streamRequest, ttlRequest, vectorOf,
} from "../../../internal/console/assets/dynamodb.js";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const client = new Client({ endpoint, region: "us-east-1", credentials });

// Node's hashes in the shape the SDK's signer takes.
class Sha256 {
  constructor(secret) {
    this.h = secret ? createHmac("sha256", secret) : createHash("sha256");
  }
  update(data) {
    this.h.update(data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
}

test("the console's signer signs as the AWS SDK's does", async () => {
  const now = new Date("2026-12-01T12:34:56.789Z");
  for (const creds of [credentials, { ...credentials, sessionToken: "tok en" }]) {
    const headers = { "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables" };
    const body = '{"Limit":  3}';
    const ours = await sign({ host: "127.0.0.1:8000", region: "eu-west-2", credentials: creds, headers, body, now });
    const sdk = new SignatureV4({ credentials: creds, region: "eu-west-2", service: "dynamodb", sha256: Sha256, applyChecksum: false });
    const theirs = await sdk.sign({
      method: "POST", protocol: "http:", hostname: "127.0.0.1", port: 8000, path: "/", query: {},
      headers: { host: "127.0.0.1:8000", "content-type": headers["Content-Type"], "x-amz-target": headers["X-Amz-Target"] },
      body,
    }, { signingDate: now });
    assert.equal(ours.Authorization, theirs.headers.authorization);
    assert.equal(ours["X-Amz-Date"], "20261201T123456Z");
    assert.equal(ours["X-Amz-Security-Token"], creds.sessionToken);
  }
});

test("Kura accepts the console's signatures and refuses a wrong key", async () => {
  assert.ok(Array.isArray(await client.tableNames()));
  const wrong = new Client({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "nope" } });
  await assert.rejects(wrong.call("ListTables"), (e) => e instanceof ApiError && e.type === "InvalidSignatureException" && e.status === 400);
  const unsigned = new Client({ endpoint, region: "us-east-1" });
  await assert.rejects(unsigned.call("ListTables"), (e) => e.type === "MissingAuthenticationTokenException" &&
    e.message === "Request is missing Authentication Token");
});

test("the items form's scans and queries find what the table holds", async () => {
  const name = `console-${Math.random().toString(16).slice(2, 10)}`;
  await client.call("CreateTable", {
    TableName: name, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" }, { AttributeName: "n", AttributeType: "N" },
      { AttributeName: "owner", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "n", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{
      IndexName: "byOwner", KeySchema: [{ AttributeName: "owner", KeyType: "HASH" }, { AttributeName: "pk", KeyType: "RANGE" }],
      Projection: { ProjectionType: "KEYS_ONLY" },
    }],
  });
  try {
    for (let i = 0; i < 30; i++) {
      const item = { pk: { S: `p${i % 3}` }, n: { N: String(i) }, tags: { SS: ["x"] } };
      if (i % 2 === 0) {
        item.owner = { S: "ann" };
      }
      await client.call("PutItem", { TableName: name, Item: item });
    }
    const { Table } = await client.call("DescribeTable", { TableName: name });

    // A scan in pages of 7 reads each item once.
    const seen = new Set();
    let startKey;
    do {
      const { operation, input } = itemsRequest(Table, { mode: "scan", index: "" }, { limit: 7, startKey });
      assert.equal(operation, "Scan");
      const out = await client.call(operation, input);
      for (const item of out.Items) {
        seen.add(item.n.N);
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    assert.equal(seen.size, 30);

    const query = async (form, index = "") => {
      const { operation, input } = itemsRequest(Table, { mode: "query", index, ...form });
      assert.equal(operation, "Query");
      return (await client.call(operation, input)).Items;
    };
    assert.deepEqual((await query({ pk: "p1" })).map((i) => i.n.N), ["1", "4", "7", "10", "13", "16", "19", "22", "25", "28"]);
    assert.deepEqual((await query({ pk: "p1", skOp: "between", sk1: "4", sk2: "13" })).map((i) => i.n.N), ["4", "7", "10", "13"]);
    assert.deepEqual((await query({ pk: "p1", skOp: ">", sk1: "22" })).map((i) => i.n.N), ["25", "28"]);
    assert.deepEqual((await query({ pk: "p1", skOp: "=", sk1: "7" })).map((i) => i.n.N), ["7"]);
    assert.deepEqual((await query({ pk: "p2", skOp: "<=", sk1: "", sk2: "" })).length, 10); // no value: no condition
    const owned = await query({ pk: "ann", skOp: "begins_with", sk1: "p0" }, "byOwner");
    assert.deepEqual(owned.map((i) => i.n.N).sort((a, b) => a - b), ["0", "6", "12", "18", "24"]);
    assert.throws(() => itemsRequest(Table, { mode: "query", index: "", pk: "" }), /partition key pk/);

    // The builder's sort order, filters (any attribute name), projection.
    assert.deepEqual((await query({ pk: "p1", skOp: ">", sk1: "19", descending: true })).map((i) => i.n.N), ["28", "25", "22"]);
    const scan = async (form) => (await client.call("Scan", itemsRequest(Table, { mode: "scan", index: "", ...form }).input)).Items;
    const ns = (items) => items.map((i) => Number(i.n.N)).sort((a, b) => a - b);
    assert.deepEqual(ns(await scan({ filters: [{ attribute: "n", op: "between", value: "3", value2: "5", type: "N" }] })), [3, 4, 5]);
    assert.deepEqual(ns(await scan({ filters: [
      { attribute: "owner", op: "not exists", type: "S" }, { attribute: "n", op: "<", value: "6", type: "N" },
    ] })), [1, 3, 5]);
    assert.deepEqual(ns(await scan({ filters: [{ attribute: "tags", op: "contains", value: "x", type: "S" },
      { attribute: "pk", op: "begins_with", value: "p2", type: "S" }, { attribute: "", op: "=", value: "ignored" }] })),
    [2, 5, 8, 11, 14, 17, 20, 23, 26, 29]);
    assert.equal((await scan({ filters: [{ attribute: "n", op: "<>", value: "1", type: "S" }] })).length, 30); // a string is never a number
    const projected = await query({ pk: "p0", skOp: "=", sk1: "3", projection: " n , owner" });
    assert.deepEqual(projected, [{ n: { N: "3" } }]);
    const built = itemsRequest(Table, { mode: "scan", filters: [{ attribute: "a.b", op: "=", value: "true", type: "BOOL" },
      { attribute: "z", op: "=", type: "NULL" }], projection: "a.b", limit: "7" }).input;
    assert.deepEqual(built, {
      TableName: name, Limit: 7, FilterExpression: "#n0 = :v0 AND #n1 = :v1", ProjectionExpression: "#n2",
      ExpressionAttributeNames: { "#n0": "a.b", "#n1": "z", "#n2": "a.b" },
      ExpressionAttributeValues: { ":v0": { BOOL: true }, ":v1": { NULL: true } },
    });
    assert.throws(() => itemsRequest(Table, { mode: "scan", filters: [{ attribute: "a", op: "=", value: "yes", type: "BOOL" }] }),
      /must be true or false/);

    // Batch writes: deletes of 30 keys, 25 a request.
    let progressed = 0;
    const all = await scan({ projection: "pk, n" });
    assert.equal(await batchWrite(client, name, all.map((k) => ({ DeleteRequest: { Key: k } })), (d) => (progressed = d)), 30);
    assert.equal(progressed, 30);
    assert.equal((await scan({})).length, 0);

    // The editor's writes: a new item is not written over an existing one.
    assert.deepEqual(keyOf(Table, owned[0]), { pk: owned[0].pk, n: owned[0].n });
    await client.call("PutItem", { TableName: name, Item: { pk: { S: "p0" }, n: { N: "0" } } });
    await assert.rejects(client.call("PutItem", {
      TableName: name, Item: parseItem('{"pk": {"S": "p0"}, "n": {"N": "0"}}'),
      ConditionExpression: "attribute_not_exists(#pk)", ExpressionAttributeNames: { "#pk": "pk" },
    }), (e) => e.type === "ConditionalCheckFailedException");
  } finally {
    await client.call("DeleteTable", { TableName: name });
  }
});

test("a stream is read from its start, up to a cap", async () => {
  const name = `console-s-${Math.random().toString(16).slice(2, 10)}`;
  const { TableDescription } = await client.call("CreateTable", {
    TableName: name, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" },
  });
  try {
    for (let i = 0; i < 5; i++) {
      await client.call("PutItem", { TableName: name, Item: { id: { S: `k${i}` } } });
    }
    const arn = TableDescription.LatestStreamArn;
    const all = await readStream(client, arn);
    assert.equal(all.truncated, false);
    assert.deepEqual(all.records.map((r) => r.dynamodb.Keys.id.S), ["k0", "k1", "k2", "k3", "k4"]);
    const some = await readStream(client, arn, 3);
    assert.equal(some.truncated, true);
    assert.equal(some.records.length, 3);
  } finally {
    await client.call("DeleteTable", { TableName: name });
  }
});

test("shards are read parents first", () => {
  const shard = (id, start, parent) => ({ ShardId: id, ParentShardId: parent, SequenceNumberRange: { StartingSequenceNumber: start } });
  const order = orderShards([
    shard("c2", "900", "b"), shard("b", "500", "a"), shard("a", "100"), shard("c1", "800", "b"),
    shard("other", "300", "gone"), // its parent has been trimmed: a root
  ]).map((s) => s.ShardId);
  assert.deepEqual(order, ["a", "b", "c1", "c2", "other"]);
});

test("the new-table form makes a table with what it is given", async () => {
  const name = `create-${Math.random().toString(16).slice(2, 10)}`;
  const input = createTableRequest({
    name, pkName: "pk", pkType: "S", skName: "sk", skType: "N", billing: "PROVISIONED", rcu: "3", wcu: "2",
    lsis: [{ name: "byDate", skName: "date", skType: "S", projection: "KEYS_ONLY" }, { name: "" }],
    stream: "NEW_IMAGE", protection: true,
  });
  assert.deepEqual(input.AttributeDefinitions, [
    { AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "N" }, { AttributeName: "date", AttributeType: "S" },
  ]);
  await client.call("CreateTable", input);
  try {
    const { Table } = await client.call("DescribeTable", { TableName: name });
    assert.deepEqual([Table.ProvisionedThroughput.ReadCapacityUnits, Table.ProvisionedThroughput.WriteCapacityUnits], [3, 2]);
    assert.deepEqual(Table.LocalSecondaryIndexes.map((l) => [l.IndexName, l.KeySchema[1].AttributeName, l.Projection.ProjectionType]),
      [["byDate", "date", "KEYS_ONLY"]]);
    assert.equal(Table.StreamSpecification.StreamViewType, "NEW_IMAGE");
    assert.equal(Table.DeletionProtectionEnabled, true);
  } finally {
    await client.call("UpdateTable", { TableName: name, DeletionProtectionEnabled: false });
    await client.call("DeleteTable", { TableName: name });
  }
  // Vector indexes are on-demand tables' only.
  await client.call("CreateTable", createTableRequest({ name, pkName: "pk", pkType: "S", billing: "PAY_PER_REQUEST",
    vectors: [{ name: "byEmb", attribute: "emb", dimensions: "4", distance: "EUCLIDEAN" }, { name: "" }] }));
  try {
    const { Table } = await client.call("DescribeTable", { TableName: name });
    assert.deepEqual(Table.VectorIndexes.map((v) => [v.IndexName, v.Dimensions, v.DistanceFunction]), [["byEmb", 4, "EUCLIDEAN"]]);
  } finally {
    await client.call("DeleteTable", { TableName: name });
  }
  assert.throws(() => createTableRequest({ name: "t", pkName: "a", pkType: "S", skName: "b", skType: "S",
    lsis: [{ name: "l", skName: "a", skType: "N" }] }), /two types, S and N/);
});

test("the new-table form makes an on-demand table", () => {
  assert.deepEqual(createTableRequest({ name: "t", pkName: "id", pkType: "N", skName: "", skType: "S" }), {
    TableName: "t", BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "N" }],
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
  });
  assert.deepEqual(createTableRequest({ name: "t", pkName: "a", pkType: "S", skName: "b", skType: "B" }).KeySchema,
    [{ AttributeName: "a", KeyType: "HASH" }, { AttributeName: "b", KeyType: "RANGE" }]);
});

test("the settings forms: a GSI (capacity only on a provisioned table), the stream, time to live", async () => {
  const form = { name: "gIdx", pkName: "gk", pkType: "N", skName: "", skType: "S", projection: "ALL", rcu: "3", wcu: "4" };
  const onDemand = { TableName: "t", BillingModeSummary: { BillingMode: "PAY_PER_REQUEST" } };
  assert.deepEqual(createIndexRequest(onDemand, form), {
    TableName: "t",
    AttributeDefinitions: [{ AttributeName: "gk", AttributeType: "N" }],
    GlobalSecondaryIndexUpdates: [{ Create: {
      IndexName: "gIdx", KeySchema: [{ AttributeName: "gk", KeyType: "HASH" }], Projection: { ProjectionType: "ALL" },
    } }],
  });
  // DescribeTable leaves BillingModeSummary out of a table created PROVISIONED.
  const provisioned = createIndexRequest({ TableName: "t" }, { ...form, skName: "s", skType: "B" });
  assert.deepEqual(provisioned.GlobalSecondaryIndexUpdates[0].Create.ProvisionedThroughput, { ReadCapacityUnits: 3, WriteCapacityUnits: 4 });
  assert.deepEqual(provisioned.GlobalSecondaryIndexUpdates[0].Create.KeySchema.map((k) => k.KeyType), ["HASH", "RANGE"]);
  assert.deepEqual(provisioned.AttributeDefinitions.at(-1), { AttributeName: "s", AttributeType: "B" });
  assert.deepEqual(streamRequest("t", "KEYS_ONLY"), { TableName: "t", StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" } });
  assert.deepEqual(streamRequest("t", ""), { TableName: "t", StreamSpecification: { StreamEnabled: false } });
  assert.deepEqual(ttlRequest("t", "exp", true), { TableName: "t", TimeToLiveSpecification: { AttributeName: "exp", Enabled: true } });

  // The provisioned request against Kura: the index is created with it.
  const name = `settings-${Math.random().toString(16).slice(2, 10)}`;
  await client.call("CreateTable", {
    TableName: name, AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }], ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
  });
  try {
    const { Table } = await client.call("DescribeTable", { TableName: name });
    await client.call("UpdateTable", createIndexRequest(Table, form));
    const g = (await client.call("DescribeTable", { TableName: name })).Table.GlobalSecondaryIndexes[0];
    assert.equal(g.IndexName, "gIdx");
    assert.deepEqual([g.ProvisionedThroughput.ReadCapacityUnits, g.ProvisionedThroughput.WriteCapacityUnits], [3, 4]);
  } finally {
    await client.call("DeleteTable", { TableName: name });
  }
});

test("the vector search form", () => {
  const table = { TableName: "t" };
  assert.deepEqual(searchRequest(table, { index: "v", vector: "[0.5, -1, 2e-3]", topK: "7" }), {
    TableName: "t", IndexName: "v", TopK: 7, SearchVector: [{ N: "0.5" }, { N: "-1" }, { N: "0.002" }],
  });
  assert.throws(() => searchRequest(table, { index: "v", vector: "[1,", topK: "1" }), /not valid JSON/);
  assert.throws(() => searchRequest(table, { index: "v", vector: '["1"]', topK: "1" }), /JSON array of numbers/);
  assert.throws(() => searchRequest(table, { index: "v", vector: "[]", topK: "1" }), /JSON array of numbers/);
  assert.deepEqual(vectorOf({ e: { L: [{ N: "1.5" }, { N: "-2" }] } }, "e"), [1.5, -2]);
  assert.equal(vectorOf({ e: { L: [{ N: "1" }, { S: "x" }] } }, "e"), null);
  assert.equal(vectorOf({ e: { S: "x" } }, "e"), null);
  assert.equal(vectorOf({}, "e"), null);
});

test("values are shown as text", () => {
  assert.equal(formatValue({ S: "<b>hi</b>" }), "<b>hi</b>"); // shown with textContent, so as typed
  assert.equal(formatValue({ N: "12345678901234567890.5" }), "12345678901234567890.5");
  assert.equal(formatValue({ BOOL: false }), "false");
  assert.equal(formatValue({ NULL: true }), "null");
  assert.equal(formatValue({ B: "AAE=" }), "<binary AAE=>");
  assert.equal(formatValue({ NS: ["1", "2"] }), 'NS ["1","2"]');
  assert.equal(formatValue({ M: { a: { L: [{ N: "1" }, { S: "x" }, { NULL: true }] } } }), '{"a":[1,"x",null]}');
  assert.equal(formatValue({ M: { pages: { N: "412" }, big: { N: "123456789012345678901234567890.25" } } }),
    '{"pages":412,"big":123456789012345678901234567890.25}', "nested numbers are numbers, every digit kept");
  assert.equal(formatValue({ L: [{ SS: ["a"] }, { B: "AAE=" }, { BOOL: true }] }), '[{"$SS":["a"]},{"$B":"AAE="},true]');
  assert.equal(formatValue({ M: {} }), "{}");
  assert.equal(formatValue(undefined), "");
  assert.deepEqual(columnsOf([{ name: "pk" }], [{ b: {}, pk: {} }, { a: {}, b: {} }]), ["pk", "b", "a"]);
  assert.equal(columnsOf([{ name: "pk" }], [{ a: {}, b: {}, c: {} }], 2).length, 2);
  assert.throws(() => parseItem("[1]"), /JSON object of attribute values/);
  assert.throws(() => parseItem("{"), /not valid JSON/);
});
