package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

func ctlOpen(t *testing.T, cfg Config) *Engine {
	t.Helper()
	e, err := Open(memory.New(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func ctlKS(names ...string) []wire.KeySchemaElement {
	out := make([]wire.KeySchemaElement, len(names))
	for i, n := range names {
		kt := "HASH"
		if i == 1 {
			kt = "RANGE"
		}
		out[i] = wire.KeySchemaElement{AttributeName: cpPtr(n), KeyType: kt}
	}
	return out
}

func ctlDefs(pairs ...string) []wire.AttributeDefinition {
	var out []wire.AttributeDefinition
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, wire.AttributeDefinition{AttributeName: cpPtr(pairs[i]), AttributeType: pairs[i+1]})
	}
	return out
}

func ctlPPR(name string) *wire.CreateTableInput {
	return &wire.CreateTableInput{TableName: cpPtr(name), BillingMode: BillingPayPerRequest,
		KeySchema: ctlKS("pk"), AttributeDefinitions: ctlDefs("pk", "S")}
}

// ctlPPRWithGSI is ctlPPR with one GSI "G" keyed on the string attribute
// key, projecting projection.
func ctlPPRWithGSI(name, key, projection string) *wire.CreateTableInput {
	in := ctlPPR(name)
	in.AttributeDefinitions = append(in.AttributeDefinitions, ctlDefs(key, "S")...)
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("G"), KeySchema: ctlKS(key),
		Projection: &wire.Projection{ProjectionType: projection}}}
	return in
}

func ctlWantErr(t *testing.T, err error, typ, msg string) {
	t.Helper()
	var de *ddberr.Error
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want %s: %s", err, typ, msg)
	}
	if de.Type != typ || de.Message != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", de.Type, de.Message, typ, msg)
	}
}

const ctlIP = "One or more parameter values were invalid: "

