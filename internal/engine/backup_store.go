package engine

import (
	"encoding/json"
	"fmt"

	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
)

// On-demand backups (CreateBackup and friends) keep a copy of a table's
// items, independent of the table; their records, key layout and
// registry are package backup's (a backup.Record carries the table's
// record as it was), this file the core's part: the records' item ranges,
// loading them at Open and resuming, dropping them, copying the items.

// backupRecord is what the store keeps for one backup.
type backupRecord = backup.Record[tableRecord]

// Aliases of package backup's names the core uses often.
const (
	prefixBackup     = backup.PrefixRecord
	prefixBackupItem = backup.PrefixItem
	backupCreating   = backup.Creating
	backupAvailable  = backup.Available
	backupDeleted    = backup.Deleted
)

// backupItemRange is where a backup's items are stored: a system backup's
// are its deleted table's own.
func backupItemRange(b *backupRecord) (lower, upper []byte) {
	if b.System {
		return itemPrefix(b.Source.ID), itemPrefix(b.Source.ID + 1)
	}
	return backup.ItemPrefix(b.ID), backup.ItemPrefix(b.ID + 1)
}

// backup returns the backup with the given ARN.
func (e *Engine) backup(arn string) (*backupRecord, bool) { return e.bk.Get(arn) }

// setBackup installs a new version of a backup record (nil removes it).
func (e *Engine) setBackup(arn string, b *backupRecord) { e.bk.Set(arn, b) }

// loadBackups reads the backup records at Open and resumes what a stop
// interrupted: a backup still CREATING is copied again (from the table as
// it is now: the snapshot of the request did not survive the restart), or
// dropped when its table is gone; restores in progress (from a backup or
// to a point in time) start over.
func (e *Engine) loadBackups() error {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte{prefixBackup}, Upper: []byte{prefixBackup + 1}})
	if err != nil {
		return err
	}
	var creating []*backupRecord
	for it.Next() {
		var b backupRecord
		if err := json.Unmarshal(it.Value(), &b); err != nil {
			it.Close()
			return fmt.Errorf("engine: backup record %x: %w", it.Key()[1:], err)
		}
		e.bk.Set(b.ARN, &b)
		if b.Status == backupCreating {
			creating = append(creating, &b)
		}
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return err
	}
	for _, b := range creating {
		e.resumeBackup(b)
	}
	for _, t := range e.snapshotTables() {
		rs := t.Desc.RestoreSummary
		if rs == nil || !cpDeref(rs.RestoreInProgress) || t.Status != StatusCreating {
			continue
		}
		if rs.SourceBackupArn == nil {
			src, at := t.rec.RestoreSource, rs.RestoreDateTime.Time
			e.goBackground(func() { e.leasedRestore(t, func() { e.runPITRRestore(t, src, at, nil) }) })
		} else if b, ok := e.bk.Get(*rs.SourceBackupArn); ok {
			e.bk.StartRestore(b.ARN)
			e.goBackground(func() { e.leasedRestore(t, func() { e.runRestore(t, b) }) })
		}
	}
	return nil
}

// resumeBackup restarts the copy of a backup a stop interrupted.
func (e *Engine) resumeBackup(b *backupRecord) {
	t, ok := e.lookupTable(b.Source.Name)
	if !ok || t.ID != b.Source.ID || t.Status == StatusDeleting {
		e.goBackground(func() { e.dropBackup(b) })
		return
	}
	snap, err := e.openSnapshot()
	if err != nil {
		return
	}
	e.goBackground(func() {
		ran := e.leasedBackupCopy(b, func() {
			// What the interrupted copy wrote goes first: an item deleted
			// since must not stay behind in the backup.
			if !e.purgeUntilClose(backup.ItemPrefix(b.ID), backup.ItemPrefix(b.ID+1)) {
				snap.Close()
				return
			}
			e.copyBackup(b, snap)
		})
		if !ran {
			snap.Close()
		}
	})
}

// dropBackup removes a backup's record and then its items.
func (e *Engine) dropBackup(b *backupRecord) {
	if e.removeBackup(b) == nil {
		e.purgeUntilClose(backupItemRange(b))
	}
}

// removeBackup deletes a backup's record.
func (e *Engine) removeBackup(b *backupRecord) error {
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return txn.Delete(backup.Key(b.ID)) }); err != nil {
		return err
	}
	e.setBackup(b.ARN, nil)
	return nil
}

// itemSuffix is an item's storage key without its table's prefix
// (itemPrefix: one byte and the table ID).
func itemSuffix(key []byte) []byte { return key[itemPrefixLen:] }

// copyItems copies the items of table tableID as r holds them under the
// prefix dst (keyed by itemSuffix), backup.Chunk items a transaction; it
// stops early (false) on Close.
func (e *Engine) copyItems(r *snapshot.Reader, tableID uint64, dst []byte) (bool, error) {
	return backup.Copy(r, tableID, dst, func(keys, vals [][]byte) error {
		return e.commit(false, func(txn storage.Txn) error {
			for i := range keys {
				if err := txn.Set(keys[i], vals[i]); err != nil {
					return err
				}
			}
			return nil
		})
	}, e.closing)
}
