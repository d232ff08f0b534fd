package restore

import (
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

func wantErr(t *testing.T, err *ddberr.Error, typ, msg string) {
	t.Helper()
	if err == nil || err.Type != typ || err.Message != msg {
		t.Fatalf("got %v, want %s: %s", err, typ, msg)
	}
}

func key(names ...string) []wire.KeySchemaElement {
	out := make([]wire.KeySchemaElement, len(names))
	for i, n := range names {
		out[i] = wire.KeySchemaElement{AttributeName: wire.Ptr(n), KeyType: []string{"HASH", "RANGE"}[i]}
	}
	return out
}

// source is a PAY_PER_REQUEST table with GSI "g" on a, LSI "l" on pk/b.
func source() *wire.TableDescription {
	all := &wire.Projection{ProjectionType: "ALL"}
	return &wire.TableDescription{
		KeySchema: key("pk", "sk"),
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: wire.Ptr("a"), AttributeType: "S"}, {AttributeName: wire.Ptr("b"), AttributeType: "S"},
			{AttributeName: wire.Ptr("pk"), AttributeType: "S"}, {AttributeName: wire.Ptr("sk"), AttributeType: "S"}},
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{{IndexName: wire.Ptr("g"), KeySchema: key("a"), Projection: all, IndexStatus: "ACTIVE",
			ProvisionedThroughput: &wire.ProvisionedThroughputDescription{ReadCapacityUnits: wire.Ptr[int64](0), WriteCapacityUnits: wire.Ptr[int64](0)}}},
		LocalSecondaryIndexes: []wire.LocalSecondaryIndexDescription{{IndexName: wire.Ptr("l"), KeySchema: key("pk", "b"), Projection: all}},
		SSEDescription:        &wire.SSEDescription{Status: "ENABLED", KMSMasterKeyArn: wire.Ptr("arn:k")},
	}
}

// TestRequest: the CreateTable a restore amounts to, with overrides.
func TestRequest(t *testing.T) {
	target := wire.Ptr("new")
	cin, err := Request(source(), "PAY_PER_REQUEST", target, Overrides{})
	if err != nil || len(cin.GlobalSecondaryIndexes) != 1 || len(cin.LocalSecondaryIndexes) != 1 || len(cin.AttributeDefinitions) != 4 ||
		wire.Deref(cin.SSESpecification.KMSMasterKeyId) != "arn:k" || cin.TableName != target {
		t.Fatalf("%+v %v", cin, err)
	}
	// No GSIs: their key's definition goes too; PROVISIONED gives the
	// LSI-less table the override's capacity.
	pt := &wire.ProvisionedThroughput{ReadCapacityUnits: wire.Ptr[int64](5), WriteCapacityUnits: wire.Ptr[int64](5)}
	cin, err = Request(source(), "PAY_PER_REQUEST", target, Overrides{Billing: "PROVISIONED", Throughput: pt, GSIs: []wire.GlobalSecondaryIndex{}})
	if err != nil || cin.GlobalSecondaryIndexes != nil || len(cin.AttributeDefinitions) != 3 || cin.ProvisionedThroughput != pt {
		t.Fatalf("%+v %v", cin, err)
	}
	// A renamed GSI keeps its shape and takes the table's capacity.
	cin, err = Request(source(), "PAY_PER_REQUEST", target, Overrides{Billing: "PROVISIONED", Throughput: pt,
		GSIs: []wire.GlobalSecondaryIndex{{IndexName: wire.Ptr("g2"), KeySchema: key("a"), Projection: &wire.Projection{}}}})
	if err != nil || wire.Deref(cin.GlobalSecondaryIndexes[0].IndexName) != "g2" || cin.GlobalSecondaryIndexes[0].ProvisionedThroughput != pt {
		t.Fatalf("%+v %v", cin, err)
	}
	_, err = Request(source(), "PAY_PER_REQUEST", target, Overrides{LSIs: []wire.LocalSecondaryIndex{{IndexName: wire.Ptr("x"), KeySchema: key("pk", "a")}}})
	wantErr(t, err, "ValidationException", "Index x does not match a secondary index that existed in the source table and cannot be created during the restore operation")
	_, err = Request(source(), "PAY_PER_REQUEST", target, Overrides{Billing: "PROVISIONED"})
	wantErr(t, err, "ValidationException", "Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED")
	_, err = Request(source(), "PAY_PER_REQUEST", target, Overrides{Throughput: pt})
	wantErr(t, err, "ValidationException", "Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED")
}

// TestAtTime: a point-in-time restore's own checks, its source and time.
func TestAtTime(t *testing.T) {
	now := time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC)
	_, err := CheckAtTime(&wire.RestoreTableToPointInTimeInput{SourceTableName: wire.Ptr("T")})
	wantErr(t, err, "ValidationException", "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both")
	_, err = CheckAtTime(&wire.RestoreTableToPointInTimeInput{UseLatestRestorableTime: wire.Ptr(true), SourceTableArn: wire.Ptr("arn:aws:dynamodb:r:1:table/T/stream/x")})
	wantErr(t, err, "ValidationException", "sourceTableArn is not a valid ARN")
	in := &wire.RestoreTableToPointInTimeInput{UseLatestRestorableTime: wire.Ptr(true), SourceTableArn: wire.Ptr("arn:aws:dynamodb:r:1:table/T")}
	if name, err := CheckAtTime(in); err != nil || name != "T" {
		t.Fatalf("%q %v", name, err)
	}
	if err := SourceNotFound(in, "T"); err.Message != "Table not found" {
		t.Fatalf("by ARN: %v", err)
	}
	if at, err := Time(in, now.Add(-time.Hour), now); err != nil || !at.Equal(now) {
		t.Fatalf("latest: %v %v", at, err)
	}
	in = &wire.RestoreTableToPointInTimeInput{RestoreDateTime: wire.NewTime(now.Add(-2 * time.Hour))}
	_, err = Time(in, now.Add(-time.Hour), now)
	wantErr(t, err, "InvalidRestoreTimeException", "RestoreDateTime '2026-10-09T10:00:00Z' must be within EarliestRestorableDateTime "+
		"'2026-10-09T11:00:00Z' and LatestRestorableDateTime '2026-10-09T12:00:00Z'")
	wantErr(t, TargetTaken("T", "CREATING", &wire.RestoreSummary{SourceTableArn: wire.Ptr("arn:s")}), "TableInUseException",
		"Table: T is already being restored from backup: arn:s")
	wantErr(t, TargetTaken("T", "ACTIVE", nil), "TableAlreadyExistsException", "Table already exists: T")
}
