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
	if err := e.refuseInCluster("RestoreTableToPointInTime"); err != nil { // cluster_refusals.go
		return nil, err
	}
	latest := cpDeref(in.UseLatestRestorableTime)
	if in.RestoreDateTime != nil && latest {
		return nil, ddberr.Validation("Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. Please specify either RestoreDateTime time or UseLatestRestorableTime")
	}
	if in.RestoreDateTime == nil && !latest {
		return nil, ddberr.Validation("Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both")
	}
	name, err := pitrSourceName(in)
	if err != nil {
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	src, ok := e.lookupTable(name)
	if !ok || src.Status == StatusCreating {
		if in.SourceTableArn != nil {
			// Bare when the source was named by ARN (a probe of
			// DynamoDB in us-east-1, 2026-10-09).
			return nil, ddberr.TableNotFoundBare()
		}
		return nil, ddberr.TableNotFoundException(name)
	}
	if !src.rec.PITR.Enabled {
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '" + src.Name + "'")
	}
	earliest, last := pitrWindow(src.rec.PITR, e.clock.Now())
	at := last
	if in.RestoreDateTime != nil {
		at = in.RestoreDateTime.Time
		if at.Before(earliest) || at.After(last) {
			return nil, ddberr.InvalidRestoreTime("RestoreDateTime '" + isoSeconds(at) + "' must be within EarliestRestorableDateTime '" +
				isoSeconds(earliest) + "' and LatestRestorableDateTime '" + isoSeconds(last) + "'")
		}
	}
	cin, verr := restoreRequest(src.rec, in.TargetTableName, restoreOverrides{
		billing: in.BillingModeOverride, throughput: in.ProvisionedThroughputOverride, onDemand: in.OnDemandThroughputOverride,
		gsis: in.GlobalSecondaryIndexOverride, lsis: in.LocalSecondaryIndexOverride, sse: in.SSESpecificationOverride, vectors: in.VectorIndexOverride,
	})
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
	e.goBackground(func() { e.runPITRRestore(t, src.ID, at, snap) })
	return &wire.RestoreTableToPointInTimeOutput{TableDescription: d}, nil
}

// pitrSourceName is the source table a point-in-time restore names:
// exactly one of SourceTableName and SourceTableArn.
func pitrSourceName(in *wire.RestoreTableToPointInTimeInput) (string, error) {
	switch {
	case in.SourceTableName != nil && in.SourceTableArn != nil:
		return "", ddberr.Validation("Must provide exactly one of: sourceTableArn, sourceTableName")
	case in.SourceTableName != nil:
		return *in.SourceTableName, nil
	case in.SourceTableArn == nil:
		return "", ddberr.Validation("The parameter 'TableName' is required")
	}
	arn := *in.SourceTableArn
	name := tableNameOf(arn)
	if name == arn {
		return "", ddberr.Validation("sourceTableArn is not a valid ARN")
	}
	return name, nil
}

// isoSeconds formats a time as DynamoDB's restore errors quote it.
func isoSeconds(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

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
