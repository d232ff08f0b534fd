package restore

import (
	"fmt"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/wire"
)

// LeasePrefix + table ID is the lease of a restore into that table.
const LeasePrefix = "restore/"

// Backup is a backup as a restore reads it (package backup's record, as
// the core hands it in).
type Backup struct {
	ARN         string
	Created     time.Time
	Source      *wire.TableDescription // the table as the backup recorded it
	BillingMode string
	// Lower and Upper bound the key range of the backup's items.
	Lower, Upper []byte
}

// Table is a table of the catalog as a restore sees it: a point-in-time
// restore's source, or the table holding a target's name.
type Table struct {
	ID          uint64
	Name        string
	Status      string
	Desc        *wire.TableDescription // its definition (and RestoreSummary)
	BillingMode string
	PITR        bool // point-in-time recovery on
	// Earliest and Latest bound the recovery window, when PITR.
	Earliest, Latest time.Time
}

// Pending is a restore in progress, from its target's record: from the
// backup BackupARN, or ("") from table SourceID as it was at At.
type Pending struct {
	TableID   uint64
	Name      string
	BackupARN string
	SourceID  uint64
	At        time.Time
}

// Core is what the restores need from the engine, which implements it
// (the package never imports internal/engine).
type Core interface {
	// Lock and Unlock hold the core's DDL lock.
	Lock()
	Unlock()
	// FindBackup is the backup a request's BackupArn names (package
	// backup's checks, authorization, BackupNotFoundException).
	FindBackup(action, arn string) (Backup, error)
	// Backup is the backup arn as stored now, and its status; false when
	// it is gone.
	Backup(arn string) (Backup, string, bool)
	// Restoring is how many restores read the backup arn.
	Restoring(arn string) int
	// Table is the named table of the catalog; false when there is none.
	Table(name string) (Table, bool)
	// Create creates the target table, CREATING, from the CreateTable a
	// restore amounts to, with summary (in progress) and, for a
	// point-in-time restore, the ID of its source; it returns the
	// target's ID and the description to answer with.
	Create(cin *wire.CreateTableInput, summary *wire.RestoreSummary, sourceID uint64) (uint64, *wire.TableDescription, error)
	// Target is the core's write path for the target table.
	Target(tableID uint64, name string) Target
	// Finish makes the target ACTIVE, without its RestoreSummary.
	Finish(tableID uint64, name string)
	// InProgress reports whether the target's restore is still in
	// progress (its record says so).
	InProgress(tableID uint64, name string) bool
	// Pending is every restore in progress, from the catalog.
	Pending() []Pending
	// Snapshot takes a snapshot of the store now.
	Snapshot() (*snapshot.Reader, error)
	// UnderLease runs work on the node holding the lease name, while
	// still holds (the core's underLease); false when it did not run.
	UnderLease(name string, still func() bool, work func()) bool
	// Go runs background work the engine waits for at Close.
	Go(func())
	Sleep(d time.Duration) bool
	Now() time.Time
}

// Restores run the restores of one engine.
type Restores struct {
	core Core
	mu   sync.Mutex
	here map[uint64]bool // targets whose restore runs (or waits for its lease) here
}

// New returns the restores over core. Adopt starts the ones in progress.
func New(core Core) *Restores { return &Restores{core: core, here: map[uint64]bool{}} }

// FromBackup is RestoreTableFromBackup: the new table is CREATING (its
// description shows the RestoreSummary) while the backup's items are
// written into it with their index entries; then it turns ACTIVE and the
// RestoreSummary goes, as in DynamoDB. What a restore keeps and drops
// follows DynamoDB: keys, indexes (or the overrides' choice of them),
// billing mode, throughput and encryption are restored; streams, TTL,
// point-in-time recovery, tags, deletion protection and the table class
// are not.
func (r *Restores) FromBackup(in *wire.RestoreTableFromBackupInput) (*wire.RestoreTableFromBackupOutput, error) {
	r.core.Lock()
	defer r.core.Unlock()
	b, err := r.core.FindBackup("RestoreTableFromBackup", wire.Deref(in.BackupArn))
	if err != nil {
		return nil, err
	}
	cin, verr := Request(b.Source, b.BillingMode, in.TargetTableName, FromBackupOverrides(in))
	if verr != nil {
		return nil, verr
	}
	if err := r.targetFree(wire.Deref(in.TargetTableName)); err != nil {
		return nil, err
	}
	if r.core.Restoring(b.ARN) > 0 {
		return nil, ddberr.BackupInUse("Backup is being used to restore another table: " + b.ARN)
	}
	summary := &wire.RestoreSummary{SourceBackupArn: wire.Ptr(b.ARN), SourceTableArn: b.Source.TableArn, RestoreDateTime: wire.NewTime(b.Created)}
	id, d, err := r.core.Create(cin, summary, 0)
	if err != nil {
		return nil, err
	}
	r.launch(Pending{TableID: id, Name: wire.Deref(cin.TableName), BackupARN: b.ARN}, nil)
	return &wire.RestoreTableFromBackupOutput{TableDescription: d}, nil
}

