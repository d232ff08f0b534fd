package engine

import (
	"context"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// Throughput rules of CreateTable and UpdateTable, as live DynamoDB probes
// (October 2026) recorded them.

func ctlPT(r, w int64) *wire.ProvisionedThroughput {
	return &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr(r), WriteCapacityUnits: cpPtr(w)}
}

func ctlProvisioned(name string, r, w int64) *wire.CreateTableInput {
	in := ctlPPR(name)
	in.BillingMode, in.ProvisionedThroughput = BillingProvisioned, ctlPT(r, w)
	return in
}

func TestCtlThroughputLimits(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{Region: "eu-west-2"})
	_, err := e.CreateTable(ctx, ctlProvisioned("big", 40001, 1))
	ctlWantErr(t, err, "LimitExceededException", "The requested ReadCapacityUnits, 40001, is above the per table maximum for the account in eu-west-2. "+
		"Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	if _, err := e.CreateTable(ctx, ctlProvisioned("tbl", 1, 1)); err != nil {
		t.Fatal(err)
	}
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("tbl"), ProvisionedThroughput: ctlPT(1, 40001)})
	ctlWantErr(t, err, "LimitExceededException", "The requested WriteCapacityUnits, 40001, is above the per table maximum for the account in eu-west-2. "+
		"Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")

	in := ctlPPR("warm")
	in.WarmThroughput = &wire.WarmThroughput{ReadUnitsPerSecond: cpPtr[int64](1), WriteUnitsPerSecond: cpPtr[int64](1)}
	_, err = e.CreateTable(ctx, in)
	ctlWantErr(t, err, "ValidationException", ctlIP+"Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. "+
		"See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial")
	in = ctlProvisioned("warm", 10, 10)
	in.WarmThroughput = &wire.WarmThroughput{ReadUnitsPerSecond: cpPtr[int64](5), WriteUnitsPerSecond: cpPtr[int64](5)}
	_, err = e.CreateTable(ctx, in)
	ctlWantErr(t, err, "ValidationException", ctlIP+"Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput")

	in = ctlProvisioned("odt", 1, 1)
	in.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](100)}
	_, err = e.CreateTable(ctx, in)
	ctlWantErr(t, err, "ValidationException", ctlIP+"MaxReadRequestUnits for OnDemandThroughput cannot be specified when table BillingMode is PROVISIONED.")
}

func TestCtlBillingModeRequests(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	name := cpPtr("tbl")
	if _, err := e.CreateTable(ctx, ctlProvisioned("tbl", 1, 1)); err != nil {
		t.Fatal(err)
	}
	_, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, BillingMode: BillingProvisioned})
	ctlWantErr(t, err, "ValidationException", ctlIP+"ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, BillingMode: BillingPayPerRequest, ProvisionedThroughput: ctlPT(1, 1)})
	ctlWantErr(t, err, "ValidationException", ctlIP+"ProvisionedThroughput cannot be specified when BillingMode is PAY_PER_REQUEST")

	// WarmThroughput follows the highest capacity ever provisioned, and
	// an on-demand table's 12000/4000 after a switch.
	warm := func(r, w int64) {
		t.Helper()
		d, err := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Table.WarmThroughput; cpDeref(got.ReadUnitsPerSecond) != r || cpDeref(got.WriteUnitsPerSecond) != w {
			t.Fatalf("WarmThroughput %d/%d, want %d/%d", cpDeref(got.ReadUnitsPerSecond), cpDeref(got.WriteUnitsPerSecond), r, w)
		}
	}
	for _, pt := range []*wire.ProvisionedThroughput{ctlPT(2, 2), ctlPT(3, 3), ctlPT(1, 1)} {
		if _, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, ProvisionedThroughput: pt}); err != nil {
			t.Fatal(err)
		}
	}
	warm(3, 3)
	up, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, BillingMode: BillingPayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	if s := up.TableDescription.BillingModeSummary; s.BillingMode != BillingPayPerRequest || s.LastUpdateToPayPerRequestDateTime != nil {
		t.Errorf("switch response BillingModeSummary %+v, want PAY_PER_REQUEST without its time", s)
	}
	warm(12000, 4000)

	// A re-sent BillingMode answers UPDATING; the table stays ACTIVE.
	up, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, BillingMode: BillingPayPerRequest})
	if err != nil || up.TableDescription.TableStatus != StatusUpdating {
		t.Fatalf("re-sent BillingMode: %v %v", err, up)
	}
	if d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name}); d.Table.TableStatus != StatusActive {
		t.Fatalf("after a re-sent BillingMode: %s", d.Table.TableStatus)
	}

	// TableClass STANDARD on a table that never set a class changes nothing.
	up, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, TableClass: "STANDARD"})
	if err != nil || up.TableDescription.TableStatus != StatusUpdating || up.TableDescription.TableClassSummary != nil {
		t.Fatalf("TableClass STANDARD: %v %+v", err, up)
	}
	if d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name}); d.Table.TableClassSummary != nil {
		t.Fatalf("TableClassSummary after STANDARD: %+v", d.Table.TableClassSummary)
	}
}