func TestCtlCreateTableValidation(t *testing.T) {
	e := ctlOpen(t, Config{})
	pt := &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](5), WriteCapacityUnits: cpPtr[int64](5)}
	proj := &wire.Projection{ProjectionType: "ALL"}
	cases := []struct {
		name string
		mod  func(in *wire.CreateTableInput)
		msg  string
	}{
		{"ppr with throughput", func(in *wire.CreateTableInput) { in.ProvisionedThroughput = pt },
			ctlIP + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"provisioned without throughput", func(in *wire.CreateTableInput) { in.BillingMode = "" },
			ctlIP + "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"explicit provisioned without throughput", func(in *wire.CreateTableInput) { in.BillingMode = BillingProvisioned },
			ctlIP + "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"out of bounds", func(in *wire.CreateTableInput) {
			in.BillingMode = ""
			in.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](1000000000001), WriteCapacityUnits: cpPtr[int64](1)}
		}, "Given value 1000000000001 for ReadCapacityUnits is out of bounds"},
		{"missing definition single key", func(in *wire.CreateTableInput) { in.AttributeDefinitions = ctlDefs("x", "S") },
			ctlIP + "Some index key attributes are not defined in AttributeDefinitions. Keys: [pk], AttributeDefinitions: [x]"},
		{"missing definition two keys", func(in *wire.CreateTableInput) { in.KeySchema = ctlKS("pk", "sk") },
			"Invalid KeySchema: Some index key attribute have no definition"},
		{"same names", func(in *wire.CreateTableInput) {
			in.KeySchema = ctlKS("pk", "pk")
			in.AttributeDefinitions = ctlDefs("pk", "S", "x", "S")
		}, "Both the Hash Key and the Range Key element in the KeySchema have the same name"},
		{"first not hash", func(in *wire.CreateTableInput) { in.KeySchema[0].KeyType = "RANGE" },
			"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"second not range", func(in *wire.CreateTableInput) {
			in.KeySchema = ctlKS("pk", "sk")
			in.KeySchema[1].KeyType = "HASH"
			in.AttributeDefinitions = ctlDefs("pk", "S", "sk", "N")
		}, "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"},
		{"unused definition", func(in *wire.CreateTableInput) { in.AttributeDefinitions = ctlDefs("pk", "S", "x", "N") },
			ctlIP + "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"duplicate definition", func(in *wire.CreateTableInput) { in.AttributeDefinitions = ctlDefs("pk", "S", "pk", "N") },
			"Attribute Name is duplicated: pk"},
		{"empty gsi list", func(in *wire.CreateTableInput) { in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{} },
			ctlIP + "List of GlobalSecondaryIndexes is empty"},
		{"empty lsi list", func(in *wire.CreateTableInput) { in.LocalSecondaryIndexes = []wire.LocalSecondaryIndex{} },
			ctlIP + "List of LocalSecondaryIndexes is empty"},
		{"lsi without table range", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = ctlDefs("pk", "S", "l", "S")
			in.LocalSecondaryIndexes = []wire.LocalSecondaryIndex{{IndexName: cpPtr("lsi"), KeySchema: ctlKS("pk", "l"), Projection: proj}}
		}, ctlIP + "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"},
		{"lsi other hash", func(in *wire.CreateTableInput) {
			in.KeySchema = ctlKS("pk", "sk")
			in.AttributeDefinitions = ctlDefs("pk", "S", "sk", "S", "l", "S")
			in.LocalSecondaryIndexes = []wire.LocalSecondaryIndex{{IndexName: cpPtr("lsi"), KeySchema: ctlKS("l", "sk"), Projection: proj}}
		}, ctlIP + "Index KeySchema does not have the same leading hash key as table KeySchema for index: lsi. index hash key: l, table hash key: pk"},
		{"lsi no range", func(in *wire.CreateTableInput) {
			in.KeySchema = ctlKS("pk", "sk")
			in.AttributeDefinitions = ctlDefs("pk", "S", "sk", "S")
			in.LocalSecondaryIndexes = []wire.LocalSecondaryIndex{{IndexName: cpPtr("lsi"), KeySchema: ctlKS("pk"), Projection: proj}}
		}, ctlIP + "Index KeySchema does not have a range key for index: lsi"},
		{"gsi undefined key", func(in *wire.CreateTableInput) {
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: proj}}
		}, ctlIP + "Some index key attributes are not defined in AttributeDefinitions. Keys: [g], AttributeDefinitions: [pk]"},
		{"gsi unused definition", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S", "z", "S")
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: proj}}
		}, ctlIP + "Some AttributeDefinitions are not used. AttributeDefinitions: [pk, g, z], keys used: [pk, g]"},
		{"projection null", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: &wire.Projection{}}}
		}, ctlIP + "Unknown ProjectionType: null"},
		{"projection nonkey on all", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: &wire.Projection{ProjectionType: "ALL", NonKeyAttributes: []string{"a"}}}}
		}, ctlIP + "ProjectionType is ALL, but NonKeyAttributes is specified"},
		{"duplicate index", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
			g := wire.GlobalSecondaryIndex{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: proj}
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{g, g}
		}, ctlIP + "Duplicate index name: g1"},
		{"gsi throughput on ppr", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: proj, ProvisionedThroughput: pt}}
		}, ctlIP + "ProvisionedThroughput should not be specified for index: g1 when BillingMode is PAY_PER_REQUEST"},
		{"gsi missing throughput", func(in *wire.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = "", pt
			in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
			in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("g1"), KeySchema: ctlKS("g"), Projection: proj}}
		}, ctlIP + "ProvisionedThroughput is not specified for index: g1"},
		{"stream without view", func(in *wire.CreateTableInput) {
			in.StreamSpecification = &wire.StreamSpecification{StreamEnabled: cpPtr(true)}
		}, ctlIP + "Table is being created with a stream enabled, UpdateViewType is required"},
		{"stream disabled with view", func(in *wire.CreateTableInput) {
			in.StreamSpecification = &wire.StreamSpecification{StreamEnabled: cpPtr(false), StreamViewType: "KEYS_ONLY"}
		}, ctlIP + "Table is being created with a stream disabled, UpdateViewType should not be specified"},
		{"sse type with disabled", func(in *wire.CreateTableInput) {
			in.SSESpecification = &wire.SSESpecification{Enabled: cpPtr(false), SSEType: "KMS"}
		}, ctlIP + "SSEType can not be specified if Enabled is false"},
		{"bad tag", func(in *wire.CreateTableInput) {
			in.Tags = []wire.Tag{{Key: cpPtr("a,b"), Value: cpPtr("v")}}
		}, "The Tag Key provided is invalid, Key: a,b"},
		{"no attribute definitions", func(in *wire.CreateTableInput) {
			in.AttributeDefinitions = []wire.AttributeDefinition{}
		}, "Invalid KeySchema: Some index key attribute have no definition"},
		{"on-demand on provisioned", func(in *wire.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = "", pt
			in.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](5)}
		}, ctlIP + "MaxReadRequestUnits for OnDemandThroughput cannot be specified when table BillingMode is PROVISIONED."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ctlPPR("tbl")
			c.mod(in)
			_, err := e.CreateTable(context.Background(), in)
			ctlWantErr(t, err, "ValidationException", c.msg)
		})
	}
	// Over 20 GSIs.
	in := ctlPPR("tbl")
	in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
	for i := 0; i < 21; i++ {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, wire.GlobalSecondaryIndex{IndexName: cpPtr("g" + strings.Repeat("x", i+2)), KeySchema: ctlKS("g"), Projection: proj})
	}
	_, err := e.CreateTable(context.Background(), in)
	ctlWantErr(t, err, "ValidationException", ctlIP+"GlobalSecondaryIndex count exceeds the per-table limit of 20")
}

