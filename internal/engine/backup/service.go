package backup

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Table is a table as a backup takes it from the core's catalog.
type Table[S any] struct {
	Record    S // a copy of the table's record: the backup's Source
	ID        uint64
	Name      string
	Status    string
	SizeBytes int64
	ItemCount int64
	PITR      bool // point-in-time recovery on (a deleted table leaves a system backup)
}

// Core is what the backups need from the engine, which implements it
// (the package never imports internal/engine).
type Core[S any] interface {
	// Lock and Unlock hold the core's DDL lock.
	Lock()
	Unlock()
	// Table is the named table (a name or an ARN) as the catalog has it
	// now; false when there is none.
	Table(name string) (Table[S], bool)
	// Source is what a backup's descriptions show of its recorded table.
	Source(S) Source
	// Authorize is the resource policy's answer for action on arn.
	Authorize(action, arn string) error
	// NewID commits put with a new ID from the core's counter.
	NewID(put func(txn storage.Txn, id uint64) error) error
	// Commit runs f in one storage transaction and commits it (durably
	// when sync).
	Commit(sync bool, f func(storage.Txn) error) error
	// Snapshot takes a snapshot of the store now.
	Snapshot() (*snapshot.Reader, error)
	// Purge deletes the keys in [lower, upper), in batches, until done
	// (true) or the engine closes (false).
	Purge(lower, upper []byte) bool
	// ItemRange is where table tableID keeps its items.
	ItemRange(tableID uint64) (lower, upper []byte)
	// Restoring is how many restores read the backup arn.
	Restoring(arn string) int
	// UnderLease runs work on the node holding the lease name, while
	// still holds (the core's underLease); false when it did not run.
	UnderLease(name string, still func() bool, work func()) bool
	// Go runs background work the engine waits for at Close.
	Go(func())
	Now() time.Time
	Closing() <-chan struct{}
}

// Config is the backups' part of the engine's configuration.
type Config struct {
	Region, Account string
	Sync            bool // durable commits
	// Shared: other nodes write the store too (cluster mode), so every
	// answer reads the records from the store first.
	Shared bool
}

// LeasePrefix + ARN is the lease of a backup's copy.
const LeasePrefix = "backup/"

// Backups are the on-demand and system backups of one engine.
type Backups[S any] struct {
	core  Core[S]
	cfg   Config
	store storage.Store
	reg   Registry[S]
	// here are the backups whose copy runs (or waits for its lease) on
	// this node, so that Adopt does not start a second.
	mu   sync.Mutex
	here map[string]bool
}

// Open reads the backup records at Open and resumes what a stop
// interrupted: a backup still CREATING is copied again (from the table
// as it is now: the snapshot of the request did not survive the
// restart), or dropped when its table is gone.
func Open[S any](store storage.Store, core Core[S], cfg Config) (*Backups[S], error) {
	x := &Backups[S]{core: core, cfg: cfg, store: store, here: map[string]bool{}}
	if err := x.reload(); err != nil {
		return nil, err
	}
	x.Adopt()
	return x, nil
}

// reload replaces the registry's records with the store's.
func (x *Backups[S]) reload() error {
	snap, err := x.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte{PrefixRecord}, Upper: []byte{PrefixRecord + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	all := map[string]*Record[S]{}
	for it.Next() {
		var b Record[S]
		if err := json.Unmarshal(it.Value(), &b); err != nil {
			return fmt.Errorf("engine: backup record %x: %w", it.Key()[1:], err)
		}
		all[Resource(b.ARN)] = &b
	}
	if err := it.Err(); err != nil {
		return err
	}
	x.reg.replace(all)
	return nil
}

// fresh reads the records again when other nodes write them too.
func (x *Backups[S]) fresh() error {
	if !x.cfg.Shared {
		return nil
	}
	return x.reload()
}

// Adopt copies the backups still CREATING whose copy does not run here
// (at Open: a stop interrupted it; in cluster mode, every lease TTL: its
// node may have died, and the copy runs here once its lease lapses).
func (x *Backups[S]) Adopt() {
	if x.fresh() != nil {
		return
	}
	for _, b := range x.reg.Sorted(func(b *Record[S]) bool { return b.Status == Creating }) {
		x.resume(b)
	}
}

// resume restarts the copy of a backup a stop interrupted.
func (x *Backups[S]) resume(b *Record[S]) {
	if !x.mark(b.ARN) {
		return
	}
	src := x.core.Source(b.Source)
	t, ok := x.core.Table(src.Name)
	if !ok || t.ID != src.TableID || t.Status == "DELETING" {
		x.core.Go(func() { defer x.unmark(b.ARN); x.drop(b) })
		return
	}
	snap, err := x.core.Snapshot()
	if err != nil {
		x.unmark(b.ARN)
		return
	}
	x.core.Go(func() {
		defer x.unmark(b.ARN)
		ran := x.underLease(b, func() {
			// What the interrupted copy wrote goes first: an item deleted
			// since must not stay behind in the backup.
			if !x.core.Purge(ItemPrefix(b.ID), ItemPrefix(b.ID+1)) {
				snap.Close()
				return
			}
			x.copy(b, snap)
		})
		if !ran {
			snap.Close()
		}
	})
}

// mark notes that arn's copy runs here; false when it already does.
func (x *Backups[S]) mark(arn string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.here[arn] {
		return false
	}
	x.here[arn] = true
	return true
}

func (x *Backups[S]) unmark(arn string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.here, arn)
}

