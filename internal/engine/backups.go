package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/wire"
)

// defaultRecoveryPeriodDays is PITR's default (and maximum) window.
const defaultRecoveryPeriodDays = pitr.DefaultRecoveryPeriodDays

// tableNotFoundForBackups is the TableNotFoundException the continuous
// backup operations answer for a missing table.
func tableNotFoundForBackups(name string) *ddberr.Error { return ddberr.TableNotFoundException(name) }

func (e *Engine) continuousBackups(t *Table) *wire.ContinuousBackupsDescription {
	p := t.rec.PITR
	return pitr.Describe(p.Enabled, p.EnabledAt, p.RecoveryPeriodInDays, e.clock.Now())
}

// pitrWindow is the span a table with point-in-time recovery on can be
// restored to (pitr.Window).
func pitrWindow(p pitrRecord, now time.Time) (earliest, latest time.Time) {
	return pitr.Window(p.EnabledAt, p.RecoveryPeriodInDays, now)
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
	enable, days, verr := pitr.CheckUpdate(in.PointInTimeRecoverySpecification)
	if verr != nil {
		return nil, verr
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
	rec := t.rec.Clone()
	if enable {
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