func TestCtlCreateTableResponseShape(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	out, err := e.CreateTable(ctx, ctlPPR("tbl"))
	if err != nil {
		t.Fatal(err)
	}
	if d := out.TableDescription; d.WarmThroughput != nil || d.BillingModeSummary.LastUpdateToPayPerRequestDateTime != nil {
		t.Errorf("CreateTable response: WarmThroughput %+v, BillingModeSummary %+v; want neither the warm figures nor the switch time", d.WarmThroughput, d.BillingModeSummary)
	}
	d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("tbl")})
	if d.Table.WarmThroughput == nil || d.Table.BillingModeSummary.LastUpdateToPayPerRequestDateTime == nil {
		t.Errorf("DescribeTable: %+v %+v", d.Table.WarmThroughput, d.Table.BillingModeSummary)
	}
}

func TestCtlIndexThroughputUpdates(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	in := ctlPPR("tbl")
	in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("gsi1"), KeySchema: ctlKS("g"),
		Projection:         &wire.Projection{ProjectionType: "ALL"},
		OnDemandThroughput: &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](5000), MaxWriteRequestUnits: cpPtr[int64](5000)}}}
	if _, err := e.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	update := func(u wire.UpdateGlobalSecondaryIndexAction) error {
		_, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("tbl"), GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Update: &u}}})
		return err
	}
	if err := update(wire.UpdateGlobalSecondaryIndexAction{IndexName: cpPtr("gsi1"), OnDemandThroughput: &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](6000)}}); err != nil {
		t.Fatal(err)
	}
	d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("tbl")})
	if o := d.Table.GlobalSecondaryIndexes[0].OnDemandThroughput; cpDeref(o.MaxReadRequestUnits) != 6000 || cpDeref(o.MaxWriteRequestUnits) != 5000 {
		t.Errorf("GSI OnDemandThroughput %+v, want 6000/5000 (members merge)", o)
	}
	err := update(wire.UpdateGlobalSecondaryIndexAction{IndexName: cpPtr("gsi1"), WarmThroughput: &wire.WarmThroughput{ReadUnitsPerSecond: cpPtr[int64](-1)}})
	ctlWantErr(t, err, "ValidationException", ctlIP+"Requested ReadUnitsPerSecond for WarmThroughput for index gsi1 is lower than current WarmThroughput, decreasing WarmThroughput is not supported")
}

