// Seed workload flows through the AWS SDK for JavaScript v3 against a
// running Kura. Run by test/clients_test.go (TestJavaScriptSDK), which
// starts Kura and passes its endpoint in KURA_ENDPOINT.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DynamoDBClient, CreateTableCommand, DeleteTableCommand, DescribeTableCommand,
  SearchVectorsCommand, PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBStreamsClient, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand,
} from "@aws-sdk/client-dynamodb-streams";
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, UpdateCommand, QueryCommand,
  BatchWriteCommand, TransactWriteCommand, paginateQuery,
} from "@aws-sdk/lib-dynamodb";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const client = new DynamoDBClient({
  endpoint, region: "us-east-1",
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
const doc = DynamoDBDocumentClient.from(client);
const streams = new DynamoDBStreamsClient({
  endpoint, region: "us-east-1",
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
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
    // The old item comes with the text under "message", the transaction's
    // reasons with it under "Message", as DynamoDB sends them; the SDK
    // reads either.
    await assert.rejects(
      doc.send(new PutCommand({
        TableName: t, Item: { PK: "WF#w1", SK: "STEP" }, ConditionExpression: "attribute_not_exists(PK)",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      })),
      (e) => e.name === "ConditionalCheckFailedException" && e.message === "The conditional request failed" &&
        e.Item?.SK?.S === "STEP",
    );
    await assert.rejects(
      doc.send(new TransactWriteCommand({ TransactItems: [{
        ConditionCheck: { TableName: t, Key: { PK: "WF#w1", SK: "STEP" }, ConditionExpression: "attribute_not_exists(PK)" },
      }] })),
      (e) => e.name === "TransactionCanceledException" &&
        e.message === "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]" &&
        e.CancellationReasons?.[0]?.Code === "ConditionalCheckFailed",
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

// Deterministic 1024-dim embedding: hashed character bigrams, L2-normalised.
function embed(text) {
  const v = new Array(1024).fill(0);
  for (let i = 0; i + 1 < text.length; i++) {
    let h = 2166136261;
    for (const c of text.slice(i, i + 2)) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
    v[h % 1024] += 1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

test("W2 RAG chunks: vector index, SearchVectorsCommand ranks by cosine distance", async () => {
  const chunks = {
    "conan#0001": "俺は高校生探偵・工藤新一。幼馴染で同級生の毛利蘭と遊園地に遊びに行って",
    "conan#0002": "たったひとつの真実見抜く見た目は子供、頭脳は大人その名は、名探偵コナン",
    "onepiece#0001": "富、名声、力。かつてこの世の全てを手に入れた男、海賊王ゴールド・ロジャー",
  };
  await withTable({
    TableName: unique("w2"), BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["DocId", "SortKey"].map(S),
    KeySchema: [HASH("DocId"), RANGE("SortKey")],
    VectorIndexes: [{
      IndexName: "NarrationChunkIndex", VectorAttribute: { AttributeName: "Embedding" },
      Dimensions: 1024, DistanceFunction: "COSINE",
      Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["ChunkText"] },
    }],
  }, async (t) => {
    for (const [key, text] of Object.entries(chunks)) {
      const [doc, sk] = key.split("#");
      await client.send(new PutItemCommand({ TableName: t, Item: {
        DocId: { S: doc }, SortKey: { S: `CHUNK#${sk}` }, ChunkText: { S: text }, Title: { S: doc },
        Embedding: { L: embed(text).map((x) => ({ N: String(x) })) },
      } }));
    }
    const out = await client.send(new SearchVectorsCommand({
      TableName: t, IndexName: "NarrationChunkIndex", TopK: 5,
      SearchVector: embed(chunks["conan#0002"]).map((x) => ({ N: String(x) })),
      ReturnConsumedCapacity: "TOTAL",
    }));
    const hits = out.SearchResults;
    assert.equal(hits.length, 3);
    assert.equal(hits[0].Item.SortKey.S, "CHUNK#0002");
    assert.equal(hits[0].Item.DocId.S, "conan");
    assert.ok(hits[0].Item.ChunkText.S.startsWith("たったひとつ"));
    assert.equal(hits[0].Item.Title, undefined); // not projected
    assert.equal(hits[0].Item.Embedding, undefined);
    assert.ok(Math.abs(hits[0].Score) < 1e-5); // identical vector: cosine distance 0
    assert.ok(hits.every((h, i) => i === 0 || h.Score >= hits[i - 1].Score));
    assert.ok(out.ConsumedCapacity);
    await assert.rejects(
      client.send(new SearchVectorsCommand({
        TableName: t, IndexName: "NarrationChunkIndex", TopK: 101,
        SearchVector: embed("x").map((x) => ({ N: String(x) })),
      })),
      (e) => e.name === "ValidationException",
    );
  });
});

test("W4 stream feed: NEW_AND_OLD_IMAGES records through the Streams client", async () => {
  await withTable({
    TableName: unique("w4s"), BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["conversation_id", "timestamp"].map(S),
    KeySchema: [HASH("conversation_id"), RANGE("timestamp")],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }, async (t) => {
    const key = { conversation_id: "c1", timestamp: "2025-11-05T10:00:00Z" };
    await doc.send(new PutCommand({ TableName: t, Item: { ...key, message_content: "hi" } }));
    await doc.send(new UpdateCommand({ TableName: t, Key: key, UpdateExpression: "SET message_content = :m", ExpressionAttributeValues: { ":m": "hi!" } }));
    const arn = (await client.send(new DescribeTableCommand({ TableName: t }))).Table.LatestStreamArn;
    const desc = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    const records = [];
    for (const shard of desc.StreamDescription.Shards) {
      let it = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }))).ShardIterator;
      while (it) {
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: it }));
        records.push(...out.Records);
        if (out.Records.length === 0) break;
        it = out.NextShardIterator;
      }
    }
    assert.deepEqual(records.map((r) => r.eventName), ["INSERT", "MODIFY"]);
    assert.equal(records[1].dynamodb.OldImage.message_content.S, "hi");
    assert.equal(records[1].dynamodb.NewImage.message_content.S, "hi!");
  });
});
