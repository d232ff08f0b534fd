package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/wire"
)

// RestoreTableToPointInTime creates a table holding a table's items as
// they were at a time within its point-in-time recovery window
// (RestoreDateTime, or the latest restorable time). Like a restore from a
// backup, the new table is CREATING until its items are written; it keeps
// the source's keys, indexes, billing mode, throughput and encryption as
// they are now (overrides as for RestoreTableFromBackup), not its stream,
// TTL, recovery, tags, deletion protection or table class.
//
// Checks run in DynamoDB's order: the request's shape, the source table,
// point-in-time recovery on, the time, the target name.
func (e *Engine) RestoreTableToPointInTime(ctx context.Context, in *wire.RestoreTableToPointInTimeInput) (*wire.RestoreTableToPointInTimeOutput, error) {
	name, verr := restore.CheckAtTime(in)
	if verr != nil {
		return nil, verr
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	src, ok := e.lookupTable(name)
	if !ok || src.Status == StatusCreating {
		return nil, restore.SourceNotFound(in, name)
	}
	if !src.rec.PITR.Enabled {
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '" + src.Name + "'")
	}
	earliest, latest := pitrWindow(src.rec.PITR, e.clock.Now())
	at, verr := restore.Time(in, earliest, latest)
	if verr != nil {
		return nil, verr
	}
	cin, verr := restore.Request(&src.rec.Desc, src.rec.BillingMode, in.TargetTableName, restore.AtTimeOverrides(in))
	if verr != nil {
		return nil, verr
	}
	if err := e.restoreTargetFree(cpDeref(in.TargetTableName)); err != nil {
		return nil, err
	}
	// The snapshot is taken now, so a DeleteTable of the source right after
	// this request cannot take items or images from under the restore.
	snap, err := e.openSnapshot()
	if err != nil {
		return nil, err
	}
	summary := &wire.RestoreSummary{SourceTableArn: src.Desc.TableArn, RestoreDateTime: wire.NewTime(at)}
	t, d, err := e.createRestoreTarget(cin, summary, src.ID)
	if err != nil {
		snap.Close()
		return nil, err
	}
	e.goBackground(func() {
		if !e.leasedRestore(t, func() { e.runPITRRestore(t, src.ID, at, snap) }) {
			snap.Close()
		}
	})
	return &wire.RestoreTableToPointInTimeOutput{TableDescription: d}, nil
}

// isoSeconds formats a time as DynamoDB's errors quote it.
func isoSeconds(t time.Time) string { return restore.ISOSeconds(t) }

// runPITRRestore writes the source table's items as they were at `at` into
// t, reading snap (it owns it; nil: it takes one), then makes t ACTIVE.
// Stopped by Close, it starts over at the next Open (loadBackups): the
// recovery window still covers `at`.
func (e *Engine) runPITRRestore(t *Table, sourceID uint64, at time.Time, snap *snapshot.Reader) {
	if snap == nil {
		var err error
		if snap, err = e.openSnapshot(); err != nil {
			return
		}
	}
	defer snap.Close()
	if done, err := restore.AtTime(snap, sourceID, at, restoreTarget{e, t}, e.sleep); err != nil || !done {
		return
	}
	e.finishRestore(t)
}
