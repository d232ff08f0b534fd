// The JavaScript SDK reads Kura's throttling errors, with their
// ThrottlingReasons (throttlingReasons in a ThrottlingException), and its
// resource policies. Run by test/clients_test.go (TestJavaScriptSDK), whose
// Kura enforces throughput with one second of burst capacity.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DynamoDBClient, CreateTableCommand, DeleteTableCommand, PutItemCommand, PutResourcePolicyCommand,
  GetResourcePolicyCommand, ProvisionedThroughputExceededException, ThrottlingException,
} from "@aws-sdk/client-dynamodb";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const client = new DynamoDBClient({
  endpoint, region: "us-east-1", maxAttempts: 1, // no retries: the throttle reaches the test
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
const unique = (p) => `${p}-${Math.random().toString(16).slice(2, 10)}`;
const key = { KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }], AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }] };
// Three write units, against one a second.
const put = (table, pk) => client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, v: { S: "x".repeat(3000) } } }));

test("throttling errors and resource policies through the JavaScript SDK", async () => {
  const provisioned = unique("thr-p");
  const capped = unique("thr-o");
  const created = [];
  try {
    const p = await client.send(new CreateTableCommand({ TableName: provisioned, ...key,
      ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } }));
    created.push(provisioned);
    const o = await client.send(new CreateTableCommand({ TableName: capped, ...key, BillingMode: "PAY_PER_REQUEST",
      OnDemandThroughput: { MaxWriteRequestUnits: 1 } }));
    created.push(capped);

    await put(provisioned, "a");
    await assert.rejects(put(provisioned, "b"), (e) => {
      assert.ok(e instanceof ProvisionedThroughputExceededException, e.name);
      assert.deepEqual(e.ThrottlingReasons, [{ reason: "TableWriteProvisionedThroughputExceeded", resource: p.TableDescription.TableArn }]);
      return true;
    });
    await put(capped, "a");
    await assert.rejects(put(capped, "b"), (e) => {
      assert.ok(e instanceof ThrottlingException, e.name);
      assert.deepEqual(e.throttlingReasons, [{ reason: "TableWriteMaxOnDemandThroughputExceeded", resource: o.TableDescription.TableArn }]);
      return true;
    });

    const policy = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { AWS: "arn:aws:iam::000000000000:user/app" }, Action: "dynamodb:Query", Resource: "*" }] });
    const arn = p.TableDescription.TableArn;
    const { RevisionId } = await client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policy, ExpectedRevisionId: "NO_POLICY" }));
    const got = await client.send(new GetResourcePolicyCommand({ ResourceArn: arn }));
    assert.deepEqual([got.Policy, got.RevisionId], [policy, RevisionId]);
  } finally {
    for (const table of created) {
      await client.send(new DeleteTableCommand({ TableName: table }));
    }
  }
});
