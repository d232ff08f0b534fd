"""Authorization through boto3 (run by test/iam_test.go's TestBoto3IAM
against a Kura with --iam-file): prints, one JSON object per line, what
each call answered, for the Go test to compare with DynamoDB's texts."""
import json
import os

import boto3
from botocore.exceptions import ClientError

endpoint = os.environ["KURA_ENDPOINT"]


def client(key, secret):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret)


def attempt(name, call):
    try:
        call()
        print(json.dumps({"call": name, "ok": True}))
    except ClientError as e:
        err = e.response["Error"]
        print(json.dumps({"call": name, "ok": False, "code": err["Code"], "message": err["Message"],
                          "status": e.response["ResponseMetadata"]["HTTPStatusCode"]}))


root = client("AKIDROOT", "root-secret")
root.create_table(TableName="Notes", BillingMode="PAY_PER_REQUEST",
                  AttributeDefinitions=[{"AttributeName": "owner", "AttributeType": "S"}],
                  KeySchema=[{"AttributeName": "owner", "KeyType": "HASH"}])
alice = client("AKIDALICE", "s")
bob = client("AKIDBOB", "s")
attempt("alice put own", lambda: alice.put_item(TableName="Notes", Item={"owner": {"S": "alice"}}))
attempt("alice get other", lambda: alice.get_item(TableName="Notes", Key={"owner": {"S": "bob"}}))
attempt("bob delete table", lambda: bob.delete_table(TableName="Notes"))
attempt("bob describe", lambda: bob.describe_table(TableName="Notes"))
