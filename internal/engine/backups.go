package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// defaultRecoveryPeriodDays is PITR's default (and maximum) window.
const defaultRecoveryPeriodDays = 35

// pitrLag is how far LatestRestorableDateTime trails the present.
const pitrLag = 5 * time.Minute

// tableNotFoundForBackups is the TableNotFoundException the continuous
// backup operations answer for a missing table.
func tableNotFoundForBackups(name string) *ddberr.Error { return ddberr.TableNotFoundException(name) }

func (e *Engine) continuousBackups(t *Table) *wire.ContinuousBackupsDescription {
	p := t.rec.PITR
	d := &wire.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "DISABLED"}
	if p.Enabled {
		earliest, latest := pitrWindow(p, e.clock.Now())
		d.PointInTimeRecoveryStatus = "ENABLED"
		d.RecoveryPeriodInDays = cpPtr(cmp.Or(p.RecoveryPeriodInDays, defaultRecoveryPeriodDays))
		d.EarliestRestorableDateTime = wire.NewTime(earliest)
		d.LatestRestorableDateTime = wire.NewTime(latest)
	}
	return &wire.ContinuousBackupsDescription{ContinuousBackupsStatus: "ENABLED", PointInTimeRecoveryDescription: d}
}

// pitrWindow is the span a table with point-in-time recovery on can be
// restored to: from its enabling (or the start of its recovery period)
// to five minutes ago (or the enabling, early on), as DynamoDB reports it.
func pitrWindow(p pitrRecord, now time.Time) (earliest, latest time.Time) {
	days := cmp.Or(p.RecoveryPeriodInDays, defaultRecoveryPeriodDays)
	earliest = p.EnabledAt
	if w := now.AddDate(0, 0, -int(days)); w.After(earliest) {
		earliest = w
	}
	latest = now.Add(-pitrLag)
	if latest.Before(earliest) {
		latest = earliest
	}
	return earliest, latest
}

// DescribeContinuousBackups reports the table's point-in-time recovery.
func (e *Engine) DescribeContinuousBackups(ctx context.Context, in *wire.DescribeContinuousBackupsInput) (*wire.DescribeContinuousBackupsOutput, error) {
	name := cpDeref(in.TableName)
	t, ok := e.lookupTable(name)
	if !ok || t.Status == StatusDeleting {
		return nil, tableNotFoundForBackups(name)
	}
	return &wire.DescribeContinuousBackupsOutput{ContinuousBackupsDescription: e.continuousBackups(t)}, nil
}

// UpdateContinuousBackups enables or disables point-in-time recovery:
// while it is on, every item change keeps the image it replaced
// (internal/engine/pitr) for RestoreTableToPointInTime.
func (e *Engine) UpdateContinuousBackups(ctx context.Context, in *wire.UpdateContinuousBackupsInput) (*wire.UpdateContinuousBackupsOutput, error) {
	name := cpDeref(in.TableName)
	spec := in.PointInTimeRecoverySpecification
	enable := spec != nil && cpDeref(spec.PointInTimeRecoveryEnabled)
	if spec != nil && !enable && spec.RecoveryPeriodInDays != nil {
		return nil, ddberr.Validation("Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.lookupTable(name)
	if !ok || t.Status == StatusDeleting {
		return nil, tableNotFoundForBackups(name)
	}
	if t.Status == StatusCreating {
		return nil, ddberr.ContinuousBackupsUnavailable(t.Name)
	}
	rec := t.rec.clone()
	if enable {
		days := cpDeref(spec.RecoveryPeriodInDays)
		if days == 0 {
			days = defaultRecoveryPeriodDays
		}
		if !rec.PITR.Enabled {
			// A write in flight may hold the table's previous version:
			// images go on for every version first, those writes are
			// waited for, and only then does the window start.
			e.pitr.SetRecording(t.ID, true)
			e.barrier()
			rec.PITR.EnabledAt = e.clock.Now()
		}
		rec.PITR.Enabled = true
		rec.PITR.RecoveryPeriodInDays = days
	} else {
		rec.PITR = pitrRecord{}
	}
	nt, err := e.saveRecord(rec)
	if err != nil {
		e.pitr.SetRecording(t.ID, t.rec.PITR.Enabled)
		return nil, err
	}
	if !enable && t.rec.PITR.Enabled {
		// The window is gone: drop its images, every one taken so far (a
		// re-enabled window's images come after `until`).
		id, until := t.ID, time.Unix(0, e.pitr.Next(e.clock.Now()))
		e.goBackground(func() { e.trimPITR(id, until) })
	}
	return &wire.UpdateContinuousBackupsOutput{ContinuousBackupsDescription: e.continuousBackups(nt)}, nil
}
