"""Global tables (version 2019.11.21) through boto3 against a running Kura of
four regions (--regions us-east-1,eu-west-1,us-east-2,us-west-2 --admin,
authentication on with the key local:local).

Run by test/replicas_clients_test.go (go test ./test/ -run Boto3GlobalTables),
which starts Kura and passes its endpoint in KURA_ENDPOINT: a replica is
created, written in one region and read in the other, updated, and deleted;
and a multi-Region strongly consistent (MRSC) table of three replicas is
read strongly in another region and refuses a conflicting write.
"""
import json
import os
import threading
import time
import unittest
import urllib.request
import uuid

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

ENDPOINT = os.environ.get("KURA_ENDPOINT", "http://127.0.0.1:8000")


def client(region):
    return boto3.client(
        "dynamodb",
        endpoint_url=ENDPOINT,
        region_name=region,
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(retries={"max_attempts": 1}),  # a refusal is the answer under test
    )


def admin(path, region="us-east-1"):
    """POSTs Kura's admin endpoint path, signed for region (authentication
    is on), and returns its JSON answer."""
    req = AWSRequest(method="POST", url=ENDPOINT + path, data=b"")
    SigV4Auth(Credentials("local", "local"), "dynamodb", region).add_auth(req)
    r = urllib.request.Request(ENDPOINT + path, data=b"", method="POST", headers=dict(req.headers.items()))
    with urllib.request.urlopen(r) as resp:
        return json.loads(resp.read() or b"{}")


def eventually(what, cond, timeout=20):
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)


class GlobalTable(unittest.TestCase):
    def setUp(self):
        self.east, self.west = client("us-east-1"), client("eu-west-1")
        self.table = f"gt-{uuid.uuid4().hex[:8]}"
        self.east.create_table(
            TableName=self.table,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )

    def replica(self, c, region):
        for r in c.describe_table(TableName=self.table)["Table"].get("Replicas", []):
            if r["RegionName"] == region:
                return r
        return None

    def test_replica_lifecycle(self):
        east, west, table = self.east, self.west, self.table
        east.put_item(TableName=table, Item={"pk": {"S": "before"}})
        east.update_table(TableName=table, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        eventually("the replica", lambda: (self.replica(east, "eu-west-1") or {}).get("ReplicaStatus") == "ACTIVE")
        d = east.describe_table(TableName=table)["Table"]
        self.assertEqual(d["GlobalTableVersion"], "2019.11.21")
        self.assertEqual(self.replica(west, "us-east-1")["ReplicaStatus"], "ACTIVE")

        # Filled from the items already there; written in one region, read
        # in the other, both ways.
        get = lambda c, pk: c.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")
        eventually("the backfill", lambda: get(west, "before") is not None)
        east.put_item(TableName=table, Item={"pk": {"S": "e"}, "v": {"N": "1"}})
        eventually("us-east-1's write in eu-west-1", lambda: get(west, "e") == {"pk": {"S": "e"}, "v": {"N": "1"}})
        west.put_item(TableName=table, Item={"pk": {"S": "w"}, "v": {"N": "2"}})
        eventually("eu-west-1's write in us-east-1", lambda: get(east, "w") == {"pk": {"S": "w"}, "v": {"N": "2"}})

        # A replica's own on-demand read maximum.
        east.update_table(TableName=table, ReplicaUpdates=[{"Update": {
            "RegionName": "eu-west-1", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 100}}}])
        self.assertEqual(self.replica(east, "eu-west-1")["OnDemandThroughputOverride"], {"MaxReadRequestUnits": 100})
        self.assertEqual(west.describe_table(TableName=table)["Table"]["OnDemandThroughput"]["MaxReadRequestUnits"], 100)
        with self.assertRaises(ClientError) as e:
            east.update_table(TableName=table, ReplicaUpdates=[{"Update": {"RegionName": "eu-west-1"}}])
        self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
        self.assertEqual(e.exception.response["Error"]["Message"],
                         "There are no actions specified in the Replica Update Action of the request.")

        # Auto scaling, described per replica (lists present even empty).
        a = east.describe_table_replica_auto_scaling(TableName=table)["TableAutoScalingDescription"]
        self.assertEqual([r["RegionName"] for r in a["Replicas"]], ["eu-west-1", "us-east-1"])
        for r in a["Replicas"]:
            self.assertEqual(r["GlobalSecondaryIndexes"], [])
            self.assertEqual(r["ReplicaProvisionedReadCapacityAutoScalingSettings"],
                             {"AutoScalingDisabled": True, "ScalingPolicies": []})

        # Deleting the replica deletes eu-west-1's table; us-east-1's is a
        # table of one region again.
        east.update_table(TableName=table, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])

        def gone():
            try:
                west.describe_table(TableName=table)
                return False
            except ClientError as err:
                return err.response["Error"]["Code"] == "ResourceNotFoundException"

        eventually("eu-west-1's table deleted", gone)
        eventually("us-east-1 alone", lambda: "GlobalTableVersion" not in east.describe_table(TableName=table)["Table"])
        self.assertEqual(get(east, "w"), {"pk": {"S": "w"}, "v": {"N": "2"}})


