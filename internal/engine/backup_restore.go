package engine

import (
	"context"
	"errors"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// RestoreTableFromBackup creates a table from a backup. The new table is
// CREATING (DescribeTable shows its RestoreSummary) while the backup's
// items are written into it with their index entries; then it turns
// ACTIVE and the RestoreSummary goes, as in DynamoDB. What a restore keeps
// and drops follows DynamoDB: keys, indexes (or the overrides' choice of
// them), billing mode, throughput and encryption are restored; streams,
// TTL, point-in-time recovery, tags, deletion protection and the table
// class are not.
func (e *Engine) RestoreTableFromBackup(ctx context.Context, in *wire.RestoreTableFromBackupInput) (*wire.RestoreTableFromBackupOutput, error) {
	if err := e.refuseInCluster("RestoreTableFromBackup"); err != nil { // cluster_refusals.go
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	b, err := e.findBackup("RestoreTableFromBackup", cpDeref(in.BackupArn))
	if err != nil {
		return nil, err
	}
	cin, verr := restore.Request(&b.Source.Desc, b.Source.BillingMode, in.TargetTableName, restore.FromBackupOverrides(in))
	if verr != nil {
		return nil, verr
	}
	if err := e.restoreTargetFree(cpDeref(in.TargetTableName)); err != nil {
		return nil, err
	}
	if e.restoresFrom(b.ARN) > 0 {
		return nil, ddberr.BackupInUse("Backup is being used to restore another table: " + b.ARN)
	}
	summary := &wire.RestoreSummary{SourceBackupArn: cpPtr(b.ARN), SourceTableArn: b.Source.Desc.TableArn, RestoreDateTime: wire.NewTime(b.Created)}
	t, d, err := e.createRestoreTarget(cin, summary, 0)
	if err != nil {
		return nil, err
	}
	e.bk.StartRestore(b.ARN)
	e.goBackground(func() { e.leasedRestore(t, func() { e.runRestore(t, b) }) })
	return &wire.RestoreTableFromBackupOutput{TableDescription: d}, nil
}

// restoreTargetFree refuses a restore into the name of an existing table
// (restore.TargetTaken).
func (e *Engine) restoreTargetFree(target string) error {
	t, exists := e.lookupTable(target)
	if !exists {
		return nil
	}
	return restore.TargetTaken(target, t.Status, t.Desc.RestoreSummary)
}

// createRestoreTarget creates the table a restore fills: CREATING, with
// the RestoreSummary (in progress) and, for a point-in-time restore, the
// ID of the table it reads (pitrSource). It returns the table and the
// description the restore answers with. Callers hold e.ddl.
func (e *Engine) createRestoreTarget(cin *wire.CreateTableInput, summary *wire.RestoreSummary, pitrSource uint64) (*Table, *wire.TableDescription, error) {
	billing, verr := tables.ValidateCreate(cin, tableIndexes{})
	if verr != nil {
		return nil, nil, verr
	}
	if verr := e.account().CheckCreateCaps(cin); verr != nil {
		return nil, nil, verr
	}
	if verr := validateCreateVectors(cin, billing); verr != nil {
		return nil, nil, verr
	}
	rec := e.newTableRecord(cin, billing, e.clock.Now())
	rec.SetStatus(StatusCreating) // no ReadyAt: the restore ends it (finishRestore)
	tables.SetGSIStatus(&rec.Desc, StatusCreating)
	addCreateVectors(rec, cin, StatusCreating)
	if summary != nil { // nil: an import's table (import.go)
		summary.RestoreInProgress = cpPtr(true)
		rec.Desc.RestoreSummary = summary
	}
	rec.RestoreSource = pitrSource
	t, err := e.storeNewTable(rec)
	if err != nil {
		return nil, nil, err
	}
	d := e.describe(t)
	restore.Response(d)
	return t, d, nil
}

// restoresFrom is the number of restores reading the backup.
func (e *Engine) restoresFrom(arn string) int {
	return e.bk.Restoring(arn)
}

// runRestore writes a backup's items into the restored table t, then
// makes it ACTIVE. It waits for a backup still being copied. Stopped by
// Close, it starts over at the next Open (loadBackups): writing an item
// again changes nothing.
func (e *Engine) runRestore(t *Table, b *backupRecord) {
	defer e.bk.EndRestore(b.ARN)
	for {
		cur, ok := e.backup(b.ARN)
		if !ok {
			return
		}
		if cur.Status == backupAvailable {
			break
		}
		if !e.sleep(10 * time.Millisecond) {
			return
		}
	}
	if done, err := e.restoreItems(t, b); err != nil || !done {
		return
	}
	e.finishRestore(t)
}

// restoreItems writes the backup's items into t, restore.Chunk items per
// storage transaction; false when Close stopped it.
func (e *Engine) restoreItems(t *Table, b *backupRecord) (bool, error) {
	snap, err := e.openSnapshot()
	if err != nil {
		return false, err
	}
	defer snap.Close()
	lower, upper := backupItemRange(b)
	return restore.FromBackup(snap, lower, upper, restoreTarget{e, t}, e.sleep)
}

// restoreTarget is a restore's (or an import's) new table: the core's
// write path for it (restoreChunk), as packages restore and imports
// reach it.
type restoreTarget struct {
	e *Engine
	t *Table
}

func (r restoreTarget) Write(items []attr.Item) error { return r.e.restoreChunk(r.t, items) }

// restoreChunk writes items into t in one storage transaction with
// BatchWriteItem's tryBatchWrites (stageWrite per item, so index entries
// and vector marks are written with them). No item locks: nothing else
// writes a table being restored.
func (e *Engine) restoreChunk(t *Table, items []attr.Item) error {
	if len(items) == 0 {
		return nil
	}
	iws := make([]itemWrite, len(items))
	keys := make([][]byte, len(items))
	for i, item := range items {
		pk := t.primaryKeyOf(item)
		iws[i] = itemWrite{table: t, key: pk, verbatim: true, apply: func(attr.Item) (attr.Item, error) { return item, nil }}
		keys[i] = t.storageKey(pk)
	}
	results, changed := make([]writeResult, len(items)), make([]bool, len(items))
	for attempt := 0; ; attempt++ {
		err := e.tryBatchWrites(iws, keys, results, changed)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrConflict) || attempt == maxConflictRetries {
			return err
		}
	}
	for i := range iws {
		if changed[i] {
			e.writeStats(t, results[i])
		}
	}
	return nil
}

// finishRestore makes a restored table ACTIVE (durably), without its
// RestoreSummary.
func (e *Engine) finishRestore(t *Table) {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	cur, ok := e.lookupTable(t.Name)
	if !ok || cur.ID != t.ID || cur.Status != StatusCreating {
		return
	}
	now := e.clock.Now()
	rec := cur.rec.Clone()
	rec.ReadyAt = now
	rec.Settle(now)
	rec.Desc.RestoreSummary = nil
	rec.RestoreSource = 0
	_, _ = e.saveRecord(rec) // on failure the table stays CREATING; the next Open restores again
}
