package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// withoutBackground runs f with background work held back (goBackground
// starts nothing while the engine counts as closed): the state a stop
// leaves when it comes right after the request.
func withoutBackground(e *Engine, f func()) {
	e.ddl.Lock()
	e.closed = true
	e.ddl.Unlock()
	defer func() {
		e.ddl.Lock()
		e.closed = false
		e.ddl.Unlock()
	}()
	f()
}

// reopen closes e and opens a new engine over its store, as a restart.
func reopen(t *testing.T, e *Engine, store storage.Store, cfg Config) *Engine {
	t.Helper()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err := Open(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("%s: timed out", what)
}

// A backup whose copy a stop interrupted is copied at the next Open, and a
// restore a stop interrupted starts over and ends ACTIVE with every item
// and its index entries.
func TestBackupAndRestoreResumeAfterStop(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(dpCtx, ctlPPRWithGSI("t", "g", ProjectAll)); err != nil {
		t.Fatal(err)
	}
	const n = 600
	for i := 0; i < n; i++ {
		dpPut(t, e, "t", attr.Item{"pk": dpS(fmt.Sprint(i)), "g": dpS(fmt.Sprint(i % 4))})
	}
	var arn *string
	withoutBackground(e, func() {
		out, err := e.CreateBackup(dpCtx, &wire.CreateBackupInput{TableName: dpStr("t"), BackupName: dpStr("bk")})
		if err != nil {
			t.Fatal(err)
		}
		arn = out.BackupDetails.BackupArn
	})
	if b, _ := e.backup(*arn); b.Status != backup.Creating {
		t.Fatalf("backup status %s before the stop", b.Status)
	} else {
		// What a copy interrupted by the stop may have written: an item
		// the table no longer has must not survive the copy at Open.
		stale := append(backup.ItemPrefix(b.ID), itemSuffix(mustTable(t, e, "t").storageKey(primaryKey{pk: dpS("gone")}))...)
		if err := e.commit(false, func(txn storage.Txn) error { return txn.Set(stale, attr.AppendItem(nil, attr.Item{"pk": dpS("gone")})) }); err != nil {
			t.Fatal(err)
		}
	}

	e = reopen(t, e, store, Config{})
	waitFor(t, "backup AVAILABLE", func() bool {
		out, err := e.DescribeBackup(dpCtx, &wire.DescribeBackupInput{BackupArn: arn})
		return err == nil && out.BackupDescription.BackupDetails.BackupStatus == backupAvailable
	})
	withoutBackground(e, func() {
		out, err := e.RestoreTableFromBackup(dpCtx, &wire.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: dpStr("r")})
		if err != nil || out.TableDescription.TableStatus != StatusCreating {
			t.Fatalf("restore: %v %+v", err, out)
		}
	})

	e = reopen(t, e, store, Config{})
	defer e.Close()
	waitFor(t, "restored table ACTIVE", func() bool {
		out, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr("r")})
		return err == nil && out.Table.TableStatus == StatusActive && out.Table.RestoreSummary == nil
	})
	scan, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("r"), Select: "COUNT"})
	if err != nil || cpDeref(scan.Count) != n {
		t.Fatalf("restored items: %v %+v", err, scan)
	}
	q, err := e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("r"), IndexName: dpStr("G"), Select: "COUNT",
		KeyConditionExpression: dpStr("g = :g"), ExpressionAttributeValues: map[string]attr.Value{":g": dpS("1")}})
	if err != nil || cpDeref(q.Count) != n/4 {
		t.Fatalf("restored GSI: %v %+v", err, q)
	}
	// The backup is free again: it can be deleted.
	if _, err := e.DeleteBackup(dpCtx, &wire.DeleteBackupInput{BackupArn: arn}); err != nil {
		t.Fatal(err)
	}
}

// A system backup keeps the deleted table's items through the table's
// purge, also one resumed at Open, and drops them when it expires.
func TestSystemBackupKeepsItemsUntilExpiry(t *testing.T) {
	clk := &ctlClock{}
	store := memory.New()
	e := openWithPITRTable(t, store, clk, 700, func(i int) attr.Item { return attr.Item{"pk": dpS(fmt.Sprint(i))} })
	id := mustTable(t, e, "t").ID
	withoutBackground(e, func() { // the purge starts only at the next Open
		if _, err := e.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: dpStr("t")}); err != nil {
			t.Fatal(err)
		}
	})
	e = reopen(t, e, store, Config{Clock: clk})
	defer e.Close()
	waitFor(t, "purge finished", func() bool { return keysIn(t, e, metaPurgeKey(id), metaPurgeKey(id+1)) == 0 })
	if n := keysIn(t, e, itemPrefix(id), itemPrefix(id+1)); n != 700 {
		t.Fatalf("%d items kept for the system backup, want 700", n)
	}
	clk.advance(35*24*time.Hour + time.Second)
	e.bk.Expire()
	if out, _ := e.ListBackups(dpCtx, &wire.ListBackupsInput{BackupType: "ALL"}); len(out.BackupSummaries) != 0 {
		t.Fatalf("expired system backup still listed: %+v", out.BackupSummaries)
	}
	if n := keysIn(t, e, itemPrefix(id), itemPrefix(id+1)); n != 0 {
		t.Fatalf("%d items left after the system backup expired", n)
	}
}