// underLease is copy, a backup's copy, on the node that holds the
// backup's lease; false when it did not run.
func (x *Backups[S]) underLease(b *Record[S], copy func()) bool {
	return x.core.UnderLease(LeasePrefix+b.ARN, func() bool {
		cur, ok := x.Get(b.ARN)
		return ok && cur.Status == Creating
	}, copy)
}

// Get is the backup with the given ARN (of any region).
func (x *Backups[S]) Get(arn string) (*Record[S], bool) {
	if x.fresh() != nil {
		return nil, false
	}
	return x.reg.Get(arn)
}

// Set installs a new version of a backup record (nil removes it) the
// core stored itself (a system backup, with its DeleteTable).
func (x *Backups[S]) Set(arn string, b *Record[S]) { x.reg.Set(arn, b) }

// Find is the backup a BackupArn member of action names: CheckARN's
// refusals, the core's authorization, NotFound when no backup has it.
func (x *Backups[S]) Find(action, arn string) (*Record[S], error) {
	if err := CheckARN(arn); err != nil {
		return nil, err
	}
	if err := x.core.Authorize(action, arn); err != nil {
		return nil, err
	}
	b, ok := x.Get(arn)
	if !ok {
		return nil, NotFound(arn)
	}
	return b, nil
}

// ItemRange is where a backup's items are stored: a system backup's are
// its deleted table's own.
func (x *Backups[S]) ItemRange(b *Record[S]) (lower, upper []byte) {
	if b.System {
		return x.core.ItemRange(x.core.Source(b.Source).TableID)
	}
	return ItemPrefix(b.ID), ItemPrefix(b.ID + 1)
}

// Create is CreateBackup: the request fixes the backup's content (a
// consistent snapshot of the table at that moment); the items are copied
// in the background while the backup is CREATING, and it turns AVAILABLE
// when the copy is durable. Writes to the table after the request are
// not in the backup.
func (x *Backups[S]) Create(in *wire.CreateBackupInput) (*wire.CreateBackupOutput, error) {
	name := wire.Deref(in.TableName)
	x.core.Lock()
	defer x.core.Unlock()
	// A table still being created is not found (DynamoDB's answer, the
	// same bytes as for a missing table); UPDATING and DELETING tables
	// are backed up.
	t, ok := x.core.Table(name)
	if !ok || t.Status == "CREATING" {
		return nil, ddberr.TableNotFoundException(name)
	}
	snap, err := x.core.Snapshot()
	if err != nil {
		return nil, err
	}
	now := x.core.Now()
	b := &Record[S]{
		ARN:       NewARN(x.cfg.Region, x.cfg.Account, t.Name, now),
		Name:      wire.Deref(in.BackupName),
		Status:    Creating,
		Created:   now,
		SizeBytes: t.SizeBytes,
		ItemCount: t.ItemCount,
		Source:    t.Record,
	}
	err = x.core.NewID(func(txn storage.Txn, id uint64) error {
		b.ID = id
		return Put(txn, b)
	})
	if err != nil {
		snap.Close()
		return nil, err
	}
	x.reg.Set(b.ARN, b)
	x.mark(b.ARN)
	x.core.Go(func() {
		defer x.unmark(b.ARN)
		if !x.underLease(b, func() { x.copy(b, snap) }) {
			snap.Close()
		}
	})
	return &wire.CreateBackupOutput{BackupDetails: b.Details()}, nil
}

// copy copies the table's items as snap holds them into the backup, then
// marks it AVAILABLE. It owns snap. On Close it stops; the next Open (or
// another node) copies again.
func (x *Backups[S]) copy(b *Record[S], snap *snapshot.Reader) {
	defer snap.Close()
	done, err := Copy(snap, x.core.Source(b.Source).TableID, ItemPrefix(b.ID), func(keys, vals [][]byte) error {
		return x.core.Commit(false, func(txn storage.Txn) error {
			for i := range keys {
				if err := txn.Set(keys[i], vals[i]); err != nil {
					return err
				}
			}
			return nil
		})
	}, x.core.Closing())
	if err != nil || !done {
		return
	}
	x.core.Lock()
	defer x.core.Unlock()
	var nb *Record[S]
	err = x.core.Commit(x.cfg.Sync, func(txn storage.Txn) error {
		// The record as stored now: a DeleteBackup through another node
		// may have removed it meanwhile.
		cur, err := stored[S](txn, b.ID)
		if err != nil || cur.Status != Creating {
			return errGone
		}
		cur.Status = Available
		nb = cur
		return Put(txn, cur)
	})
	if err == nil {
		x.reg.Set(nb.ARN, nb)
	}
}

