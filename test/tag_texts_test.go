package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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

// TestCreatingTableAnswers: while a table is CREATING, DynamoDB answers a
// second CreateTable "Table is being created" (not "Table already exists")
// and the tag APIs do not find it yet (live-probe catalogue, October 2026:
// DDB-TABLE-005, DDB-TABLE-446).
func TestCreatingTableAnswers(t *testing.T) {
	k := startKura(t, "--in-memory", "--create-delay", "1m")
	create := `{"TableName":"slow","BillingMode":"PAY_PER_REQUEST","Tags":[{"Key":"a","Value":"b"}],` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`
	if typ, msg := rawCall(t, k, "CreateTable", create); typ != "" {
		t.Fatalf("CreateTable: %s %s", typ, msg)
	}
	typ, msg := rawCall(t, k, "CreateTable", create)
	if want := "Attempt to change a resource which is still in use: Table is being created: slow"; typ != "ResourceInUseException" || msg != want {
		t.Fatalf("second CreateTable: got %s %q, want ResourceInUseException %q", typ, msg, want)
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/slow"
	for _, c := range []struct{ op, body string }{
		{"ListTagsOfResource", `{"ResourceArn":"` + arn + `"}`},
		{"TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"c","Value":"d"}]}`},
		{"UntagResource", `{"ResourceArn":"` + arn + `","TagKeys":["a"]}`},
	} {
		typ, msg := rawCall(t, k, c.op, c.body)
		if want := "Requested resource not found: ResourceArn: " + arn + " not found"; typ != "ResourceNotFoundException" || msg != want {
			t.Errorf("%s while CREATING: got %s %q, want ResourceNotFoundException %q", c.op, typ, msg, want)
		}
	}
	// ListTables continues after a table name, never an ARN.
	typ, msg = rawCall(t, k, "ListTables", `{"ExclusiveStartTableName":"`+arn+`"}`)
	if want := "1 validation error detected: Value '" + arn + "' at 'exclusiveStartTableName' failed to satisfy constraint: " +
		"Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"; typ != "ValidationException" || msg != want {
		t.Errorf("ListTables after an ARN: got %s %q\nwant ValidationException %q", typ, msg, want)
	}
}

// TagResource and UntagResource answer 200 with an empty body (ScyllaDB's
// Alternator tests, which are run against DynamoDB).
func TestTagResourceEmptyBody(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(d.Table.TableArn)
	for op, body := range map[string]string{
		"TagResource":   `{"ResourceArn":"` + arn + `","Tags":[{"Key":"k","Value":"v"}]}`,
		"UntagResource": `{"ResourceArn":"` + arn + `","TagKeys":["k"]}`,
	} {
		status, raw := rawPost(t, shared.endpoint, op, strings.NewReader(body))
		if status != 200 || len(raw) != 0 {
			t.Errorf("%s: %d %q", op, status, raw)
		}
	}
}
