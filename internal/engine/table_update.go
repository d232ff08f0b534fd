package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// UpdateTable changes billing mode, throughput, streams, SSE, table class,
// deletion protection, on-demand/warm throughput and GSIs (metadata only:
// index maintenance and backfill belong to the indexes work).
func (e *Engine) UpdateTable(ctx context.Context, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
	name := cpDeref(in.TableName)
	f, verr := tables.ValidateUpdate(in, tableIndexes{})
	if verr != nil {
		return nil, verr
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.freshTable(name)
	if !ok {
		return nil, tableNotFound(name)
	}
	name = t.Name // TableName may have been the table's ARN
	if err := e.account().ReplicaUpdatesFault(in.ReplicaUpdates, e.cfg.NoGlobalTables); err != nil {
		return nil, err
	}
	if err := tables.Admit(name, t.Status, t.rec.UpdateKind, &t.rec.Desc, in, f, tableIndexes{}); err != nil {
		return nil, err
	}
	rec := t.rec.Clone()
	now := e.clock.Now()
	target, transitional, terr := e.account().ApplyTable(&rec.Desc, &rec.ClassChanges,
		tables.Update{In: in, Flags: f, Name: name, ARN: t.ARN(), Billing: t.BillingMode, Now: now})
	if terr != nil {
		return nil, terr
	}
	switching := target != t.BillingMode
	rec.BillingMode = target
	// rec.BillingMode is already target here, so a GSI's new capacity is
	// always dated (as it was before the rules moved to package tables).
	changed, created, gerr := e.account().ApplyGSIUpdates(&rec.Desc, name, target, rec.BillingMode == target, in, now, tableIndexes{})
	if gerr != nil {
		return nil, gerr
	}
	if created != "" {
		rec.AddIndexID(created)
	}
	transitional = transitional || changed
	vchanged, verr := e.applyVectorUpdates(t, rec, in, target)
	if verr != nil {
		return nil, verr
	}
	transitional = transitional || vchanged

	if transitional {
		rec.SetStatus(StatusUpdating)
		rec.ReadyAt = now.Add(e.cfg.CreateDelay)
		rec.UpdateKind = tables.Kind(f, switching)
		rec.Settle(now) // immediate when CreateDelay is 0
	}
	nt, err := e.saveRecord(rec)
	if err != nil {
		return nil, err
	}
	e.startIndexWork(nt, t)
	e.startVectorWork(nt, t)
	out := e.describe(nt)
	if transitional {
		out.TableStatus = StatusUpdating
	}
	tables.UpdateResponse(out, &t.Desc, in, f, switching)
	tables.GSIUpdateResponse(out, &t.Desc, in.GlobalSecondaryIndexUpdates)
	return &wire.UpdateTableOutput{TableDescription: out}, nil
}
