"""Kinesis streaming destinations through boto3 against a running Kura.

Run by test/kinesis_test.go (go test ./test/ -run Boto3Kinesis), which starts
Kura with --kinesis-endpoint and passes its endpoint in KURA_ENDPOINT and the
Kinesis server's (kinesalite) in KURA_KINESIS_ENDPOINT.
"""
import json
import os
import time
import unittest
import uuid

import boto3
from botocore.exceptions import ClientError

ENDPOINT = os.environ.get("KURA_ENDPOINT", "http://127.0.0.1:8000")
KINESIS = os.environ.get("KURA_KINESIS_ENDPOINT", "http://127.0.0.1:4567")


def client(service, endpoint):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local")


def wait(check, what, within=15):
    deadline = time.time() + within
    while time.time() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class KinesisDestination(unittest.TestCase):
    def test_flow(self):
        ddb, kin = client("dynamodb", ENDPOINT), client("kinesis", KINESIS)
        name = "boto3-" + uuid.uuid4().hex[:8]
        kin.create_stream(StreamName=name, ShardCount=1)
        arn = wait(lambda: (lambda d: d["StreamDescriptionSummary"]["StreamStatus"] == "ACTIVE"
                            and d["StreamDescriptionSummary"]["StreamARN"])(
            kin.describe_stream_summary(StreamName=name)), "the stream")
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        out = ddb.enable_kinesis_streaming_destination(TableName=name, StreamArn=arn)
        self.assertEqual(out["DestinationStatus"], "ENABLING")

        def active():
            ds = ddb.describe_kinesis_streaming_destination(TableName=name)["KinesisDataStreamDestinations"]
            return [d for d in ds if d["StreamArn"] == arn and d["DestinationStatus"] == "ACTIVE"]
        wait(active, "ACTIVE")

        with self.assertRaises(ClientError) as e:
            ddb.update_kinesis_streaming_destination(
                TableName=name, StreamArn=arn,
                UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MILLISECOND"})
        self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
        self.assertTrue(e.exception.response["Error"]["Message"].startswith(
            "Invalid Request: Precision is already set to the desired value of MILLISECOND"))

        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "n": {"N": "1"}})
        ddb.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
        ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})

        shard = kin.list_shards(StreamName=name)["Shards"][0]["ShardId"]

        def records():
            it = kin.get_shard_iterator(StreamName=name, ShardId=shard,
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            recs = [json.loads(r["Data"]) for r in kin.get_records(ShardIterator=it)["Records"]]
            return recs if len(recs) >= 3 else None
        recs = wait(records, "three records")
        self.assertEqual([r["eventName"] for r in recs], ["INSERT", "MODIFY", "REMOVE"])
        self.assertEqual(recs[1]["dynamodb"]["OldImage"], {"pk": {"S": "a"}, "n": {"N": "1"}})
        self.assertEqual(recs[1]["dynamodb"]["NewImage"], {"pk": {"S": "a"}, "n": {"N": "2"}})
        self.assertEqual({r["tableName"] for r in recs}, {name})
        self.assertEqual({r["eventSource"] for r in recs}, {"aws:dynamodb"})

        out = ddb.disable_kinesis_streaming_destination(TableName=name, StreamArn=arn)
        self.assertEqual(out["DestinationStatus"], "DISABLING")


if __name__ == "__main__":
    unittest.main()
