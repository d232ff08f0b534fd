"""Seed workload flows through boto3 against a running Kura.

Run by test/clients_test.go (go test ./test/ -run Boto3), which starts Kura
and passes its endpoint in KURA_ENDPOINT. Uses only the standard library's
unittest plus boto3 (preinstalled on Kura's machines).
"""
import os
import time
import unittest
import uuid

import boto3
from botocore.exceptions import ClientError

ENDPOINT = os.environ.get("KURA_ENDPOINT", "http://127.0.0.1:8000")


def client(service="dynamodb"):
    return boto3.client(
        service,
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


def signed_admin_request(path):
    """A POST to one of Kura's --admin endpoints, signed with SigV4 like the
    clients' requests: with authentication on, Kura refuses it unsigned."""
    import urllib.request

    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    req = AWSRequest(method="POST", url=ENDPOINT + path, data=b"")
    SigV4Auth(Credentials("local", "local"), "dynamodb", "us-east-1").add_auth(req)
    return urllib.request.Request(req.url, data=b"", headers=dict(req.headers.items()), method="POST")


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class W1WorkflowState(unittest.TestCase):
    """One-table workflow state with GSI1/GSI2 and nested step updates."""

    @classmethod
    def setUpClass(cls):
        cls.ddb = client()
        cls.table = unique("w1")
        cls.ddb.create_table(
            TableName=cls.table,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": "S"}
                for n in ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")
            ],
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": f"GSI{i}",
                    "KeySchema": [
                        {"AttributeName": f"GSI{i}PK", "KeyType": "HASH"},
                        {"AttributeName": f"GSI{i}SK", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
                for i in (1, 2)
            ],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        cls.ddb.get_waiter("table_exists").wait(TableName=cls.table, WaiterConfig={"Delay": 1})

    @classmethod
    def tearDownClass(cls):
        cls.ddb.delete_table(TableName=cls.table)

    def test_project_documents_workflows_segments(self):
        ddb, t = self.ddb, self.table
        ddb.put_item(TableName=t, Item={"PK": {"S": "PROJ#p1"}, "SK": {"S": "META"},
                                        "data": {"M": {"name": {"S": "demo"}, "language": {"S": "en"},
                                                       "ocr_model": {"S": "pp-ocrv5"}}}})
        for d in ("d1", "d2"):
            ddb.put_item(TableName=t, Item={"PK": {"S": "PROJ#p1"}, "SK": {"S": f"DOC#{d}"}})
        ddb.put_item(TableName=t, Item={"PK": {"S": "PROJ#p1"}, "SK": {"S": "WF#w1"},
                                        "data": {"M": {"file_name": {"S": "a.pdf"}, "status": {"S": "pending"}}}})
        # Workflow metadata and step record written together.
        ddb.batch_write_item(RequestItems={t: [
            {"PutRequest": {"Item": {"PK": {"S": "DOC#d1"}, "SK": {"S": "WF#w1"},
                                     "data": {"M": {"status": {"S": "pending"}, "total_segments": {"N": "300"}}}}}},
            {"PutRequest": {"Item": {"PK": {"S": "WF#w1"}, "SK": {"S": "STEP"},
                                     "GSI1PK": {"S": "STEP#ANALYSIS_STATUS"}, "GSI1SK": {"S": "pending"},
                                     "data": {"M": {"steps": {"M": {"segment_prep": {"M": {"status": {"S": "pending"}}}}}}}}}},
        ]})
        # 300 segments, written in batches of 25.
        segs = [{"PutRequest": {"Item": {"PK": {"S": "WF#w1"}, "SK": {"S": f"SEG#{i:04d}"},
                                         "s3_key": {"S": f"s3://b/{i}"}, "pad": {"S": "x" * 200}}}}
                for i in range(300)]
        for i in range(0, len(segs), 25):
            out = ddb.batch_write_item(RequestItems={t: segs[i:i + 25]})
            self.assertEqual(out["UnprocessedItems"], {})

        docs = ddb.query(TableName=t, KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
                         ExpressionAttributeValues={":p": {"S": "PROJ#p1"}, ":s": {"S": "DOC#"}})
        self.assertEqual([i["SK"]["S"] for i in docs["Items"]], ["DOC#d1", "DOC#d2"])
        wfs = ddb.query(TableName=t, KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
                        ExpressionAttributeValues={":p": {"S": "PROJ#p1"}, ":s": {"S": "WF#"}})
        self.assertEqual(wfs["Count"], 1)

        # All segments, paginated.
        pages = ddb.get_paginator("query").paginate(
            TableName=t, KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
            ExpressionAttributeValues={":p": {"S": "WF#w1"}, ":s": {"S": "SEG#"}},
            PaginationConfig={"PageSize": 50})
        sks = [i["SK"]["S"] for page in pages for i in page["Items"]]
        self.assertEqual(sks, [f"SEG#{i:04d}" for i in range(300)])

        # Nested step update, then the running-analyses GSI query.
        ddb.update_item(TableName=t, Key={"PK": {"S": "WF#w1"}, "SK": {"S": "STEP"}},
                        UpdateExpression="SET #d.steps.segment_prep.#st = :s, GSI1SK = :s",
                        ExpressionAttributeNames={"#d": "data", "#st": "status"},
                        ExpressionAttributeValues={":s": {"S": "in_progress"}})
        running = ddb.query(TableName=t, IndexName="GSI1",
                            KeyConditionExpression="GSI1PK = :p AND GSI1SK = :s",
                            ExpressionAttributeValues={":p": {"S": "STEP#ANALYSIS_STATUS"},
                                                       ":s": {"S": "in_progress"}})
        self.assertEqual([i["PK"]["S"] for i in running["Items"]], ["WF#w1"])
        step = ddb.get_item(TableName=t, Key={"PK": {"S": "WF#w1"}, "SK": {"S": "STEP"}},
                            ProjectionExpression="#d.steps", ExpressionAttributeNames={"#d": "data"})
        self.assertEqual(step["Item"]["data"]["M"]["steps"]["M"]["segment_prep"]["M"]["status"]["S"], "in_progress")

    def test_errors_match_dynamodb(self):
        with self.assertRaises(ClientError) as cm:
            self.ddb.get_item(TableName="no-such-table-w1", Key={"PK": {"S": "x"}, "SK": {"S": "y"}})
        self.assertEqual(cm.exception.response["Error"]["Code"], "ResourceNotFoundException")
        self.assertEqual(cm.exception.response["Error"]["Message"], "Requested resource not found")
        with self.assertRaises(ClientError) as cm:
            self.ddb.put_item(TableName=self.table, Item={"PK": {"S": "a"}, "SK": {"S": "b"}},
                              ConditionExpression="attribute_exists(PK)")
        self.assertEqual(cm.exception.response["Error"]["Code"], "ConditionalCheckFailedException")

    def test_error_messages_with_items_and_reasons(self):
        # DynamoDB sends a ConditionalCheckFailedException's text under
        # "message" (its service model's member), which boto3 also copies
        # into the response as the modelled "message"; a
        # TransactionCanceledException's under "Message", which it does not.
        key = {"PK": {"S": "ccf"}, "SK": {"S": "old"}}
        self.ddb.put_item(TableName=self.table, Item={**key, "n": {"N": "1"}})
        with self.assertRaises(ClientError) as cm:
            self.ddb.delete_item(TableName=self.table, Key=key, ConditionExpression="n = :two",
                                 ExpressionAttributeValues={":two": {"N": "2"}},
                                 ReturnValuesOnConditionCheckFailure="ALL_OLD")
        r = cm.exception.response
        self.assertEqual(r["Error"]["Message"], "The conditional request failed")
        self.assertEqual(r["Item"], {**key, "n": {"N": "1"}})
        self.assertEqual(r["message"], "The conditional request failed")
        with self.assertRaises(ClientError) as cm:
            self.ddb.transact_write_items(TransactItems=[{"ConditionCheck": {
                "TableName": self.table, "Key": key, "ConditionExpression": "attribute_not_exists(PK)"}}])
        r = cm.exception.response
        self.assertEqual(r["Error"]["Code"], "TransactionCanceledException")
        self.assertEqual(r["Error"]["Message"],
                         "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]")
        self.assertEqual(r["CancellationReasons"], [{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}])
        self.assertNotIn("message", r)


class W3IotMesh(unittest.TestCase):
    """Domain-scoped groups with a reverse-lookup GSI."""

    def test_groups_nodes_and_reverse_lookup(self):
        ddb = client()
        t = unique("w3")
        ddb.create_table(
            TableName=t, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi_pk", "gsi_sk")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "GroupIdIndex",
                "KeySchema": [{"AttributeName": "gsi_pk", "KeyType": "HASH"}, {"AttributeName": "gsi_sk", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"},
            }])
        try:
            domain = "会社.example" + "ドメイン" * 20  # multibyte, long
            for g in ("g1", "g2"):
                ddb.put_item(TableName=t, Item={
                    "pk": {"S": f"DOMAIN#{domain}"}, "sk": {"S": f"GROUP#{g}#METADATA"},
                    "fullId": {"S": f"{g}@{domain}"},
                    "gsi_pk": {"S": f"GROUP#{g}"}, "gsi_sk": {"S": f"DOMAIN#{domain}"}})
                for n in ("n1", "n2", "n3"):
                    ddb.put_item(TableName=t, Item={
                        "pk": {"S": f"DOMAIN#{domain}"}, "sk": {"S": f"GROUP#{g}#NODE#{n}"},
                        "data": {"L": [{"M": {"key": {"S": "temp"}, "value": {"N": "21.5"}}}]}})
            # Frequent small overwrites of a node's status.
            for v in range(20):
                ddb.put_item(TableName=t, Item={
                    "pk": {"S": f"DOMAIN#{domain}"}, "sk": {"S": "GROUP#g1#NODE#n1"},
                    "data": {"L": [{"M": {"key": {"S": "temp"}, "value": {"N": str(20 + v)}}}]}})
            groups = ddb.query(TableName=t, KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                               ExpressionAttributeValues={":p": {"S": f"DOMAIN#{domain}"}, ":s": {"S": "GROUP#"}})
            self.assertEqual(groups["Count"], 8)
            nodes = ddb.query(TableName=t, KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                              ExpressionAttributeValues={":p": {"S": f"DOMAIN#{domain}"}, ":s": {"S": "GROUP#g1#NODE#"}})
            self.assertEqual([i["sk"]["S"] for i in nodes["Items"]],
                             ["GROUP#g1#NODE#n1", "GROUP#g1#NODE#n2", "GROUP#g1#NODE#n3"])
            self.assertEqual(nodes["Items"][0]["data"]["L"][0]["M"]["value"]["N"], "39")
            rev = ddb.query(TableName=t, IndexName="GroupIdIndex", KeyConditionExpression="gsi_pk = :g",
                            ExpressionAttributeValues={":g": {"S": "GROUP#g2"}})
            self.assertEqual([i["fullId"]["S"] for i in rev["Items"]], [f"g2@{domain}"])
        finally:
            ddb.delete_table(TableName=t)


class W4ChatLog(unittest.TestCase):
    """Chat history with a sparse, INCLUDE-projected GSI."""

    def test_sparse_gsi_newest_first(self):
        ddb = client()
        t = unique("w4")
        ddb.create_table(
            TableName=t, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("conversation_id", "timestamp", "gsi_pk_user")],
            KeySchema=[{"AttributeName": "conversation_id", "KeyType": "HASH"}, {"AttributeName": "timestamp", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "UserConversationsIndex",
                "KeySchema": [{"AttributeName": "gsi_pk_user", "KeyType": "HASH"}, {"AttributeName": "timestamp", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["conversation_id", "message_content"]},
            }],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        try:
            for c in range(30):
                for m in range(3):
                    ts = f"2025-11-{1 + c % 28:02d}T10:{c:02d}:{m:02d}Z"
                    item = {"conversation_id": {"S": f"conv-{c:02d}"}, "timestamp": {"S": ts},
                            "message_content": {"S": f"message {m}"}, "role": {"S": "user"},
                            "metadata": {"M": {"rag_sources": {"L": [{"S": "doc-1"}]}}},
                            "ttl": {"N": str(int(time.time()) + 2 * 365 * 86400)}}
                    if m == 0:
                        item["gsi_pk_user"] = {"S": "U456"}
                    ddb.put_item(TableName=t, Item=item)
            msgs = ddb.query(TableName=t, KeyConditionExpression="conversation_id = :c",
                             ExpressionAttributeValues={":c": {"S": "conv-05"}}, ScanIndexForward=True)
            self.assertEqual([i["message_content"]["S"] for i in msgs["Items"]], ["message 0", "message 1", "message 2"])
            convs = ddb.query(TableName=t, IndexName="UserConversationsIndex",
                              KeyConditionExpression="gsi_pk_user = :u",
                              ExpressionAttributeValues={":u": {"S": "U456"}},
                              ScanIndexForward=False, Limit=20)
            self.assertEqual(convs["Count"], 20)
            stamps = [i["timestamp"]["S"] for i in convs["Items"]]
            self.assertEqual(stamps, sorted(stamps, reverse=True))
            for i in convs["Items"]:
                self.assertEqual(set(i), {"conversation_id", "timestamp", "gsi_pk_user", "message_content"})
            self.assertIn("LastEvaluatedKey", convs)
        finally:
            ddb.delete_table(TableName=t)


class W4StreamsAndTTL(unittest.TestCase):
    """W4's stream feed and TTL expiry, read with the dynamodbstreams client.

    Needs Kura started with --admin (POST /admin/ttl/expire runs expiry now).
    """

    def test_stream_records_and_ttl_removals(self):
        import json
        import urllib.request

        ddb, streams = client(), client("dynamodbstreams")
        t = unique("w4s")
        ddb.create_table(
            TableName=t, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("conversation_id", "timestamp")],
            KeySchema=[{"AttributeName": "conversation_id", "KeyType": "HASH"}, {"AttributeName": "timestamp", "KeyType": "RANGE"}],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        try:
            ttl = ddb.update_time_to_live(TableName=t, TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
            self.assertEqual(ttl["TimeToLiveSpecification"], {"Enabled": True, "AttributeName": "ttl"})
            self.assertEqual(ddb.describe_time_to_live(TableName=t)["TimeToLiveDescription"]["TimeToLiveStatus"], "ENABLED")
            now = int(time.time())
            key = {"conversation_id": {"S": "c1"}, "timestamp": {"S": "2025-11-05T10:00:00Z"}}
            ddb.put_item(TableName=t, Item={**key, "message_content": {"S": "hello"}, "ttl": {"N": str(now + 3600)}})
            ddb.update_item(TableName=t, Key=key, UpdateExpression="SET message_content = :m",
                            ExpressionAttributeValues={":m": {"S": "hello, edited"}})
            ddb.put_item(TableName=t, Item={"conversation_id": {"S": "c2"}, "timestamp": {"S": "2023-01-01T00:00:00Z"},
                                            "message_content": {"S": "old"}, "ttl": {"N": str(now - 60)}})
            with urllib.request.urlopen(signed_admin_request("/admin/ttl/expire")) as resp:
                self.assertGreaterEqual(json.load(resp)["Deleted"], 1)
            self.assertNotIn("Item", ddb.get_item(TableName=t, Key={"conversation_id": {"S": "c2"}, "timestamp": {"S": "2023-01-01T00:00:00Z"}}))

            arn = ddb.describe_table(TableName=t)["Table"]["LatestStreamArn"]
            self.assertEqual([s["StreamArn"] for s in streams.list_streams(TableName=t)["Streams"]], [arn])
            desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
            self.assertEqual(desc["StreamViewType"], "NEW_AND_OLD_IMAGES")
            records = []
            for shard in desc["Shards"]:
                it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                while it:
                    out = streams.get_records(ShardIterator=it, Limit=100)
                    records += out["Records"]
                    if not out["Records"]:
                        break
                    it = out.get("NextShardIterator")
            self.assertEqual([r["eventName"] for r in records], ["INSERT", "MODIFY", "INSERT", "REMOVE"])
            modify = records[1]["dynamodb"]
            self.assertEqual(modify["OldImage"]["message_content"]["S"], "hello")
            self.assertEqual(modify["NewImage"]["message_content"]["S"], "hello, edited")
            self.assertNotIn("userIdentity", records[1])
            removal = records[3]
            self.assertEqual(removal["userIdentity"], {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"})
            self.assertEqual(removal["dynamodb"]["OldImage"]["message_content"]["S"], "old")
            seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
            self.assertEqual(seqs, sorted(seqs))
        finally:
            ddb.delete_table(TableName=t)


class ThrottlingAndPolicies(unittest.TestCase):
    """botocore reads Kura's throttling errors and their ThrottlingReasons
    (spelled throttlingReasons in a ThrottlingException), and its resource
    policies. Needs Kura started with --enforce-throughput --burst-capacity 1s."""

    def test_throttling_errors_and_policies(self):
        from botocore.config import Config

        ddb = client()
        once = boto3.client(  # no retries, so the throttle reaches the test
            "dynamodb", endpoint_url=ENDPOINT, region_name="us-east-1", aws_access_key_id="local",
            aws_secret_access_key="local", config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))
        key = [{"AttributeName": "pk", "KeyType": "HASH"}]
        defs = [{"AttributeName": "pk", "AttributeType": "S"}]
        provisioned, capped = unique("thr-p"), unique("thr-o")
        ddb.create_table(TableName=provisioned, KeySchema=key, AttributeDefinitions=defs,
                         ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
        ddb.create_table(TableName=capped, KeySchema=key, AttributeDefinitions=defs, BillingMode="PAY_PER_REQUEST",
                         OnDemandThroughput={"MaxWriteRequestUnits": 1})
        try:
            big = {"S": "x" * 3000}  # three write units against one a second
            for table, code, reasons_key, reason in (
                (provisioned, "ProvisionedThroughputExceededException", "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded"),
                (capped, "ThrottlingException", "throttlingReasons", "TableWriteMaxOnDemandThroughputExceeded"),
            ):
                once.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": big})
                with self.assertRaises(ClientError) as cm:
                    once.put_item(TableName=table, Item={"pk": {"S": "b"}, "v": big})
                err = cm.exception.response
                self.assertEqual(err["Error"]["Code"], code)
                arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
                self.assertEqual(err[reasons_key], [{"reason": reason, "resource": arn}])

            arn = ddb.describe_table(TableName=provisioned)["Table"]["TableArn"]
            policy = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:user/app"},"Action":"dynamodb:GetItem","Resource":"*"}]}'
            rev = ddb.put_resource_policy(ResourceArn=arn, Policy=policy)["RevisionId"]
            got = ddb.get_resource_policy(ResourceArn=arn)
            self.assertEqual((got["Policy"], got["RevisionId"]), (policy, rev))
            with self.assertRaises(ClientError) as cm:
                ddb.get_resource_policy(ResourceArn=ddb.describe_table(TableName=capped)["Table"]["TableArn"])
            self.assertEqual(cm.exception.response["Error"]["Code"], "PolicyNotFoundException")
        finally:
            ddb.delete_table(TableName=provisioned)
            ddb.delete_table(TableName=capped)


if __name__ == "__main__":
    unittest.main(verbosity=2)
