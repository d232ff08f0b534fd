"""Exports to and imports from S3 through boto3 against a running Kura.

Run by test/export_s3_test.go (go test ./test/ -run Boto3S3), which starts
an S3-compatible server and Kura with --s3-endpoint, and passes Kura's
endpoint in KURA_ENDPOINT, the S3 server's in KURA_S3_ENDPOINT and a bucket
in KURA_S3_BUCKET (the S3 credentials are in AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY).
"""
import gzip
import json
import os
import time
import unittest
import uuid

import boto3

ENDPOINT = os.environ.get("KURA_ENDPOINT", "http://127.0.0.1:8000")
S3_ENDPOINT = os.environ.get("KURA_S3_ENDPOINT", "")
BUCKET = os.environ.get("KURA_S3_BUCKET", "")


def dynamodb():
    return boto3.client("dynamodb", endpoint_url=ENDPOINT, region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local")


def s3():
    return boto3.client("s3", endpoint_url=S3_ENDPOINT, region_name="us-east-1",
                        config=boto3.session.Config(s3={"addressing_style": "path"}))


def start_import(db, source, compression, table):
    """ImportTable of DYNAMODB_JSON into a new table keyed by the string pk."""
    return db.import_table(S3BucketSource=source, InputFormat="DYNAMODB_JSON", InputCompressionType=compression,
                           TableCreationParameters={"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                                                    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                                                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})


def wait(describe, key, status_key):
    for _ in range(300):
        d = describe()[key]
        if d[status_key] != "IN_PROGRESS":
            return d
        time.sleep(0.1)
    raise AssertionError("still IN_PROGRESS: %r" % d)


class ExportImport(unittest.TestCase):
    def test_round_trip(self):
        db = dynamodb()
        name = "boto3-s3-" + uuid.uuid4().hex[:8]
        db.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        db.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
        for pk in ("a", "b", "c"):
            db.put_item(TableName=name, Item={"pk": {"S": pk}, "n": {"N": "1"}})
        arn = db.describe_table(TableName=name)["Table"]["TableArn"]
        started = db.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, S3Prefix="boto3")
        d = wait(lambda: db.describe_export(ExportArn=started["ExportDescription"]["ExportArn"]), "ExportDescription", "ExportStatus")
        self.assertEqual(d["ExportStatus"], "COMPLETED")
        self.assertEqual(d["ItemCount"], 3)

        # The export's files, read with boto3's S3 client as a DynamoDB
        # export's reader reads them.
        store = s3()
        summary = json.loads(store.get_object(Bucket=BUCKET, Key=d["ExportManifest"])["Body"].read())
        files = [json.loads(line) for line in store.get_object(Bucket=BUCKET, Key=summary["manifestFilesS3Key"])["Body"].read().splitlines()]
        self.assertEqual(len(files), 1)
        body = gzip.decompress(store.get_object(Bucket=BUCKET, Key=files[0]["dataFileS3Key"])["Body"].read())
        keys = sorted(json.loads(line)["Item"]["pk"]["S"] for line in body.splitlines())
        self.assertEqual(keys, ["a", "b", "c"])

        copy = name + "-copy"
        prefix = files[0]["dataFileS3Key"].rsplit("/", 1)[0] + "/"
        imp = start_import(db, {"S3Bucket": BUCKET, "S3KeyPrefix": prefix}, "GZIP", copy)
        d = wait(lambda: db.describe_import(ImportArn=imp["ImportTableDescription"]["ImportArn"]), "ImportTableDescription", "ImportStatus")
        self.assertEqual(d["ImportStatus"], "COMPLETED")
        self.assertEqual(d["ImportedItemCount"], 3)
        self.assertEqual(db.scan(TableName=copy)["Count"], 3)

    def test_missing_bucket(self):
        db = dynamodb()
        name = "boto3-s3-" + uuid.uuid4().hex[:8]
        imp = start_import(db, {"S3Bucket": "kura-no-such-bucket"}, "NONE", name)
        d = wait(lambda: db.describe_import(ImportArn=imp["ImportTableDescription"]["ImportArn"]), "ImportTableDescription", "ImportStatus")
        self.assertEqual(d["ImportStatus"], "FAILED")
        self.assertEqual(d["FailureCode"], "S3NoSuchBucket")
        self.assertIn("The specified bucket does not exist", d["FailureMessage"])
        self.assertNotIn(name, db.list_tables()["TableNames"])


if __name__ == "__main__":
    unittest.main()
