package engine

import (
	"time"

	"github.com/kura-db/kura/internal/engine/backup"
)

// systemBackup is the backup DynamoDB makes when a table with
// point-in-time recovery on is deleted (probe reports captured from
// DynamoDB, 2026-10-09): named "<table>$DeletedTableBackup", of type
// SYSTEM, listed only when ListBackups asks for SYSTEM or ALL backups,
// restorable like any backup, undeletable, gone after 35 days. Its ARN
// ends in -00000000. Its items are the deleted table's own: the table's
// purge leaves them (purgeKeepItems) until the backup expires. nil when
// the table has recovery off. The caller stores it with the DeleteTable.
func (e *Engine) systemBackup(t *Table, now time.Time) *backupRecord {
	if !t.rec.PITR.Enabled {
		return nil
	}
	d := e.describe(t)
	return &backupRecord{
		ARN:       backup.SystemARN(e.cfg.Region, e.cfg.AccountID, t.Name, now),
		Name:      t.Name + "$DeletedTableBackup",
		Status:    backupAvailable,
		Created:   now,
		SizeBytes: cpDeref(d.TableSizeBytes),
		ItemCount: cpDeref(d.ItemCount),
		Source:    *t.rec.Clone(),
		System:    true,
		Expires:   now.AddDate(0, 0, backup.SystemDays),
	}
}

// expireSystemBackups drops the system backups past their expiry, with
// their items (run with the hourly point-in-time trim).
func (e *Engine) expireSystemBackups() {
	for _, b := range e.bk.Expired(e.clock.Now()) {
		e.dropBackup(b)
	}
}