func TestCtlCreateDescribeListDelete(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	in := ctlPPR("tbl")
	in.KeySchema = ctlKS("pk", "sk")
	in.AttributeDefinitions = ctlDefs("sk", "N", "pk", "S", "g", "S")
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("gsi"), KeySchema: ctlKS("g"), Projection: &wire.Projection{ProjectionType: "KEYS_ONLY"}}}
	in.LocalSecondaryIndexes = []wire.LocalSecondaryIndex{{IndexName: cpPtr("lsi"), KeySchema: ctlKS("pk", "g"), Projection: &wire.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"a"}}}}
	in.StreamSpecification = &wire.StreamSpecification{StreamEnabled: cpPtr(true), StreamViewType: "NEW_IMAGE"}
	in.Tags = []wire.Tag{{Key: cpPtr("k"), Value: cpPtr("v")}}
	out, err := e.CreateTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if d.TableStatus != StatusCreating || d.GlobalSecondaryIndexes[0].IndexStatus != StatusCreating {
		t.Fatalf("create response status %s", d.TableStatus)
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"
	if *d.TableArn != arn || *d.LatestStreamArn != arn+"/stream/"+*d.LatestStreamLabel || *d.GlobalSecondaryIndexes[0].IndexArn != arn+"/index/gsi" {
		t.Fatalf("arns %s %s", *d.TableArn, *d.LatestStreamArn)
	}
	if d.BillingModeSummary.BillingMode != BillingPayPerRequest || *d.ProvisionedThroughput.ReadCapacityUnits != 0 || *d.ProvisionedThroughput.NumberOfDecreasesToday != 0 {
		t.Fatal("billing summary")
	}
	if *d.AttributeDefinitions[0].AttributeName != "g" || *d.AttributeDefinitions[2].AttributeName != "sk" {
		t.Fatal("attribute definitions not sorted")
	}
	_, err = e.CreateTable(ctx, in)
	ctlWantErr(t, err, "ResourceInUseException", "Table already exists: tbl")

	tb, ok := e.lookupTable("tbl")
	if !ok || !tb.Active() || tb.Range == nil || tb.Range.Name != "sk" || len(tb.GSIs) != 1 || len(tb.LSIs) != 1 || tb.LSIs[0].NonKey[0] != "a" {
		t.Fatalf("lookup: %+v", tb)
	}
	e.addStats(tb, 3, 300)
	dt, err := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if dt.Table.TableStatus != StatusActive || *dt.Table.ItemCount != 3 || *dt.Table.TableSizeBytes != 300 || dt.Table.GlobalSecondaryIndexes[0].IndexStatus != StatusActive {
		t.Fatalf("describe: %+v", dt.Table)
	}
	_, err = e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("nope")})
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")

	for _, n := range []string{"b-t", "a-t", "c-t"} {
		if _, err := e.CreateTable(ctx, ctlPPR(n)); err != nil {
			t.Fatal(err)
		}
	}
	lt, _ := e.ListTables(ctx, &wire.ListTablesInput{Limit: cpPtr[int32](2)})
	if strings.Join(lt.TableNames, ",") != "a-t,b-t" || *lt.LastEvaluatedTableName != "b-t" {
		t.Fatalf("list: %v", lt.TableNames)
	}
	lt, _ = e.ListTables(ctx, &wire.ListTablesInput{ExclusiveStartTableName: cpPtr("b-t")})
	if strings.Join(lt.TableNames, ",") != "c-t,tbl" || lt.LastEvaluatedTableName != nil {
		t.Fatalf("list 2: %v", lt.TableNames)
	}

	del, err := e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("tbl")})
	if err != nil || del.TableDescription.TableStatus != StatusDeleting {
		t.Fatalf("delete: %v", err)
	}
	if _, ok := e.lookupTable("tbl"); ok {
		t.Fatal("deleted table still visible")
	}
	_, err = e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("tbl")})
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: tbl not found")
	out2, err := e.CreateTable(ctx, ctlPPR("tbl"))
	if err != nil {
		t.Fatal(err)
	}
	if nt, _ := e.lookupTable("tbl"); nt.ID == tb.ID || *out2.TableDescription.ItemCount != 0 {
		t.Fatal("recreated table reuses the old ID or stats")
	}
}

