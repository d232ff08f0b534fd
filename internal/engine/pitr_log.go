package engine

import (
	"time"

	"github.com/kura-db/kura/internal/engine/pitr"
)

// The point-in-time recovery history (the images item changes replaced)
// is internal/engine/pitr's, a subsystem of the write path; the engine
// keeps each table's entries within its recovery window, which it knows
// from the catalog.

// pitrTrimEvery is how often entries older than a table's recovery window
// are deleted.
const pitrTrimEvery = time.Hour

// trimPITR deletes a table's entries older than before.
func (e *Engine) trimPITR(tableID uint64, before time.Time) {
	e.purgeUntilClose(pitr.Prefix(tableID), pitr.Key(tableID, before.UnixNano()))
}

// startPITRTrim runs the hourly background pass that keeps each table's
// entries within its recovery window and drops expired system backups, on
// the node that holds the lease leasePITR (leases.go).
func (e *Engine) startPITRTrim() {
	e.goBackground(func() {
		for e.sleep(pitrTrimEvery) {
			if e.holds(leasePITR) {
				e.trimPITRWindows()
				e.bk.Expire()
			}
		}
	})
}

func (e *Engine) trimPITRWindows() {
	now := e.clock.Now()
	for _, t := range e.snapshotTables() {
		if p := t.rec.PITR; p.Enabled {
			days := p.RecoveryPeriodInDays
			if days == 0 {
				days = defaultRecoveryPeriodDays
			}
			e.trimPITR(t.ID, now.AddDate(0, 0, -int(days)))
		}
	}
}