// TestCtlDecreaseBudget: four decreases per table and UTC day, then one an
// hour after the last (or at midnight UTC, whichever comes first); a
// refused decrease changes nothing; increases are never limited.
func TestCtlDecreaseBudget(t *testing.T) {
	ctx := context.Background()
	clk := &ctlClock{now: time.Date(2026, 10, 9, 0, 21, 34, 0, time.UTC)}
	e := ctlOpen(t, Config{Clock: clk})
	name := cpPtr("tbl")
	if _, err := e.CreateTable(ctx, ctlProvisioned("tbl", 10, 10)); err != nil {
		t.Fatal(err)
	}
	set := func(r, w int64) error {
		_, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, ProvisionedThroughput: ctlPT(r, w)})
		return err
	}
	for _, r := range []int64{9, 8, 7, 6} {
		if err := set(r, 10); err != nil {
			t.Fatalf("decrease to %d: %v", r, err)
		}
	}
	msg := "Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. " +
		"After the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. " +
		"Number of decreases today: 4. Last decrease at Friday, October 9, 2026 at 12:21:34 AM Coordinated Universal Time. " +
		"Next decrease can be made at Friday, October 9, 2026 at 1:21:34 AM Coordinated Universal Time"
	ctlWantErr(t, set(5, 10), "LimitExceededException", msg)
	ctlWantErr(t, set(5, 11), "LimitExceededException", msg) // one dimension down is a decrease
	if err := set(7, 11); err != nil {
		t.Fatalf("increase: %v", err)
	}
	clk.advance(time.Hour - time.Second)
	if set(6, 11) == nil {
		t.Fatal("a decrease 3599 s after the last was allowed")
	}
	clk.advance(time.Second)
	if err := set(6, 11); err != nil {
		t.Fatalf("a decrease 3600 s after the last: %v", err)
	}
	d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
	if n := cpDeref(d.Table.ProvisionedThroughput.NumberOfDecreasesToday); n != 5 {
		t.Fatalf("NumberOfDecreasesToday %d, want 5", n)
	}
	// Late in the day the next decrease is due at midnight UTC, and the
	// count starts again then.
	clk.advance(22*time.Hour + 30*time.Minute) // 2026-10-09 23:51:34
	if err := set(5, 11); err != nil {
		t.Fatal(err)
	}
	err := set(4, 11)
	ctlWantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. "+
		"After the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. "+
		"Number of decreases today: 6. Last decrease at Friday, October 9, 2026 at 11:51:34 PM Coordinated Universal Time. "+
		"Next decrease can be made at Saturday, October 10, 2026 at 12:00:00 AM Coordinated Universal Time")
	clk.advance(9 * time.Minute)
	d, _ = e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
	if n := cpDeref(d.Table.ProvisionedThroughput.NumberOfDecreasesToday); n != 0 {
		t.Fatalf("NumberOfDecreasesToday after midnight %d, want 0", n)
	}
	for _, r := range []int64{4, 3, 2, 1} {
		if err := set(r, 11); err != nil {
			t.Fatalf("decrease to %d after midnight: %v", r, err)
		}
	}
}

// TestCtlTableClassBudget: two table class changes per table in 30 days;
// once spent, even a request for the current class is refused.
func TestCtlTableClassBudget(t *testing.T) {
	ctx := context.Background()
	clk := &ctlClock{}
	e := ctlOpen(t, Config{Clock: clk})
	if _, err := e.CreateTable(ctx, ctlPPR("tbl")); err != nil {
		t.Fatal(err)
	}
	class := func(c string) error {
		_, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("tbl"), TableClass: c})
		return err
	}
	for _, c := range []string{"STANDARD", "STANDARD_INFREQUENT_ACCESS", "STANDARD_INFREQUENT_ACCESS", "STANDARD"} {
		if err := class(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	const msg = "Subscriber limit exceeded: Updates to TableClass are limited to 2 times in 30 day(s)."
	ctlWantErr(t, class("STANDARD_INFREQUENT_ACCESS"), "LimitExceededException", msg)
	ctlWantErr(t, class("STANDARD"), "LimitExceededException", msg)
	clk.advance(30 * 24 * time.Hour)
	if err := class("STANDARD_INFREQUENT_ACCESS"); err != nil {
		t.Fatalf("after 30 days: %v", err)
	}
	d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("tbl")})
	if c := tables.ClassOf(d.Table); c != "STANDARD_INFREQUENT_ACCESS" {
		t.Fatalf("class %s", c)
	}
}

