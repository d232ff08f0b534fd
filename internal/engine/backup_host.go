package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// On-demand backups and restores are packages backup's and restore's:
// the core's entry points below, and the core's side of their Core
// interfaces (jobsHost and its two views): catalog lookups, the store,
// the leases, and the write path of a restore's table
// (restore_target.go).

// backupRecord is what the store keeps for one backup.
type backupRecord = backup.Record[tableRecord]

// Aliases of package backup's names the core uses often.
const (
	prefixBackup     = backup.PrefixRecord
	prefixBackupItem = backup.PrefixItem
	backupAvailable  = backup.Available
)

// CreateBackup takes an on-demand backup of a table (backup.Backups.Create).
func (e *Engine) CreateBackup(ctx context.Context, in *wire.CreateBackupInput) (*wire.CreateBackupOutput, error) {
	return e.bk.Create(in)
}

// DescribeBackup describes a backup.
func (e *Engine) DescribeBackup(ctx context.Context, in *wire.DescribeBackupInput) (*wire.DescribeBackupOutput, error) {
	return e.bk.Describe(in)
}

// DeleteBackup deletes a backup: its record at once, its items in the
// background.
func (e *Engine) DeleteBackup(ctx context.Context, in *wire.DeleteBackupInput) (*wire.DeleteBackupOutput, error) {
	return e.bk.Delete(in)
}

// ListBackups lists the backups (of one table, when TableName names one).
func (e *Engine) ListBackups(ctx context.Context, in *wire.ListBackupsInput) (*wire.ListBackupsOutput, error) {
	return e.bk.List(in, tableNameOf)
}

// RestoreTableFromBackup creates a table from a backup (restore.Restores.FromBackup).
func (e *Engine) RestoreTableFromBackup(ctx context.Context, in *wire.RestoreTableFromBackupInput) (*wire.RestoreTableFromBackupOutput, error) {
	return e.rst.FromBackup(in)
}

// RestoreTableToPointInTime creates a table holding a table's items as
// they were at a time of its recovery window (restore.Restores.AtTime).
func (e *Engine) RestoreTableToPointInTime(ctx context.Context, in *wire.RestoreTableToPointInTimeInput) (*wire.RestoreTableToPointInTimeOutput, error) {
	return e.rst.AtTime(in)
}

// backup returns the backup with the given ARN.
func (e *Engine) backup(arn string) (*backupRecord, bool) { return e.bk.Get(arn) }

// setBackup installs a backup record the core stored (nil removes it).
func (e *Engine) setBackup(arn string, b *backupRecord) { e.bk.Set(arn, b) }

// systemBackup is the backup a DeleteTable of t leaves when t has
// point-in-time recovery on (backup.Backups.System); nil otherwise.
func (e *Engine) systemBackup(t *Table, now time.Time) *backupRecord {
	return e.bk.System(backupHost{jobsHost{e}}.view(t), now)
}

// openBackups reads the backup records and resumes the copies and the
// restores a stop interrupted. Callers are in Open.
func (e *Engine) openBackups() (err error) {
	e.bk, err = backup.Open(e.store, backup.Core[tableRecord](backupHost{jobsHost{e}}), backup.Config{
		Region: e.cfg.Region, Account: e.cfg.AccountID, Sync: e.cfg.Sync, Shared: e.cfg.Cluster,
	})
	if err != nil {
		return err
	}
	e.rst = restore.New(restoreHost{jobsHost{e}})
	e.rst.Adopt()
	return nil
}

// adoptBackups, every lease TTL in cluster mode, takes over the backup
// copies and restores of a node that stopped or died. Callers hold e.ddl.
func (e *Engine) adoptBackups() {
	if e.cfg.Cluster {
		e.bk.Adopt()
		e.rst.Adopt()
	}
}

// jobsHost is what packages backup and restore share of the core.
type jobsHost struct{ e *Engine }

func (h jobsHost) Lock()                               { h.e.ddl.Lock() }
func (h jobsHost) Unlock()                             { h.e.ddl.Unlock() }
func (h jobsHost) Go(f func())                         { h.e.goBackground(f) }
func (h jobsHost) Sleep(d time.Duration) bool          { return h.e.sleep(d) }
func (h jobsHost) Now() time.Time                      { return h.e.clock.Now() }
func (h jobsHost) Closing() <-chan struct{}            { return h.e.closing }
func (h jobsHost) Snapshot() (*snapshot.Reader, error) { return h.e.openSnapshot() }
func (h jobsHost) Restoring(arn string) int            { return h.e.restoresFrom(arn) }
func (h jobsHost) UnderLease(name string, still func() bool, work func()) bool {
	return h.e.underLease(name, still, work)
}

// backupHost is backup.Core.
type backupHost struct{ jobsHost }

func (h backupHost) Table(name string) (backup.Table[tableRecord], bool) {
	t, ok := h.e.freshTable(name)
	if !ok {
		return backup.Table[tableRecord]{}, false
	}
	return h.view(t), true
}

