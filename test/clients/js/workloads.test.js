// Seed workload flows through the AWS SDK for JavaScript v3 against a
// running Kura. Run by test/clients_test.go (TestJavaScriptSDK), which
// starts Kura and passes its endpoint in KURA_ENDPOINT.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DynamoDBClient, CreateTableCommand, DeleteTableCommand, DescribeTableCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, UpdateCommand, QueryCommand,
  BatchWriteCommand, paginateQuery,
} from "@aws-sdk/lib-dynamodb";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const client = new DynamoDBClient({
  endpoint, region: "us-east-1",
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
const doc = DynamoDBDocumentClient.from(client);
const unique = (p) => `${p}-${Math.random().toString(16).slice(2, 10)}`;

async function withTable(input, fn) {
  await client.send(new CreateTableCommand(input));
  try {
    const d = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    assert.equal(d.Table.TableStatus, "ACTIVE");
    await fn(input.TableName);
  } finally {
    await client.send(new DeleteTableCommand({ TableName: input.TableName }));
  }
}

const S = (n) => ({ AttributeName: n, AttributeType: "S" });
const HASH = (n) => ({ AttributeName: n, KeyType: "HASH" });
const RANGE = (n) => ({ AttributeName: n, KeyType: "RANGE" });

test("W1 workflow state: one table, GSI1, nested step updates, paginated segments", async () => {
  await withTable({
    TableName: unique("w1"), BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["PK", "SK", "GSI1PK", "GSI1SK"].map(S),
    KeySchema: [HASH("PK"), RANGE("SK")],
    GlobalSecondaryIndexes: [{ IndexName: "GSI1", KeySchema: [HASH("GSI1PK"), RANGE("GSI1SK")], Projection: { ProjectionType: "ALL" } }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }, async (t) => {
    await doc.send(new PutCommand({ TableName: t, Item: { PK: "WF#w1", SK: "STEP", GSI1PK: "STEP#ANALYSIS_STATUS", GSI1SK: "pending", data: { steps: { ocr: { status: "pending" } } } } }));
    const segs = [];
    for (let i = 0; i < 120; i++) segs.push({ PutRequest: { Item: { PK: "WF#w1", SK: `SEG#${String(i).padStart(4, "0")}`, s3_key: `s3://b/${i}` } } });
    for (let i = 0; i < segs.length; i += 25) {
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [t]: segs.slice(i, i + 25) } }));
      assert.deepEqual(out.UnprocessedItems, {});
    }
    const got = [];
    for await (const page of paginateQuery({ client: doc, pageSize: 35 }, {
      TableName: t, KeyConditionExpression: "PK = :p AND begins_with(SK, :s)",
      ExpressionAttributeValues: { ":p": "WF#w1", ":s": "SEG#" },
    })) got.push(...page.Items.map((i) => i.SK));
    assert.equal(got.length, 120);
    assert.equal(got[0], "SEG#0000");
    assert.equal(got[119], "SEG#0119");

    const up = await doc.send(new UpdateCommand({
      TableName: t, Key: { PK: "WF#w1", SK: "STEP" },
      UpdateExpression: "SET #d.steps.ocr.#st = :s, GSI1SK = :s",
      ExpressionAttributeNames: { "#d": "data", "#st": "status" },
      ExpressionAttributeValues: { ":s": "in_progress" }, ReturnValues: "UPDATED_NEW",
    }));
    assert.equal(up.Attributes.data.steps.ocr.status, "in_progress");
    const running = await doc.send(new QueryCommand({
      TableName: t, IndexName: "GSI1", KeyConditionExpression: "GSI1PK = :p AND GSI1SK = :s",
      ExpressionAttributeValues: { ":p": "STEP#ANALYSIS_STATUS", ":s": "in_progress" },
    }));
    assert.deepEqual(running.Items.map((i) => i.PK), ["WF#w1"]);
    await assert.rejects(
      doc.send(new PutCommand({ TableName: t, Item: { PK: "WF#w1", SK: "STEP" }, ConditionExpression: "attribute_not_exists(PK)" })),
      (e) => e.name === "ConditionalCheckFailedException" && e.message === "The conditional request failed",
    );
  });
});