func TestCtlDeletionProtectionAndDelays(t *testing.T) {
	ctx := context.Background()
	clk := &ctlClock{}
	e := ctlOpen(t, Config{Clock: clk, CreateDelay: 1e9, DeleteDelay: 1e9})
	in := ctlPPR("tbl")
	in.DeletionProtectionEnabled = cpPtr(true)
	if _, err := e.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	tb, _ := e.lookupTable("tbl")
	if tb.Active() || tb.Status != StatusCreating {
		t.Fatal("should be CREATING")
	}
	_, err := e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("tbl")})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: tbl")
	clk.advance(2e9)
	if tb, _ = e.lookupTable("tbl"); !tb.Active() {
		t.Fatal("should be ACTIVE")
	}
	_, err = e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("tbl")})
	ctlWantErr(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	if _, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("tbl"), DeletionProtectionEnabled: cpPtr(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("tbl")}); err != nil {
		t.Fatal(err)
	}
	tb, ok := e.lookupTable("tbl")
	if !ok || tb.Status != StatusDeleting || tb.Active() {
		t.Fatal("should be DELETING")
	}
	_, err = e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("tbl")})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being deleted: tbl")
	clk.advance(2e9)
	if _, ok := e.lookupTable("tbl"); ok {
		t.Fatal("should be gone")
	}
}

// ctlClock is a settable Clock for tests.
type ctlClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *ctlClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	return c.now
}

func (c *ctlClock) advance(d time.Duration) {
	n := c.Now().Add(d)
	c.mu.Lock()
	c.now = n
	c.mu.Unlock()
}
