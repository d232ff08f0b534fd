package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

func pitrEntries(t *testing.T, e *Engine, tableID uint64) int {
	t.Helper()
	return keysIn(t, e, pitr.Prefix(tableID), pitr.Prefix(tableID+1))
}

func setPITR(t *testing.T, e *Engine, table string, on bool, days int32) {
	t.Helper()
	spec := &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: cpPtr(on)}
	if days > 0 {
		spec.RecoveryPeriodInDays = cpPtr(days)
	}
	if _, err := e.UpdateContinuousBackups(dpCtx, &wire.UpdateContinuousBackupsInput{TableName: dpStr(table), PointInTimeRecoverySpecification: spec}); err != nil {
		t.Fatal(err)
	}
}

// Images are kept only while recovery is on and only for its window: the
// trim pass drops older ones, disabling drops them all, a deleted table's
// go with it.
func TestPITRImagesKeptForTheWindow(t *testing.T) {
	clk := &ctlClock{}
	e, err := Open(memory.New(), Config{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.CreateTable(dpCtx, ctlPPR("t")); err != nil {
		t.Fatal(err)
	}
	dpPut(t, e, "t", attr.Item{"pk": dpS("before")})
	id := mustTable(t, e, "t").ID
	if n := pitrEntries(t, e, id); n != 0 {
		t.Fatalf("%d images without recovery on", n)
	}
	setPITR(t, e, "t", true, 1)
	dpPut(t, e, "t", attr.Item{"pk": dpS("a")})
	dpPut(t, e, "t", attr.Item{"pk": dpS("a"), "v": dpS("2")})
	if n := pitrEntries(t, e, id); n != 2 {
		t.Fatalf("%d images after two changes", n)
	}
	clk.advance(25 * time.Hour)
	dpPut(t, e, "t", attr.Item{"pk": dpS("b")})
	e.trimPITRWindows()
	if n := pitrEntries(t, e, id); n != 1 {
		t.Fatalf("%d images after the trim, want the one inside the 1-day window", n)
	}
	setPITR(t, e, "t", false, 0)
	waitFor(t, "images dropped on disable", func() bool { return pitrEntries(t, e, id) == 0 })
	setPITR(t, e, "t", true, 0)
	dpPut(t, e, "t", attr.Item{"pk": dpS("c")})
	if _, err := e.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: dpStr("t")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "images dropped with the table", func() bool { return pitrEntries(t, e, id) == 0 })
}

// openWithPITRTable opens an engine over store with the clock clk and
// creates table t, with point-in-time recovery on, holding the n items
// item gives. The caller closes the engine.
func openWithPITRTable(t *testing.T, store storage.Store, clk Clock, n int, item func(int) attr.Item) *Engine {
	t.Helper()
	e, err := Open(store, Config{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(dpCtx, ctlPPR("t")); err != nil {
		t.Fatal(err)
	}
	setPITR(t, e, "t", true, 0)
	for i := 0; i < n; i++ {
		dpPut(t, e, "t", item(i))
	}
	return e
}

func mustTable(t *testing.T, e *Engine, name string) *Table {
	t.Helper()
	tb, ok := e.lookupTable(name)
	if !ok {
		t.Fatalf("no table %s", name)
	}
	return tb
}

// A point-in-time restore a stop interrupted starts over at the next Open
// and ends with the items as they were at the restore time.
func TestPITRRestoreResumesAfterStop(t *testing.T) {
	clk := &ctlClock{}
	store := memory.New()
	e := openWithPITRTable(t, store, clk, 300, func(i int) attr.Item { return attr.Item{"pk": dpS(fmt.Sprint(i)), "v": dpS("old")} })
	var err error
	clk.advance(10 * time.Minute)
	at := clk.Now().Add(-time.Minute)
	for i := 0; i < 300; i += 2 {
		dpPut(t, e, "t", attr.Item{"pk": dpS(fmt.Sprint(i)), "v": dpS("new")})
	}
	clk.advance(10 * time.Minute)
	withoutBackground(e, func() {
		if _, err := e.RestoreTableToPointInTime(dpCtx, &wire.RestoreTableToPointInTimeInput{SourceTableName: dpStr("t"),
			TargetTableName: dpStr("r"), RestoreDateTime: wire.NewTime(at)}); err != nil {
			t.Fatal(err)
		}
	})
	e = reopen(t, e, store, Config{Clock: clk})
	defer e.Close()
	waitFor(t, "restored table ACTIVE", func() bool {
		out, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr("r")})
		return err == nil && out.Table.TableStatus == StatusActive
	})
	scan, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("r"), FilterExpression: dpStr("v = :v"),
		ExpressionAttributeValues: map[string]attr.Value{":v": dpS("old")}, Select: "COUNT"})
	if err != nil || cpDeref(scan.Count) != 300 {
		t.Fatalf("restored items as they were: %v %+v", err, scan)
	}
	if tb := mustTable(t, e, "r"); tb.rec.RestoreSource != 0 || tb.Desc.RestoreSummary != nil {
		t.Fatalf("finished restore still marked: %+v", tb.rec)
	}
}

// A write still holding the table's version from before recovery was
// turned on writes its image all the same: the window it starts covers it.
func TestPITRImagesFromAnOlderTableVersion(t *testing.T) {
	e := ctlOpen(t, Config{})
	if _, err := e.CreateTable(dpCtx, ctlPPR("t")); err != nil {
		t.Fatal(err)
	}
	before := mustTable(t, e, "t")
	setPITR(t, e, "t", true, 0)
	w := itemWrite{table: before, key: before.primaryKeyOf(attr.Item{"pk": dpS("a")}),
		apply: func(attr.Item) (attr.Item, error) { return attr.Item{"pk": dpS("a")}, nil }}
	if _, err := e.writeItem(dpCtx, w); err != nil {
		t.Fatal(err)
	}
	if n := pitrEntries(t, e, before.ID); n != 1 {
		t.Fatalf("%d images from a write holding the older version, want 1", n)
	}
}
