package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// CreateTable creates a table. Its response reports CREATING, as DynamoDB's
// does; the table turns ACTIVE after cfg.CreateDelay (immediately when 0).
func (e *Engine) CreateTable(ctx context.Context, in *wire.CreateTableInput) (*wire.CreateTableOutput, error) {
	name, nerr := createTableName(cpDeref(in.TableName))
	if nerr != nil {
		return nil, nerr
	}
	in.TableName = &name // from here on, the name a table ARN stood for
	billing, verr := e.account().ValidateCreateTable(in, tableIndexes{})
	if verr != nil {
		return nil, verr
	}
	if in.ResourcePolicy != nil {
		if err := policies.Check(*in.ResourcePolicy, false); err != nil {
			return nil, err
		}
	}

	e.ddl.Lock()
	defer e.ddl.Unlock()
	if t, exists := e.lookupTable(name); exists {
		if t.Status == StatusCreating {
			return nil, inUse(t) // "Table is being created: X" while CREATING
		}
		return nil, ddberr.ResourceInUse("Table already exists: " + name)
	}

	now := e.clock.Now()
	rec := e.newTableRecord(in, billing, now)
	if in.ResourcePolicy != nil {
		rec.Policies = policies.Set{"": {Document: *in.ResourcePolicy, Revision: policies.NextRevision(e.clock.Now(), "")}}
	}
	if e.cfg.CreateDelay > 0 {
		rec.SetStatus(StatusCreating)
		rec.ReadyAt = now.Add(e.cfg.CreateDelay)
		tables.SetGSIStatus(&rec.Desc, StatusCreating)
		addCreateVectors(rec, in, StatusCreating)
	} else {
		rec.SetStatus(StatusActive)
		tables.SetGSIStatus(&rec.Desc, StatusActive)
		addCreateVectors(rec, in, StatusActive)
	}
	t, err := e.storeNewTable(rec)
	if err != nil {
		return nil, err
	}

	d := e.describe(t)
	tables.CreateResponse(d, in, billing)
	return &wire.CreateTableOutput{TableDescription: d}, nil
}

// newTableRecord is the catalog record of a validated CreateTable request
// (or a restore's), before its status is set.
func (e *Engine) newTableRecord(in *wire.CreateTableInput, billing string, now time.Time) *tableRecord {
	rec := &tableRecord{Name: cpDeref(in.TableName), BillingMode: billing}
	rec.Desc = e.account().NewDescription(in, billing, now)
	for _, l := range rec.Desc.LocalSecondaryIndexes {
		rec.AddIndexID(cpDeref(l.IndexName))
	}
	for _, g := range rec.Desc.GlobalSecondaryIndexes {
		rec.AddIndexID(cpDeref(g.IndexName))
	}
	rec.Tags = slices.Clone(in.Tags)
	return rec
}

// storeNewTable gives a new table record its ID, stores it and installs
// the table. Callers hold e.ddl.
func (e *Engine) storeNewTable(rec *tableRecord) (*Table, error) {
	_, err := e.commitNewID(func(txn storage.Txn, id uint64) error {
		// Read with Get: another node sharing the store may be creating
		// the same name, and then one of the two commits conflicts.
		if _, err := txn.Get(catalogKey(rec.Name)); err == nil {
			return ddberr.ResourceInUse("Table already exists: " + rec.Name)
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		rec.ID = id
		return putRecord(txn, rec)
	})
	if err != nil {
		return nil, err
	}
	t, err := e.installTable(rec)
	if err != nil {
		return nil, err
	}
	e.startVectorWork(t, nil)
	return t, nil
}
