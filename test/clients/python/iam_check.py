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

root.create_table(TableName="Shared", BillingMode="PAY_PER_REQUEST",
                  AttributeDefinitions=[{"AttributeName": "owner", "AttributeType": "S"}],
                  KeySchema=[{"AttributeName": "owner", "KeyType": "HASH"}])
frank = client("AKIDFRANK", "s")
names = {"#o": "owner", "#t": "text"}
attempt("frank get two attributes", lambda: frank.get_item(
    TableName="Notes", Key={"owner": {"S": "x"}}, ProjectionExpression="#o, #t", ExpressionAttributeNames=names))
attempt("frank get another attribute", lambda: frank.get_item(
    TableName="Notes", Key={"owner": {"S": "x"}}, ProjectionExpression="#o, secret", ExpressionAttributeNames={"#o": "owner"}))


def query(select):
    args = {"TableName": "Notes", "KeyConditionExpression": "#o = :o",
            "ExpressionAttributeNames": {"#o": "owner"}, "ExpressionAttributeValues": {":o": {"S": "x"}}}
    if select:
        args["Select"] = select
    return lambda: frank.query(**args)


attempt("frank query without select", query(None))
attempt("frank query all attributes", query("ALL_ATTRIBUTES"))
attempt("frank describe shared", lambda: frank.describe_table(TableName="Shared"))
attempt("frank describe notes", lambda: frank.describe_table(TableName="Notes"))

shared_arn = root.describe_table(TableName="Shared")["Table"]["TableArn"]
root.put_resource_policy(ResourceArn=shared_arn, Policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Sid": "AppReads", "Effect": "Allow",
                                             "Principal": {"AWS": "arn:aws:iam::000000000000:role/app"},
                                             "Action": "dynamodb:GetItem", "Resource": shared_arn}]}))
app = client("AKIDAPP", "s")
attempt("app get shared", lambda: app.get_item(TableName="Shared", Key={"owner": {"S": "x"}}))
attempt("app put shared", lambda: app.put_item(TableName="Shared", Item={"owner": {"S": "x"}}))
