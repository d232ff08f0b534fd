package engine

import (
	"context"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// CreateBackup takes an on-demand backup of a table. The request fixes the
// backup's content (a consistent snapshot of the table at that moment); the
// items are copied in the background while the backup is CREATING, and it
// turns AVAILABLE when the copy is durable. Writes to the table after the
// request are not in the backup.
func (e *Engine) CreateBackup(ctx context.Context, in *wire.CreateBackupInput) (*wire.CreateBackupOutput, error) {
	if err := e.refuseInCluster("CreateBackup"); err != nil { // cluster_refusals.go
		return nil, err
	}
	name := cpDeref(in.TableName)
	e.ddl.Lock()
	defer e.ddl.Unlock()
	// A table still being created is not found (DynamoDB's answer, the
	// same bytes as for a missing table); UPDATING and DELETING tables
	// are backed up.
	t, ok := e.lookupTable(name)
	if !ok || t.Status == StatusCreating {
		return nil, ddberr.TableNotFoundException(name)
	}

	snap, err := e.openSnapshot()
	if err != nil {
		return nil, err
	}
	now := e.clock.Now()
	d := e.describe(t)
	b := &backupRecord{
		ARN:       backup.NewARN(e.cfg.Region, e.cfg.AccountID, t.Name, now),
		Name:      cpDeref(in.BackupName),
		Status:    backupCreating,
		Created:   now,
		SizeBytes: cpDeref(d.TableSizeBytes),
		ItemCount: cpDeref(d.ItemCount),
		Source:    *t.rec.Clone(),
	}
	_, err = e.commitNewID(func(txn storage.Txn, id uint64) error {
		b.ID = id
		return backup.Put(txn, b)
	})
	if err != nil {
		snap.Close()
		return nil, err
	}
	e.setBackup(b.ARN, b)
	e.goBackground(func() {
		if !e.leasedBackupCopy(b, func() { e.copyBackup(b, snap) }) {
			snap.Close()
		}
	})
	return &wire.CreateBackupOutput{BackupDetails: b.Details()}, nil
}

// copyBackup copies the table's items as snap holds them into the backup,
// then marks it AVAILABLE. It owns snap. On Close it stops; the next Open
// copies again (loadBackups).
func (e *Engine) copyBackup(b *backupRecord, snap *snapshot.Reader) {
	defer snap.Close()
	done, err := e.copyItems(snap, b.Source.ID, backup.ItemPrefix(b.ID))
	if err != nil || !done {
		return
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	cur, ok := e.backup(b.ARN)
	if !ok || cur.Status != backupCreating {
		return
	}
	nb := *cur
	nb.Status = backupAvailable
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return backup.Put(txn, &nb) }); err != nil {
		return
	}
	e.setBackup(nb.ARN, &nb)
}