// TestCtlThroughputResponses: what UpdateTable and CreateTable answer for
// warm and on-demand throughput and a switch to PROVISIONED (live probes,
// October 2026: DDB-TABLE-179, 178, 055).
func TestCtlThroughputResponses(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	name := cpPtr("tbl")
	if _, err := e.CreateTable(ctx, ctlPPR("tbl")); err != nil {
		t.Fatal(err)
	}
	up, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, WarmThroughput: &wire.WarmThroughput{ReadUnitsPerSecond: cpPtr[int64](13000), WriteUnitsPerSecond: cpPtr[int64](5000)}})
	if err != nil {
		t.Fatal(err)
	}
	if w := up.TableDescription.WarmThroughput; cpDeref(w.ReadUnitsPerSecond) != 12000 || cpDeref(w.WriteUnitsPerSecond) != 4000 || w.Status != StatusUpdating || up.TableDescription.TableStatus != StatusActive {
		t.Errorf("warm response %+v %s, want the previous 12000/4000 UPDATING on an ACTIVE table", w, up.TableDescription.TableStatus)
	}
	d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
	if w := d.Table.WarmThroughput; cpDeref(w.ReadUnitsPerSecond) != 13000 || w.Status != StatusActive {
		t.Errorf("described warm %+v", w)
	}

	if _, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, OnDemandThroughput: &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](1000), MaxWriteRequestUnits: cpPtr[int64](500)}}); err != nil {
		t.Fatal(err)
	}
	up, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, OnDemandThroughput: &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](-1)}})
	if err != nil {
		t.Fatal(err)
	}
	if o := up.TableDescription.OnDemandThroughput; cpDeref(o.MaxReadRequestUnits) != -1 || cpDeref(o.MaxWriteRequestUnits) != 500 {
		t.Errorf("on-demand response %+v, want -1/500", o)
	}
	d, _ = e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
	if o := d.Table.OnDemandThroughput; o.MaxReadRequestUnits != nil || cpDeref(o.MaxWriteRequestUnits) != 500 {
		t.Errorf("described on-demand %+v, want only the write limit", o)
	}

	if _, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, BillingMode: BillingProvisioned, ProvisionedThroughput: ctlPT(1, 1)}); err != nil {
		t.Fatal(err)
	}
	d, _ = e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
	if pt := d.Table.ProvisionedThroughput; pt.LastIncreaseDateTime != nil || cpDeref(pt.ReadCapacityUnits) != 1 {
		t.Errorf("after the switch to PROVISIONED: %+v, want 1/1 with no increase time", pt)
	}

	in := ctlPPR("warm")
	in.WarmThroughput = &wire.WarmThroughput{ReadUnitsPerSecond: cpPtr[int64](12001), WriteUnitsPerSecond: cpPtr[int64](4001)}
	out, err := e.CreateTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if w := out.TableDescription.WarmThroughput; w == nil || w.Status != StatusUpdating || cpDeref(w.ReadUnitsPerSecond) != 12001 {
		t.Errorf("CreateTable response warm %+v, want 12001/4001 UPDATING", w)
	}
}

func TestCtlOnDemandCaps(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	in := ctlPPR("big")
	in.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](40001)}
	_, err := e.CreateTable(ctx, in)
	ctlWantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Requested MaxReadRequestUnits for OnDemandThroughput for table exceeds TableMaxReadCapacityUnits of the account in region us-east-1")
	in = ctlPPR("tbl")
	in.AttributeDefinitions = ctlDefs("pk", "S", "g", "S")
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("gsi1"), KeySchema: ctlKS("g"), Projection: &wire.Projection{ProjectionType: "ALL"}}}
	if _, err := e.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("tbl"), OnDemandThroughput: &wire.OnDemandThroughput{MaxWriteRequestUnits: cpPtr[int64](40001)}})
	ctlWantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Requested MaxWriteRequestUnits for OnDemandThroughput for table exceeds TableMaxWriteCapacityUnits of the account in region us-east-1")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("tbl"), GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Update: &wire.UpdateGlobalSecondaryIndexAction{
		IndexName: cpPtr("gsi1"), OnDemandThroughput: &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](40001)}}}}})
	ctlWantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Requested MaxReadRequestUnits for OnDemandThroughput for index : gsi1 exceeds TableMaxReadCapacityUnits of the account in region us-east-1")
}

// TestCtlOnDemandOrder: an UpdateTable OnDemandThroughput on a PROVISIONED
// table is refused for the billing mode before its range is checked; on an
// on-demand table the range is checked (eu-west-2, 2026-07-24, captured by
// another emulator's authors).
func TestCtlOnDemandOrder(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	if _, err := e.CreateTable(ctx, ctlProvisioned("prov", 5, 5)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(ctx, ctlPPR("ppr")); err != nil {
		t.Fatal(err)
	}
	zero := &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr[int64](0)}
	_, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("prov"), OnDemandThroughput: zero})
	ctlWantErr(t, err, "ValidationException", ctlIP+"MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("ppr"), OnDemandThroughput: zero})
	ctlWantErr(t, err, "ValidationException", ctlIP+"Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range")
}
