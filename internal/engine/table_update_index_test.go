package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/wire"
)

// The answers below are DynamoDB's as probed live (us-east-1/us-west-2,
// October 2026) by a public catalogue of DynamoDB API behaviours.

// gsiUpdate is an UpdateTable of table with the given index updates.
// gsiUpdate is an UpdateTable of table's GSIs; a Create comes with the
// definition of g (S), the key these tests' indexes use.
func gsiUpdate(table string, ups ...wire.GlobalSecondaryIndexUpdate) *wire.UpdateTableInput {
	in := &wire.UpdateTableInput{TableName: cpPtr(table), GlobalSecondaryIndexUpdates: ups}
	for _, u := range ups {
		if u.Create != nil {
			in.AttributeDefinitions = ctlDefs("g", "S")
		}
	}
	return in
}

func TestUpdateTableIndexAnswers(t *testing.T) {
	e := ctlOpen(t, Config{})
	in := &wire.CreateTableInput{TableName: cpPtr("T"), BillingMode: BillingProvisioned,
		KeySchema: ctlKS("pk"), AttributeDefinitions: ctlDefs("pk", "S", "g", "S"),
		ProvisionedThroughput: &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](2), WriteCapacityUnits: cpPtr[int64](2)},
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: cpPtr("gsi1"), KeySchema: ctlKS("g"),
			Projection:            &wire.Projection{ProjectionType: ProjectInclude, NonKeyAttributes: []string{"zz", "aa", "mm"}},
			ProvisionedThroughput: &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](2), WriteCapacityUnits: cpPtr[int64](2)}}}}
	out, err := e.CreateTable(dpCtx, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.TableDescription.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes; !slices.Equal(got, []string{"aa", "mm", "zz"}) {
		t.Fatalf("NonKeyAttributes described %v, want them sorted by name", got)
	}
	// The CreateTable response leaves the indexes' WarmThroughput out;
	// DescribeTable shows it.
	if w := out.TableDescription.GlobalSecondaryIndexes[0].WarmThroughput; w != nil {
		t.Fatalf("CreateTable response: GSI WarmThroughput %+v", w)
	}
	if d, _ := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: cpPtr("T")}); d.Table.GlobalSecondaryIndexes[0].WarmThroughput == nil {
		t.Fatal("DescribeTable: no GSI WarmThroughput")
	}

	pt := func(r, w int64) *wire.ProvisionedThroughput {
		return &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr(r), WriteCapacityUnits: cpPtr(w)}
	}
	_, err = e.UpdateTable(dpCtx, gsiUpdate("T", wire.GlobalSecondaryIndexUpdate{Update: &wire.UpdateGlobalSecondaryIndexAction{IndexName: cpPtr("ghost"), ProvisionedThroughput: pt(3, 3)}}))
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Index ghost for table T")
	_, err = e.UpdateTable(dpCtx, gsiUpdate("T", wire.GlobalSecondaryIndexUpdate{Delete: &wire.DeleteGlobalSecondaryIndexAction{IndexName: cpPtr("ghost")}}))
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Index ghost for table T")

	_, err = e.UpdateTable(dpCtx, gsiUpdate("T", wire.GlobalSecondaryIndexUpdate{Update: &wire.UpdateGlobalSecondaryIndexAction{IndexName: cpPtr("gsi1"), ProvisionedThroughput: pt(2, 2)}}))
	ctlWantErr(t, err, "ValidationException", "The provisioned throughput for the index gsi1 will not change. The requested value equals the current value. "+
		"Current ReadCapacityUnits provisioned for index gsi1: 2. Requested ReadCapacityUnits: 2. "+
		"Current WriteCapacityUnits provisioned for index gsi1: 2. Requested WriteCapacityUnits: 2. "+
		"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")

	create := func(name string) wire.GlobalSecondaryIndexUpdate {
		return wire.GlobalSecondaryIndexUpdate{Create: &wire.CreateGlobalSecondaryIndexAction{IndexName: cpPtr(name), KeySchema: ctlKS("g"),
			Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}, ProvisionedThroughput: pt(1, 1)}}
	}
	warm := gsiUpdate("T", create("gsi2"))
	warm.WarmThroughput = &wire.WarmThroughput{ReadUnitsPerSecond: cpPtr[int64](20000)}
	_, err = e.UpdateTable(dpCtx, warm)
	ctlWantErr(t, err, "ValidationException", ctlIP+"Create global secondary index cannot be specified when updating WarmThroughput")

	// An empty list counts as absent on its own, and refuses the request
	// (nothing applied) beside another change.
	empty := gsiUpdate("T")
	empty.GlobalSecondaryIndexUpdates = []wire.GlobalSecondaryIndexUpdate{}
	_, err = e.UpdateTable(dpCtx, empty)
	if err == nil {
		t.Fatal("an UpdateTable with only an empty GlobalSecondaryIndexUpdates list was accepted")
	}
	empty.DeletionProtectionEnabled = cpPtr(true)
	_, err = e.UpdateTable(dpCtx, empty)
	ctlWantErr(t, err, "ValidationException", ctlIP+"List of GlobalSecondaryIndexUpdates is empty")
	if d, _ := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: cpPtr("T")}); cpDeref(d.Table.DeletionProtectionEnabled) {
		t.Fatal("the refused request's deletion protection was applied")
	}

	for i := 2; i <= 20; i++ {
		if _, err := e.UpdateTable(dpCtx, gsiUpdate("T", create(fmt.Sprint("gsi", i)))); err != nil {
			t.Fatal(err)
		}
		waitBackfill(t, e, "T", fmt.Sprint("gsi", i), 10*time.Second)
	}
	_, err = e.UpdateTable(dpCtx, gsiUpdate("T", create("gsi21")))
	ctlWantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20")
}