// view is t as a backup takes it.
func (h backupHost) view(t *Table) backup.Table[tableRecord] {
	d := h.e.describe(t)
	return backup.Table[tableRecord]{Record: *t.rec.Clone(), ID: t.ID, Name: t.Name, Status: t.Status,
		SizeBytes: cpDeref(d.TableSizeBytes), ItemCount: cpDeref(d.ItemCount), PITR: t.rec.PITR.Enabled}
}

func (h backupHost) Source(r tableRecord) backup.Source {
	src := backup.Source{Name: r.Name, TableID: r.ID, Desc: &r.Desc, BillingMode: r.BillingMode}
	if ttl := r.TTL; ttl != nil && ttl.Enabled {
		src.TTLAttribute = ttl.Attribute
	}
	return src
}

func (h backupHost) Authorize(action, arn string) error {
	if err := h.e.authorizeARN(action, arn); err != nil {
		return err
	}
	return nil
}

func (h backupHost) NewID(put func(txn storage.Txn, id uint64) error) error {
	_, err := h.e.commitNewID(put)
	return err
}

func (h backupHost) Commit(sync bool, f func(storage.Txn) error) error { return h.e.commit(sync, f) }
func (h backupHost) Purge(lower, upper []byte) bool                    { return h.e.purgeUntilClose(lower, upper) }
func (h backupHost) ItemRange(id uint64) (lower, upper []byte) {
	return itemPrefix(id), itemPrefix(id + 1)
}

// restoreHost is restore.Core.
type restoreHost struct{ jobsHost }

func (h restoreHost) FindBackup(action, arn string) (restore.Backup, error) {
	b, err := h.e.bk.Find(action, arn)
	if err != nil {
		return restore.Backup{}, err
	}
	return h.backupView(b), nil
}

func (h restoreHost) Backup(arn string) (restore.Backup, string, bool) {
	b, ok := h.e.bk.Get(arn)
	if !ok {
		return restore.Backup{}, "", false
	}
	return h.backupView(b), b.Status, true
}

func (h restoreHost) backupView(b *backupRecord) restore.Backup {
	lower, upper := h.e.bk.ItemRange(b)
	return restore.Backup{ARN: b.ARN, Created: b.Created, Source: &b.Source.Desc, BillingMode: b.Source.BillingMode, Lower: lower, Upper: upper}
}

func (h restoreHost) Table(name string) (restore.Table, bool) {
	t, ok := h.e.freshTable(name)
	if !ok {
		return restore.Table{}, false
	}
	v := restore.Table{ID: t.ID, Name: t.Name, Status: t.Status, Desc: &t.rec.Desc, BillingMode: t.rec.BillingMode, PITR: t.rec.PITR.Enabled}
	if v.PITR {
		v.Earliest, v.Latest = pitrWindow(t.rec.PITR, h.e.clock.Now())
	}
	return v, true
}

func (h restoreHost) Create(cin *wire.CreateTableInput, summary *wire.RestoreSummary, sourceID uint64) (uint64, *wire.TableDescription, error) {
	t, d, err := h.e.createRestoreTarget(cin, summary, sourceID)
	if err != nil {
		return 0, nil, err
	}
	return t.ID, d, nil
}

func (h restoreHost) Target(id uint64, name string) restore.Target {
	return restoreTarget{h.e, h.e.restoreTable(id, name)}
}

func (h restoreHost) Finish(id uint64, name string) { h.e.finishRestore(id, name) }

func (h restoreHost) InProgress(id uint64, name string) bool {
	cur, ok := h.e.lookupTable(name)
	return ok && cur.ID == id && restoring(cur)
}

func (h restoreHost) Pending() []restore.Pending {
	var out []restore.Pending
	for _, t := range h.e.catalogTables() {
		if t.Status != StatusCreating || !restoring(t) {
			continue
		}
		rs := t.Desc.RestoreSummary
		out = append(out, restore.Pending{TableID: t.ID, Name: t.Name, BackupARN: cpDeref(rs.SourceBackupArn),
			SourceID: t.rec.RestoreSource, At: rs.RestoreDateTime.Time})
	}
	return out
}

// restoring reports whether t is a restore's target still being filled.
func restoring(t *Table) bool {
	rs := t.Desc.RestoreSummary
	return rs != nil && cpDeref(rs.RestoreInProgress)
}

// catalogTables is every table, read again from the store first in
// cluster mode (other nodes create and finish restores too).
func (e *Engine) catalogTables() []*Table {
	if e.cfg.Cluster {
		_ = e.syncCatalog() // on failure: the tables as last read
	}
	return e.snapshotTables()
}

// restoresFrom is the number of restores reading the backup arn: the
// tables still CREATING whose RestoreSummary names it.
func (e *Engine) restoresFrom(arn string) int {
	n := 0
	for _, t := range e.catalogTables() {
		if t.Status == StatusCreating && restoring(t) && cpDeref(t.Desc.RestoreSummary.SourceBackupArn) == arn {
			n++
		}
	}
	return n
}