// errGone is a backup record removed or finished by another writer.
var errGone = errors.New("backup: the record is gone or no longer CREATING")

// stored reads backup id's record inside txn.
func stored[S any](txn storage.Txn, id uint64) (*Record[S], error) {
	v, err := txn.Get(Key(id))
	if err != nil {
		return nil, err
	}
	var b Record[S]
	if err := json.Unmarshal(v, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// Describe is DescribeBackup. Its ARN is answered as the request gave it
// (DynamoDB echoes an ARN naming another region back).
func (x *Backups[S]) Describe(in *wire.DescribeBackupInput) (*wire.DescribeBackupOutput, error) {
	arn := wire.Deref(in.BackupArn)
	b, err := x.Find("DescribeBackup", arn)
	if err != nil {
		return nil, err
	}
	d := b.Description(x.core.Source(b.Source))
	d.BackupDetails.BackupArn = wire.Ptr(arn)
	return &wire.DescribeBackupOutput{BackupDescription: d}, nil
}

// Delete is DeleteBackup: the record goes at once, the items in the
// background. A backup that is still being created, or that a restore
// is reading, cannot be deleted.
func (x *Backups[S]) Delete(in *wire.DeleteBackupInput) (*wire.DeleteBackupOutput, error) {
	arn := wire.Deref(in.BackupArn)
	x.core.Lock()
	defer x.core.Unlock()
	b, err := x.Find("DeleteBackup", arn)
	if err != nil {
		return nil, err
	}
	if err := b.CheckDeletable(arn, x.core.Restoring(b.ARN)); err != nil {
		return nil, err
	}
	if err := x.remove(b); err != nil {
		return nil, err
	}
	x.core.Go(func() { x.core.Purge(x.ItemRange(b)) })
	gone := *b
	gone.Status = Deleted
	d := gone.Description(x.core.Source(gone.Source))
	d.BackupDetails.BackupArn = wire.Ptr(arn) // as given, like DescribeBackup
	return &wire.DeleteBackupOutput{BackupDescription: d}, nil
}

// List is ListBackups: the backups of one table (when TableName names
// one: a name or a table ARN) or all, as List selects them.
func (x *Backups[S]) List(in *wire.ListBackupsInput, nameOf func(string) string) (*wire.ListBackupsOutput, error) {
	if err := x.fresh(); err != nil {
		return nil, err
	}
	table := wire.Deref(in.TableName)
	name := nameOf(table)
	all := x.reg.Sorted(func(b *Record[S]) bool { return table == "" || x.core.Source(b.Source).Name == name })
	out, err := List(all, in, func(b *Record[S]) Source { return x.core.Source(b.Source) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// System is the backup DynamoDB makes when a table with point-in-time
// recovery on is deleted (probe reports captured from DynamoDB,
// 2026-10-09): named "<table>$DeletedTableBackup", of type SYSTEM, listed
// only when ListBackups asks for SYSTEM or ALL backups, restorable like
// any backup, undeletable, gone after 35 days. Its ARN ends in -00000000.
// Its items are the deleted table's own: the table's purge leaves them
// until the backup expires. nil when the table has recovery off. The
// core stores it with the DeleteTable (and Sets it).
func (x *Backups[S]) System(t Table[S], now time.Time) *Record[S] {
	if !t.PITR {
		return nil
	}
	return &Record[S]{
		ARN:       SystemARN(x.cfg.Region, x.cfg.Account, t.Name, now),
		Name:      t.Name + "$DeletedTableBackup",
		Status:    Available,
		Created:   now,
		SizeBytes: t.SizeBytes,
		ItemCount: t.ItemCount,
		Source:    t.Record,
		System:    true,
		Expires:   now.AddDate(0, 0, SystemDays),
	}
}

// Expire drops the system backups past their expiry, with their items
// (the core runs it with the hourly point-in-time trim).
func (x *Backups[S]) Expire() {
	if x.fresh() != nil {
		return
	}
	for _, b := range x.reg.Expired(x.core.Now()) {
		x.drop(b)
	}
}

// drop removes a backup's record and then its items.
func (x *Backups[S]) drop(b *Record[S]) {
	if x.remove(b) == nil {
		x.core.Purge(x.ItemRange(b))
	}
}

// remove deletes a backup's record.
func (x *Backups[S]) remove(b *Record[S]) error {
	if err := x.core.Commit(x.cfg.Sync, func(txn storage.Txn) error { return txn.Delete(Key(b.ID)) }); err != nil {
		return err
	}
	x.reg.Set(b.ARN, nil)
	return nil
}
