package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
)

// On-demand backups (CreateBackup and friends) keep a copy of a table's
// items, independent of the table:
//
//	"b" backupID(8)                → backup record (JSON)
//	"B" backupID(8) + item suffix  → a stored item, keyed as in the table
//	                                 without the table's prefix ("i" tableID)
//
// Backup IDs come from the table ID counter, so they are never reused.
const (
	prefixBackup     = 'b'
	prefixBackupItem = 'B'
)

// Backup statuses (BackupDetails.BackupStatus).
const (
	backupCreating  = "CREATING"
	backupAvailable = "AVAILABLE"
	backupDeleted   = "DELETED"
)

// backupChunk is how many items one storage transaction copies when a
// backup is taken or restored.
const backupChunk = 256

// backupRecord is what the catalog stores for one backup.
type backupRecord struct {
	ID        uint64    `json:"id"`
	ARN       string    `json:"arn"`
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	Created   time.Time `json:"created"`
	SizeBytes int64     `json:"size"`
	ItemCount int64     `json:"items"`
	// Source is the table's record when the backup was requested: its
	// schema, indexes, throughput and settings, and the ID its items were
	// copied from.
	Source tableRecord `json:"source"`
	// System marks the backup DynamoDB makes when a table with
	// point-in-time recovery on is deleted (backup_system.go): its items
	// stay where the table kept them, and it expires.
	System  bool      `json:"system,omitempty"`
	Expires time.Time `json:"expires,omitzero"`
}

// itemRange is where a backup's items are stored.
func (b *backupRecord) itemRange() (lower, upper []byte) {
	if b.System {
		return itemPrefix(b.Source.ID), itemPrefix(b.Source.ID + 1)
	}
	return backupItemPrefix(b.ID), backupItemPrefix(b.ID + 1)
}

// backupState is the engine's in-memory view of its backups.
type backupState struct {
	mu sync.Mutex
	// byRes holds the backups by the resource part of their ARN
	// (backupResource): DynamoDB ignores an ARN's region when it looks a
	// backup up. Records are replaced, never changed in place.
	byRes map[string]*backupRecord
	// restoring counts the restores in progress from each backup (by ARN):
	// such a backup cannot be deleted.
	restoring map[string]int
}

func backupKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixBackup}, id)
}

func backupItemPrefix(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixBackupItem}, id)
}

// backupARN is a new backup's ARN, shaped like DynamoDB's:
// the table's ARN, "/backup/", the request time in milliseconds (14
// digits, zero-padded) and eight random hex digits.
func (e *Engine) backupARN(table string, at time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/backup/%014d-%x",
		e.cfg.Region, e.cfg.AccountID, table, at.UnixMilli(), r)
}

func putBackup(txn storage.Txn, b *backupRecord) error {
	v, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return txn.Set(backupKey(b.ID), v)
}

// backupResource is the part of a backup ARN after its account:
// "table/<name>/backup/<id>".
func backupResource(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 {
		return arn
	}
	return parts[5]
}

// backup returns the backup with the given ARN.
func (e *Engine) backup(arn string) (*backupRecord, bool) {
	e.bk.mu.Lock()
	defer e.bk.mu.Unlock()
	b, ok := e.bk.byRes[backupResource(arn)]
	return b, ok
}

// setBackup installs a new version of a backup record (nil removes it).
func (e *Engine) setBackup(arn string, b *backupRecord) {
	e.bk.mu.Lock()
	defer e.bk.mu.Unlock()
	if b == nil {
		delete(e.bk.byRes, backupResource(arn))
		return
	}
	e.bk.byRes[backupResource(arn)] = b
}

// loadBackups reads the backup records at Open and resumes what a stop
// interrupted: a backup still CREATING is copied again (from the table as
// it is now: the snapshot of the request did not survive the restart), or
// dropped when its table is gone; restores in progress (from a backup or
// to a point in time) start over.
func (e *Engine) loadBackups() error {
	e.bk.byRes = map[string]*backupRecord{}
	e.bk.restoring = map[string]int{}
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
		e.bk.byRes[backupResource(b.ARN)] = &b
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
			e.goBackground(func() { e.runPITRRestore(t, src, at, nil) })
		} else if b, ok := e.bk.byRes[backupResource(*rs.SourceBackupArn)]; ok {
			e.bk.restoring[b.ARN]++
			e.goBackground(func() { e.runRestore(t, b) })
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
		// What the interrupted copy wrote goes first: an item deleted
		// since must not stay behind in the backup.
		if !e.purgeUntilClose(backupItemPrefix(b.ID), backupItemPrefix(b.ID+1)) {
			snap.Close()
			return
		}
		e.copyBackup(b, snap)
	})
}

// dropBackup removes a backup's record and then its items.
func (e *Engine) dropBackup(b *backupRecord) {
	if e.removeBackup(b) == nil {
		e.purgeUntilClose(b.itemRange())
	}
}

// removeBackup deletes a backup's record.
func (e *Engine) removeBackup(b *backupRecord) error {
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return txn.Delete(backupKey(b.ID)) }); err != nil {
		return err
	}
	e.setBackup(b.ARN, nil)
	return nil
}

// itemSuffix is an item's storage key without its table's prefix
// (itemPrefix: one byte and the table ID).
func itemSuffix(key []byte) []byte { return key[itemPrefixLen:] }

// copyItems copies the items of table tableID as r holds them under the
// prefix dst (keyed by itemSuffix), in transactions of backupChunk items;
// it stops early (false) on Close.
func (e *Engine) copyItems(r *snapshot.Reader, tableID uint64, dst []byte) (bool, error) {
	var keys, vals [][]byte
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		err := e.commit(false, func(txn storage.Txn) error {
			for i := range keys {
				if err := txn.Set(keys[i], vals[i]); err != nil {
					return err
				}
			}
			return nil
		})
		keys, vals = keys[:0], vals[:0]
		return err
	}
	ok, err := r.Items(tableID, func(suffix, stored []byte) (bool, error) {
		keys = append(keys, append(slices.Clip(dst), suffix...))
		vals = append(vals, bytes.Clone(stored))
		if len(keys) < backupChunk {
			return true, nil
		}
		if err := flush(); err != nil {
			return false, err
		}
		select {
		case <-e.closing:
			return false, nil
		default:
			return true, nil
		}
	})
	if !ok || err != nil {
		return false, err
	}
	return true, flush()
}
