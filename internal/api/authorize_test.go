package api

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// Every operation the server routes has its IAM checks: none falls
// through to the refusal of an unmapped operation.
func TestEveryOperationIsMapped(t *testing.T) {
	a := arns{"us-east-1", "123456789012"}
	inputs := []any{&wire.CreateGlobalTableInput{}, &wire.UpdateGlobalTableInput{}, &wire.DescribeGlobalTableInput{},
		&wire.DescribeGlobalTableSettingsInput{}, &wire.UpdateGlobalTableSettingsInput{}, &wire.ListGlobalTablesInput{},
		&wire.DescribeTableReplicaAutoScalingInput{}, &wire.UpdateTableReplicaAutoScalingInput{}}
	bt := reflect.TypeOf((*Backend)(nil)).Elem()
	for i := range bt.NumMethod() {
		inputs = append(inputs, reflect.New(bt.Method(i).Type.In(1).Elem()).Interface())
	}
	for _, in := range inputs {
		chs := checksFor(in, a)
		for _, ch := range chs {
			if ch.action == "dynamodb:Unknown" {
				t.Errorf("%T has no IAM action", in)
			}
		}
	}
}

func TestChecks(t *testing.T) {
	a := arns{"eu-west-1", "123456789012"}
	name, index := "T", "byOwner"
	stmt := `SELECT * FROM "T"."byOwner" WHERE owner = 'x'`
	cases := []struct {
		in       any
		action   string
		resource string
	}{
		{&wire.GetItemInput{TableName: &name}, "dynamodb:GetItem", "arn:aws:dynamodb:eu-west-1:123456789012:table/T"},
		{&wire.QueryInput{TableName: &name, IndexName: &index}, "dynamodb:Query", "arn:aws:dynamodb:eu-west-1:123456789012:table/T/index/byOwner"},
		{&wire.ListTablesInput{}, "dynamodb:ListTables", "*"},
		{&wire.ExecuteStatementInput{Statement: &stmt}, "dynamodb:PartiQLSelect", "arn:aws:dynamodb:eu-west-1:123456789012:table/T/index/byOwner"},
		{&wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{{ConditionCheck: &wire.ConditionCheck{TableName: &name}}}},
			"dynamodb:ConditionCheckItem", "arn:aws:dynamodb:eu-west-1:123456789012:table/T"},
	}
	for _, c := range cases {
		chs := checksFor(c.in, a)
		if len(chs) != 1 || chs[0].action != c.action || chs[0].resource != c.resource {
			t.Errorf("%T: %+v, want %s on %s", c.in, chs, c.action, c.resource)
		}
	}
	if chs := checksFor(&wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{{ConditionCheck: &wire.ConditionCheck{TableName: &name}}}}, a); chs[0].keys["dynamodb:enclosingoperation"][0] != "TransactWriteItems" {
		t.Errorf("no dynamodb:EnclosingOperation: %v", chs[0].keys)
	}
	backup := "arn:aws:dynamodb:eu-west-1:123456789012:table/T/backup/01234567890123-abcd"
	chs := checksFor(&wire.DescribeBackupInput{BackupArn: &backup}, a)
	if chs[0].resource != backup || chs[0].policyARN != "arn:aws:dynamodb:eu-west-1:123456789012:table/T" {
		t.Errorf("backup check: %+v", chs[0])
	}
}

// The request's own condition keys: dynamodb:Attributes from a projection
// (top-level names, placeholders resolved) and from an item,
// dynamodb:Select and dynamodb:ReturnValues as sent, aws:TagKeys and
// aws:RequestTag/ from a TagResource.
func TestCheckKeys(t *testing.T) {
	a := arns{"us-east-1", "123456789012"}
	name, proj := "T", "#a, b.c, d[0]"
	get := checksFor(&wire.GetItemInput{TableName: &name, ProjectionExpression: &proj, ExpressionAttributeNames: map[string]string{"#a": "x"}}, a)[0]
	if got := get.attrs(); !reflect.DeepEqual(got, []string{"x", "b", "d"}) {
		t.Errorf("GetItem attributes %v", got)
	}
	if got := checksFor(&wire.GetItemInput{TableName: &name}, a)[0].attrs(); got != nil {
		t.Error("a GetItem without a projection has dynamodb:Attributes")
	}
	put := checksFor(&wire.PutItemInput{TableName: &name, ReturnValues: "ALL_OLD", Item: map[string]attr.Value{"pk": {T: attr.S, Str: "1"}, "a": {T: attr.S, Str: "2"}}}, a)[0]
	if got := put.attrs(); !reflect.DeepEqual(got, []string{"a", "pk"}) || put.keys["dynamodb:returnvalues"][0] != "ALL_OLD" {
		t.Errorf("PutItem keys %v", put.keys)
	}
	scan := checksFor(&wire.ScanInput{TableName: &name, Select: "COUNT"}, a)[0]
	if scan.keys["dynamodb:select"][0] != "COUNT" {
		t.Errorf("Scan keys %v", scan.keys)
	}
	arn := "arn:aws:dynamodb:us-east-1:123456789012:table/T"
	k, v := "Team", "blue"
	tag := checksFor(&wire.TagResourceInput{ResourceArn: &arn, Tags: []wire.Tag{{Key: &k, Value: &v}}}, a)[0]
	if tag.keys["aws:tagkeys"][0] != "Team" || tag.keys["aws:requesttag/team"][0] != "blue" {
		t.Errorf("TagResource keys %v", tag.keys)
	}
}

// The global keys of the connection and the clock, worked out when a
// policy asks, in any case.
func TestGlobalKeys(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	c := &caller{az: &Authorizer{Secure: true, Now: func() time.Time { return at }}, region: "eu-west-1", remote: "10.1.2.3:5555"}
	ctx := c.context(context.Background(), nil, &check{})
	for key, want := range map[string][]string{
		"aws:CurrentTime": {"2026-12-02T03:04:05Z"}, "aws:epochtime": {"1796180645"}, "aws:SecureTransport": {"true"},
		"aws:RequestedRegion": {"eu-west-1"}, "aws:SourceIp": {"10.1.2.3"},
	} {
		if got, ok := ctx.Get(key); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, %v; want %v", key, got, ok, want)
		}
	}
	if got, ok := ctx.Get("aws:SourceVpc"); ok {
		t.Errorf("aws:SourceVpc = %v", got)
	}
	c.remote = "not an address"
	if got, ok := c.context(context.Background(), nil, &check{}).Get("aws:sourceip"); ok {
		t.Errorf("aws:SourceIp of no address = %v", got)
	}
}
