package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// DeleteTable deletes a table. The response describes it DELETING; it
// leaves the catalog after cfg.DeleteDelay (immediately when 0). Its items
// and index entries are removed in the background, in chunks; a purge
// marker written with the catalog change makes a restart finish the job.
// Table IDs are never reused, so a table recreated under the same name
// never sees the old items.
func (e *Engine) DeleteTable(ctx context.Context, in *wire.DeleteTableInput) (*wire.DeleteTableOutput, error) {
	name := cpDeref(in.TableName)
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.freshTable(name)
	if !ok {
		return nil, tableNotFound(name)
	}
	if err := tables.CheckDelete(t.Name, t.Status, t.rec.UpdateKind, &t.Desc); err != nil {
		return nil, err
	}
	d, err := e.dropTable(t)
	if err != nil {
		return nil, err
	}
	return &wire.DeleteTableOutput{TableDescription: d}, nil
}

// dropTable deletes t (DELETING, then gone; its items purged in the
// background) and describes it as DeleteTable answers. e.ddl is held.
func (e *Engine) dropTable(t *Table) (*wire.TableDescription, error) {
	name := t.Name
	now := e.clock.Now()
	rec := t.rec.Clone()
	rec.SetStatus(StatusDeleting)
	rec.ReadyAt = time.Time{}
	immediate := e.cfg.DeleteDelay <= 0
	if !immediate {
		rec.DeleteAt = now.Add(e.cfg.DeleteDelay)
	}
	sys := e.systemBackup(t, now)
	err := e.commit(e.cfg.Sync, func(txn storage.Txn) error {
		var marker []byte
		if sys != nil {
			id, err := e.allocTableID(txn)
			if err != nil {
				return err
			}
			sys.ID, marker = id, purgeKeepItems
			if err := backup.Put(txn, sys); err != nil {
				return err
			}
		}
		if err := txn.Set(metaPurgeKey(rec.ID), marker); err != nil {
			return err
		}
		if immediate {
			return deleteRecord(txn, name, rec.ID)
		}
		return putRecord(txn, rec)
	})
	if err != nil {
		return nil, err
	}
	gone, err := e.buildTable(rec)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if immediate {
		delete(e.tables, name)
	} else {
		e.tables[name] = gone
	}
	e.mu.Unlock()
	e.observeStreams(gone) // the table's stream is disabled; it stays readable
	if err := e.kin.DropTable(rec.ID); err != nil {
		return nil, err
	}
	if !immediate {
		e.scheduleRemoval(name, rec.ID, rec.DeleteAt)
	}
	id := rec.ID
	e.items.dropPrefix(itemPrefix(id))
	if sys != nil {
		e.cat.Allocated(sys.ID)
		e.setBackup(sys.ARN, sys)
	}
	e.goBackground(func() { e.purge(id, sys != nil) })
	return tables.DeletedDescription(e.describe(gone)), nil
}