class StrongGlobalTable(unittest.TestCase):
    """An MRSC table of three replicas: us-east-1, us-east-2, us-west-2."""

    def setUp(self):
        self.east, self.ohio, self.oregon = client("us-east-1"), client("us-east-2"), client("us-west-2")
        self.table = f"mrsc-{uuid.uuid4().hex[:8]}"
        self.east.create_table(
            TableName=self.table,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )

    def test_strong_reads_and_conflicts(self):
        east, ohio, oregon, table = self.east, self.ohio, self.oregon, self.table
        d = east.update_table(TableName=table, MultiRegionConsistency="STRONG", ReplicaUpdates=[
            {"Create": {"RegionName": "us-east-2"}}, {"Create": {"RegionName": "us-west-2"}}])["TableDescription"]
        self.assertEqual(d["MultiRegionConsistency"], "STRONG")
        self.assertEqual(sorted(r["RegionName"] for r in d["Replicas"]), ["us-east-2", "us-west-2"])

        def active():
            reps = east.describe_table(TableName=table)["Table"].get("Replicas", [])
            return len(reps) == 2 and all(r["ReplicaStatus"] == "ACTIVE" for r in reps)

        eventually("the replicas ACTIVE", active)
        d = oregon.describe_table(TableName=table)["Table"]
        self.assertEqual(d["MultiRegionConsistency"], "STRONG")
        self.assertEqual(sorted(r["RegionName"] for r in d["Replicas"]), ["us-east-1", "us-east-2"])

        # Acknowledged in us-east-1: a strongly consistent read in another
        # region returns it at once.
        east.put_item(TableName=table, Item={"pk": {"S": "acct"}, "n": {"N": "1"}})
        got = oregon.get_item(TableName=table, Key={"pk": {"S": "acct"}}, ConsistentRead=True)["Item"]
        self.assertEqual(got, {"pk": {"S": "acct"}, "n": {"N": "1"}})

        # us-east-1's next write of the item waits for its replication
        # (delayed on us-east-1's admin clock); meanwhile us-east-2's write
        # of it is refused.
        for to in ("us-east-2", "us-west-2"):
            admin(f"/admin/replication/delay?from=us-east-1&to={to}&by=1h")
        result = {}
        writer = threading.Thread(target=lambda: result.update(
            out=east.put_item(TableName=table, Item={"pk": {"S": "acct"}, "n": {"N": "2"}})))
        writer.start()
        eventually("us-east-1's write queued", lambda: admin("/admin/replication/status")["Backlog"]["us-east-2"] == 1)
        with self.assertRaises(ClientError) as e:
            ohio.put_item(TableName=table, Item={"pk": {"S": "acct"}, "n": {"N": "3"}})
        self.assertEqual(e.exception.response["Error"]["Code"], "ReplicatedWriteConflictException")
        self.assertEqual(e.exception.response["Error"]["Message"],
                         "The request was rejected because one or more items in the request are being modified by a request in another Region.")
        admin("/admin/clock/advance?by=1h")
        writer.join(30)
        self.assertIn("out", result, "us-east-1's write was not acknowledged")
        for to in ("us-east-2", "us-west-2"):
            admin(f"/admin/replication/delay?from=us-east-1&to={to}&by=0s")
        got = ohio.get_item(TableName=table, Key={"pk": {"S": "acct"}}, ConsistentRead=True)["Item"]
        self.assertEqual(got["n"], {"N": "2"})


if __name__ == "__main__":
    unittest.main()