test("W3 IoT mesh: groups in a domain and the reverse-lookup GSI", async () => {
  await withTable({
    TableName: unique("w3"), BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["pk", "sk", "gsi_pk", "gsi_sk"].map(S),
    KeySchema: [HASH("pk"), RANGE("sk")],
    GlobalSecondaryIndexes: [{ IndexName: "GroupIdIndex", KeySchema: [HASH("gsi_pk"), RANGE("gsi_sk")], Projection: { ProjectionType: "ALL" } }],
  }, async (t) => {
    const domain = "工場.example";
    await doc.send(new PutCommand({ TableName: t, Item: { pk: `DOMAIN#${domain}`, sk: "GROUP#g1#METADATA", fullId: `g1@${domain}`, gsi_pk: "GROUP#g1", gsi_sk: `DOMAIN#${domain}` } }));
    for (const n of ["n1", "n2"]) {
      await doc.send(new PutCommand({ TableName: t, Item: { pk: `DOMAIN#${domain}`, sk: `GROUP#g1#NODE#${n}`, data: [{ key: "temp", value: 21.5 }] } }));
    }
    const nodes = await doc.send(new QueryCommand({
      TableName: t, KeyConditionExpression: "pk = :p AND begins_with(sk, :s)",
      ExpressionAttributeValues: { ":p": `DOMAIN#${domain}`, ":s": "GROUP#g1#NODE#" },
    }));
    assert.deepEqual(nodes.Items.map((i) => i.sk), ["GROUP#g1#NODE#n1", "GROUP#g1#NODE#n2"]);
    assert.equal(nodes.Items[0].data[0].value, 21.5);
    const rev = await doc.send(new QueryCommand({
      TableName: t, IndexName: "GroupIdIndex", KeyConditionExpression: "gsi_pk = :g",
      ExpressionAttributeValues: { ":g": "GROUP#g1" },
    }));
    assert.deepEqual(rev.Items.map((i) => i.fullId), [`g1@${domain}`]);
    const one = await doc.send(new GetCommand({ TableName: t, Key: { pk: `DOMAIN#${domain}`, sk: "GROUP#g1#METADATA" } }));
    assert.equal(one.Item.fullId, `g1@${domain}`);
  });
});

test("W4 chat log: messages in order, sparse GSI newest first with Limit 20", async () => {
  await withTable({
    TableName: unique("w4"), BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["conversation_id", "timestamp", "gsi_pk_user"].map(S),
    KeySchema: [HASH("conversation_id"), RANGE("timestamp")],
    GlobalSecondaryIndexes: [{
      IndexName: "UserConversationsIndex", KeySchema: [HASH("gsi_pk_user"), RANGE("timestamp")],
      Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["conversation_id", "message_content"] },
    }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }, async (t) => {
    for (let c = 0; c < 25; c++) {
      for (let m = 0; m < 2; m++) {
        const item = {
          conversation_id: `conv-${c}`, timestamp: `2025-11-05T10:${String(c).padStart(2, "0")}:0${m}Z`,
          message_content: `m${m}`, metadata: { rag_sources: ["doc-1"] }, ttl: Math.floor(Date.now() / 1000) + 63072000,
        };
        if (m === 0) item.gsi_pk_user = "U456#2025-11-05";
        await doc.send(new PutCommand({ TableName: t, Item: item }));
      }
    }
    const convs = await doc.send(new QueryCommand({
      TableName: t, IndexName: "UserConversationsIndex", KeyConditionExpression: "gsi_pk_user = :u",
      ExpressionAttributeValues: { ":u": "U456#2025-11-05" }, ScanIndexForward: false, Limit: 20,
    }));
    assert.equal(convs.Count, 20);
    assert.equal(convs.Items[0].conversation_id, "conv-24");
    assert.ok(convs.LastEvaluatedKey);
    assert.deepEqual(Object.keys(convs.Items[0]).sort(), ["conversation_id", "gsi_pk_user", "message_content", "timestamp"]);
  });
});