// AtTime is RestoreTableToPointInTime: a new table holding a table's
// items as they were at a time within its point-in-time recovery window
// (RestoreDateTime, or the latest restorable time). Like a restore from a
// backup, the new table is CREATING until its items are written; it
// keeps the source's keys, indexes, billing mode, throughput and
// encryption as they are now (overrides as for RestoreTableFromBackup),
// not its stream, TTL, recovery, tags, deletion protection or table
// class.
//
// Checks run in DynamoDB's order: the request's shape, the source table,
// point-in-time recovery on, the time, the target name.
func (r *Restores) AtTime(in *wire.RestoreTableToPointInTimeInput) (*wire.RestoreTableToPointInTimeOutput, error) {
	name, verr := CheckAtTime(in)
	if verr != nil {
		return nil, verr
	}
	r.core.Lock()
	defer r.core.Unlock()
	src, ok := r.core.Table(name)
	if !ok || src.Status == "CREATING" {
		return nil, SourceNotFound(in, name)
	}
	if !src.PITR {
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '" + src.Name + "'")
	}
	at, verr := Time(in, src.Earliest, src.Latest)
	if verr != nil {
		return nil, verr
	}
	cin, verr := Request(src.Desc, src.BillingMode, in.TargetTableName, AtTimeOverrides(in))
	if verr != nil {
		return nil, verr
	}
	if err := r.targetFree(wire.Deref(in.TargetTableName)); err != nil {
		return nil, err
	}
	// The snapshot is taken now, so a DeleteTable of the source right
	// after this request cannot take items or images from under the
	// restore.
	snap, err := r.core.Snapshot()
	if err != nil {
		return nil, err
	}
	summary := &wire.RestoreSummary{SourceTableArn: src.Desc.TableArn, RestoreDateTime: wire.NewTime(at)}
	id, d, err := r.core.Create(cin, summary, src.ID)
	if err != nil {
		snap.Close()
		return nil, err
	}
	r.launch(Pending{TableID: id, Name: wire.Deref(cin.TableName), SourceID: src.ID, At: at}, snap)
	return &wire.RestoreTableToPointInTimeOutput{TableDescription: d}, nil
}

// targetFree refuses a restore into the name of an existing table
// (TargetTaken).
func (r *Restores) targetFree(target string) error {
	t, exists := r.core.Table(target)
	if !exists {
		return nil
	}
	return TargetTaken(target, t.Status, t.Desc.RestoreSummary)
}

// Adopt starts the restores in progress that do not run here: at Open,
// those a stop interrupted (they start over: writing an item again
// changes nothing); in cluster mode, every lease TTL, those whose node
// may have died (they run here once their lease lapses). Callers may
// start background work (the core's DDL lock, or Open).
func (r *Restores) Adopt() {
	for _, p := range r.core.Pending() {
		if p.BackupARN != "" {
			if _, _, ok := r.core.Backup(p.BackupARN); !ok {
				continue
			}
		}
		r.launch(p, nil)
	}
}

// launch runs the restore p in the background on the node holding its
// lease, reading snap (it owns it; nil: it takes one when it runs).
func (r *Restores) launch(p Pending, snap *snapshot.Reader) {
	r.mu.Lock()
	if r.here[p.TableID] {
		r.mu.Unlock()
		if snap != nil {
			snap.Close()
		}
		return
	}
	r.here[p.TableID] = true
	r.mu.Unlock()
	r.core.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.here, p.TableID)
			r.mu.Unlock()
		}()
		still := func() bool { return r.core.InProgress(p.TableID, p.Name) }
		ran := r.core.UnderLease(fmt.Sprintf("%s%d", LeasePrefix, p.TableID), still, func() {
			r.run(p, snap)
			snap = nil
		})
		if !ran && snap != nil {
			snap.Close()
		}
	})
}

// run writes the restore's items into its target, then makes it ACTIVE.
// It owns snap (nil: it takes one; a restore from a backup always does,
// once the backup it waits for is copied). Stopped by Close, it starts over at the next
// Open (or on another node): writing an item again changes nothing, and
// the recovery window still covers a point-in-time restore's time.
func (r *Restores) run(p Pending, snap *snapshot.Reader) {
	var b Backup
	if p.BackupARN != "" {
		var ok bool
		if b, ok = r.awaitBackup(p.BackupARN); !ok {
			return
		}
	}
	if snap == nil {
		var err error
		if snap, err = r.core.Snapshot(); err != nil {
			return
		}
	}
	defer snap.Close()
	t := r.core.Target(p.TableID, p.Name)
	var done bool
	var err error
	if p.BackupARN != "" {
		done, err = FromBackup(snap, b.Lower, b.Upper, t, Sleep(r.core.Sleep))
	} else {
		done, err = AtTime(snap, p.SourceID, p.At, t, Sleep(r.core.Sleep))
	}
	if err != nil || !done {
		return
	}
	r.core.Finish(p.TableID, p.Name)
}

// awaitBackup waits for the backup to be AVAILABLE; false when it is
// gone or the engine closes.
func (r *Restores) awaitBackup(arn string) (Backup, bool) {
	for {
		b, status, ok := r.core.Backup(arn)
		if !ok {
			return Backup{}, false
		}
		if status == "AVAILABLE" {
			return b, true
		}
		if !r.core.Sleep(10 * time.Millisecond) {
			return Backup{}, false
		}
	}
}
