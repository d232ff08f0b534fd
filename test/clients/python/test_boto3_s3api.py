"""Kura's S3 API (the --s3-dir folder store on Kura's endpoint) through boto3.

Run by test/s3api_clients_test.go (go test ./test/ -run Boto3S3API), which
starts Kura with --s3-dir and credentials, makes a bucket, and passes
Kura's endpoint in KURA_S3_ENDPOINT and the bucket in KURA_S3_BUCKET (the
credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
"""
import hashlib
import os
import tempfile
import unittest
import uuid

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError

ENDPOINT = os.environ.get("KURA_S3_ENDPOINT", "http://127.0.0.1:8000")
BUCKET = os.environ.get("KURA_S3_BUCKET", "")


def s3():
    return boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1",
                        config=boto3.session.Config(s3={"addressing_style": "path"}))


def error_of(call):
    try:
        call()
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"].get("Message", ""), e.response["ResponseMetadata"]["HTTPStatusCode"]
    raise AssertionError("no error")


class TransferManager(unittest.TestCase):
    def test_multipart_upload_and_download(self):
        c = s3()
        data = os.urandom(20 * 1024 * 1024 + 5)
        key = "boto3/" + uuid.uuid4().hex + "/big.bin"
        # 8 MiB parts, as the transfer manager's defaults: three parts.
        config = TransferConfig(multipart_threshold=8 * 1024 * 1024, multipart_chunksize=8 * 1024 * 1024)
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "src"), os.path.join(d, "dst")
            with open(src, "wb") as f:
                f.write(data)
            c.upload_file(src, BUCKET, key, Config=config, ExtraArgs={"ContentType": "application/x-big", "Metadata": {"origin": "boto3"}})
            head = c.head_object(Bucket=BUCKET, Key=key)
            self.assertEqual(head["ContentLength"], len(data))
            self.assertTrue(head["ETag"].endswith('-3"'), head["ETag"])
            self.assertEqual(head["ContentType"], "application/x-big")
            self.assertEqual(head["Metadata"], {"origin": "boto3"})
            # The download is ranged GETs in parallel.
            c.download_file(BUCKET, key, dst, Config=config)
            with open(dst, "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), hashlib.sha256(data).hexdigest())

    def test_small_objects(self):
        c = s3()
        prefix = "small/" + uuid.uuid4().hex + "/"
        for i in range(3):
            c.put_object(Bucket=BUCKET, Key=prefix + "k%d" % i, Body=b"v%d" % i)
        listed = c.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
        self.assertEqual([o["Key"] for o in listed["Contents"]], [prefix + "k0", prefix + "k1", prefix + "k2"])
        paged = [o["Key"] for page in c.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix, PaginationConfig={"PageSize": 2})
                 for o in page.get("Contents", [])]
        self.assertEqual(paged, [prefix + "k0", prefix + "k1", prefix + "k2"])
        c.copy_object(Bucket=BUCKET, Key=prefix + "copy", CopySource={"Bucket": BUCKET, "Key": prefix + "k1"})
        self.assertEqual(c.get_object(Bucket=BUCKET, Key=prefix + "copy")["Body"].read(), b"v1")
        self.assertEqual(c.get_object(Bucket=BUCKET, Key=prefix + "k2", Range="bytes=1-")["Body"].read(), b"2")
        deleted = c.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": prefix + "k0"}, {"Key": prefix + "copy"}]})
        self.assertEqual(sorted(d["Key"] for d in deleted["Deleted"]), [prefix + "copy", prefix + "k0"])
        self.assertEqual(error_of(lambda: c.get_object(Bucket=BUCKET, Key=prefix + "k0")),
                         ("NoSuchKey", "The specified key does not exist.", 404))

    def test_errors(self):
        c = s3()
        self.assertEqual(error_of(lambda: c.list_objects_v2(Bucket="kura-no-such-bucket")),
                         ("NoSuchBucket", "The specified bucket does not exist", 404))
        self.assertEqual(error_of(lambda: c.head_object(Bucket=BUCKET, Key="nothing"))[::2], ("404", 404))
        c.put_object(Bucket=BUCKET, Key="r", Body=b"abc")
        self.assertEqual(error_of(lambda: c.get_object(Bucket=BUCKET, Key="r", Range="bytes=5-")),
                         ("InvalidRange", "The requested range is not satisfiable", 416))
        wrong = boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1", aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
                             aws_secret_access_key="wrong", config=boto3.session.Config(s3={"addressing_style": "path"}))
        code, _, status = error_of(lambda: wrong.get_object(Bucket=BUCKET, Key="r"))
        self.assertEqual((code, status), ("SignatureDoesNotMatch", 403))


if __name__ == "__main__":
    unittest.main()