// DeleteTable is refused while an index is being created, backfilled or
// deleted, even though the table itself is ACTIVE.
func TestDeleteTableWhileIndexesChange(t *testing.T) {
	clk := &ctlClock{}
	e := ctlOpen(t, Config{Clock: clk, CreateDelay: time.Second})
	if _, err := e.CreateTable(dpCtx, ctlPPR("T")); err != nil {
		t.Fatal(err)
	}
	clk.advance(2 * time.Second)
	const busy = "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted."
	addGSI(t, e, "T", "G", "g")
	_, err := e.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: cpPtr("T")})
	ctlWantErr(t, err, "ResourceInUseException", busy)
	clk.advance(2 * time.Second)
	waitBackfill(t, e, "T", "G", 10*time.Second)
	if err := deleteGSI(e, "T", "G"); err != nil {
		t.Fatal(err)
	}
	_, err = e.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: cpPtr("T")})
	ctlWantErr(t, err, "ResourceInUseException", busy)
	clk.advance(2 * time.Second)
	if _, err := e.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: cpPtr("T")}); err != nil {
		t.Fatal(err)
	}
}

// An UpdateTable response shows a GSI whose throughput it changes as
// UPDATING with its previous throughput, the table ACTIVE; DescribeTable
// then shows the new throughput (live DynamoDB probes, October 2026).
func TestUpdateTableGSIThroughputResponse(t *testing.T) {
	e := ctlOpen(t, Config{})
	pt := func(n int64) *wire.ProvisionedThroughput {
		return &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr(n), WriteCapacityUnits: cpPtr(n)}
	}
	if _, err := e.CreateTable(dpCtx, &wire.CreateTableInput{TableName: cpPtr("T"), BillingMode: BillingProvisioned,
		KeySchema: ctlKS("pk"), AttributeDefinitions: ctlDefs("pk", "S", "g", "S"), ProvisionedThroughput: pt(1),
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: cpPtr("gsi1"), KeySchema: ctlKS("g"),
			Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}, ProvisionedThroughput: pt(1)}}}); err != nil {
		t.Fatal(err)
	}
	out, err := e.UpdateTable(dpCtx, gsiUpdate("T", wire.GlobalSecondaryIndexUpdate{Update: &wire.UpdateGlobalSecondaryIndexAction{IndexName: cpPtr("gsi1"), ProvisionedThroughput: pt(2)}}))
	if err != nil {
		t.Fatal(err)
	}
	g := out.TableDescription.GlobalSecondaryIndexes[0]
	if out.TableDescription.TableStatus != StatusActive || g.IndexStatus != StatusUpdating || cpDeref(g.ProvisionedThroughput.ReadCapacityUnits) != 1 {
		t.Fatalf("response: table %s, index %s, read units %d", out.TableDescription.TableStatus, g.IndexStatus, cpDeref(g.ProvisionedThroughput.ReadCapacityUnits))
	}
	d, _ := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: cpPtr("T")})
	if g := d.Table.GlobalSecondaryIndexes[0]; cpDeref(g.ProvisionedThroughput.ReadCapacityUnits) != 2 {
		t.Fatalf("DescribeTable: read units %d", cpDeref(g.ProvisionedThroughput.ReadCapacityUnits))
	}
}
