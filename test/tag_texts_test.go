package test

import (
	"strings"
	"testing"
)

// TestTagResourceTexts: TagResource answers a bad tag with the texts live
// DynamoDB probes recorded (October 2026), not the generic member
// constraint texts, and refuses the aws: prefix in any case.
func TestTagResourceTexts(t *testing.T) {
	k := startKura(t, "--in-memory")
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/tagged"
	if typ, msg := rawCall(t, k, "CreateTable", `{"TableName":"tagged","BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`); typ != "" {
		t.Fatalf("CreateTable: %s %s", typ, msg)
	}
	long := strings.Repeat("k", 129)
	longValue := strings.Repeat("v", 257)
	for _, c := range []struct{ tags, want string }{
		{`[{"Key":"` + long + `","Value":"x"}]`, "The Tag Key provided is invalid, Key: " + long},
		{`[{"Key":"k","Value":"` + longValue + `"}]`, "The Tag Value provided is invalid, Value: " + longValue},
		{`[{"Key":"","Value":"x"}]`, "The Tag Key provided is invalid, Key: "},
		{`[{"Key":"nv"}]`, "The Tag Value provided is invalid, Value: null"},
		{`[{"Value":"x"}]`, "The Tag Key provided is invalid, Key: null"},
		{`[{}]`, "The Tag Key provided is invalid, Key: null"},
		{`[{"Key":"AWS:foo","Value":"x"}]`, "Tag Key cannot be prefixed with aws:, Key: AWS:foo"},
	} {
		typ, msg := rawCall(t, k, "TagResource", `{"ResourceArn":"`+arn+`","Tags":`+c.tags+`}`)
		if typ != "ValidationException" || msg != c.want {
			t.Errorf("Tags %.40s: got %s %q\nwant ValidationException %q", c.tags, typ, msg, c.want)
		}
	}
}

// TestUpdateTimeToLiveWhileCreating: DynamoDB words this refusal unlike
// the other operations' "Table is being created: X".
func TestUpdateTimeToLiveWhileCreating(t *testing.T) {
	k := startKura(t, "--in-memory", "--create-delay", "1m")
	if typ, msg := rawCall(t, k, "CreateTable", `{"TableName":"slow","BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`); typ != "" {
		t.Fatalf("CreateTable: %s %s", typ, msg)
	}
	typ, msg := rawCall(t, k, "UpdateTimeToLive", `{"TableName":"slow","TimeToLiveSpecification":{"Enabled":true,"AttributeName":"ttl"}}`)
	if want := "Attempt to change a resource which is still in use: Table slow is being created"; typ != "ResourceInUseException" || msg != want {
		t.Fatalf("got %s %q, want ResourceInUseException %q", typ, msg, want)
	}
}

// TestUpdateContinuousBackupsWhileCreating: DynamoDB refuses to change
// point-in-time recovery until the table's backups are available.
func TestUpdateContinuousBackupsWhileCreating(t *testing.T) {
	k := startKura(t, "--in-memory", "--create-delay", "1m")
	if typ, msg := rawCall(t, k, "CreateTable", `{"TableName":"slow","BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`); typ != "" {
		t.Fatalf("CreateTable: %s %s", typ, msg)
	}
	typ, msg := rawCall(t, k, "UpdateContinuousBackups", `{"TableName":"slow","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`)
	if want := "Backups are being enabled for the table: slow. Please retry later"; typ != "ContinuousBackupsUnavailableException" || msg != want {
		t.Fatalf("got %s %q, want ContinuousBackupsUnavailableException %q", typ, msg, want)
	}
}
