package engine

import (
	"cmp"
	"context"
	"errors"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/wire"
)

// Throughput enforcement (Config.Throttle): with it on, a table's
// provisioned ReadCapacityUnits and WriteCapacityUnits, its GSIs', and the
// MaxRead/WriteRequestUnits of on-demand tables and GSIs (OnDemandThroughput)
// limit the capacity requests consume, as in DynamoDB; off (the default),
// they are stored and described only.
//
// Each limited table or GSI has a read and a write token bucket. It fills at
// the configured units per second and holds up to Burst of unused capacity
// (DynamoDB keeps up to 300 seconds of it, "burst capacity"); an
// on-demand maximum holds one second's worth. A request is admitted while
// the buckets it needs hold capacity, and then pays what it consumed, the
// same units ConsumedCapacity reports, so one large request can take a
// bucket below zero and the next ones wait until it refills. A write needs
// the table's write capacity and every GSI's (a write to a table is
// throttled when one of its GSIs is out of write capacity); a read needs
// the table's read capacity, or a GSI's when it reads that GSI. Writes to
// LSIs and reads of them are paid from the table's capacity.
//
// A refused request is ProvisionedThroughputExceededException (provisioned)
// or ThrottlingException (on-demand maximum) with ThrottlingReasons; in a
// batch the refused requests come back unprocessed, and only a batch none
// of whose requests could be processed fails; in a transaction the refused
// actions cancel it.

// ThrottleConfig turns throughput enforcement on (package throttle).
type ThrottleConfig = throttle.Config

// DefaultBurst is DynamoDB's burst capacity: five minutes of unused
// capacity.
const DefaultBurst = throttle.DefaultBurst

// throughputLimit is the limit on table t (index "") or one of its GSIs,
// reads or writes; ok is false when nothing limits it.
func (t *Table) throughputLimit(index string, write bool) (throttle.Limit, bool) {
	lim := throttle.Limit{Key: throttle.Key{Table: t.ID, Index: index, Write: write}}
	pt, od := t.Desc.ProvisionedThroughput, t.Desc.OnDemandThroughput
	if index != "" {
		pt, od = nil, nil
		for _, g := range t.Desc.GlobalSecondaryIndexes {
			if cpDeref(g.IndexName) == index {
				pt, od = g.ProvisionedThroughput, g.OnDemandThroughput
			}
		}
	}
	var units int64
	if t.BillingMode == BillingPayPerRequest {
		if od != nil {
			units = cpDeref(od.MaxReadRequestUnits)
			if write {
				units = cpDeref(od.MaxWriteRequestUnits)
			}
		}
		lim.OnDemand = true
	} else if pt != nil {
		units = cpDeref(pt.ReadCapacityUnits)
		if write {
			units = cpDeref(pt.WriteCapacityUnits)
		}
	}
	lim.Rate = float64(units)
	return lim, units > 0
}

// readIndex is the GSI whose read capacity a read of index pays from, or
// "" for the table's (the table itself, an LSI).
func (t *Table) readIndex(index string) string {
	if ix, ok := t.Index(index); ok && !ix.Local {
		return index
	}
	return ""
}

// admitRead refuses a read of t (or of its index) when the capacity it
// reads from is used up.
func (e *Engine) admitRead(t *Table, index string) error {
	if !e.cfg.Throttle.On {
		return nil
	}
	return e.admit(t, []string{t.readIndex(index)}, false)
}

// admitWrite refuses a write to t when the table's or any GSI's write
// capacity is used up.
func (e *Engine) admitWrite(t *Table) error {
	if !e.cfg.Throttle.On {
		return nil
	}
	names := make([]string, 1, 1+len(t.GSIs))
	for _, ix := range t.GSIs {
		names = append(names, ix.Name)
	}
	return e.admit(t, names, true)
}

func (e *Engine) admit(t *Table, names []string, write bool) error {
	now := e.clock.Now()
	for _, name := range names {
		lim, ok := t.throughputLimit(name, write)
		if !ok {
			continue
		}
		if e.thr.Empty(lim, now) {
			if e.cfg.MeterCapacity {
				if m := meterFor(t, lim.Key.Index, write); m != nil {
					m.throttled.Add(1)
				}
			}
			return throttle.Refused(t.ARN(), lim)
		}
	}
	return nil
}

// writeApplier applies one single-item write (PutItem, UpdateItem,
// DeleteItem). Appliers wrap one another around the one that applies, as
// etcd's quota and authorization appliers wrap its backend applier: here
// the quota applier (capacity admitted before, paid after) around the
// core's writeItem. Open wires the chain once (wireAppliers); the
// operations call e.applier and name no admission or charge. (Batches and
// transactions admit and pay as a whole, by their own rules, below.)
type writeApplier interface {
	applyWrite(ctx context.Context, w itemWrite) (writeResult, error)
	// applyBatch applies a BatchWriteItem's writes: those it kept (in
	// request order), their results, and the requests it returns
	// unprocessed.
	applyBatch(ctx context.Context, writes []batchWrite) ([]batchWrite, []writeResult, map[string][]wire.WriteRequest, error)
}

// wireAppliers builds the write applier chain: with capacity neither
// enforced nor metered there is nothing to wrap writeItem with.
func (e *Engine) wireAppliers() {
	var a writeApplier = coreApplier{e}
	if e.metering {
		a = quotaApplier{e: e, next: a}
	}
	e.applier = a
}

// coreApplier is the write path itself (item.go).
type coreApplier struct{ e *Engine }

func (a coreApplier) applyWrite(ctx context.Context, w itemWrite) (writeResult, error) {
	return a.e.writeItem(ctx, w)
}

func (a coreApplier) applyBatch(ctx context.Context, writes []batchWrite) ([]batchWrite, []writeResult, map[string][]wire.WriteRequest, error) {
	results, err := a.e.commitBatchWrites(ctx, writes)
	return writes, results, map[string][]wire.WriteRequest{}, err
}

// quotaApplier refuses a write when the capacity is used up, and pays
// for it after (a failed condition still consumes a write unit).
type quotaApplier struct {
	e    *Engine
	next writeApplier
}

func (a quotaApplier) applyWrite(ctx context.Context, w itemWrite) (writeResult, error) {
	e := a.e
	if err := e.admitWrite(w.table); err != nil {
		return writeResult{}, err
	}
	res, err := a.next.applyWrite(ctx, w)
	if err == nil {
		e.chargeWrite(w.table, w.table.writeUnitsOf(res))
		return res, nil
	}
	var de *ddberr.Error // escapes: only on the error path
	if errors.As(err, &de) && de.Type == "ConditionalCheckFailedException" {
		e.chargeWrite(w.table, indexUnits{table: 1})
	}
	return res, err
}

// applyBatch admits the writes whose tables have capacity
// (admitBatchWrites), applies them, and pays what each consumed beyond
// the estimate it paid on admission.
func (a quotaApplier) applyBatch(ctx context.Context, writes []batchWrite) ([]batchWrite, []writeResult, map[string][]wire.WriteRequest, error) {
	e := a.e
	writes, unprocessed, err := e.admitBatchWrites(writes)
	if err != nil {
		return nil, nil, nil, err
	}
	writes, results, _, err := a.next.applyBatch(ctx, writes)
	if err != nil {
		return nil, nil, nil, err
	}
	for i, w := range writes {
		u := w.t.writeUnitsOf(results[i])
		if e.cfg.Throttle.On {
			u.table -= w.estimate() // paid on admission
		}
		e.chargeWrite(w.t, u)
	}
	return writes, results, unprocessed, nil
}

// admitBatchWrites keeps the writes whose tables have write capacity
// (throttle.go), in request order, each paying its estimate on admission so
// that the next sees it; the others are returned as UnprocessedItems. When
// none is kept, the request fails with the first refusal.
func (e *Engine) admitBatchWrites(writes []batchWrite) ([]batchWrite, map[string][]wire.WriteRequest, error) {
	unprocessed := map[string][]wire.WriteRequest{}
	if !e.cfg.Throttle.On {
		return writes, unprocessed, nil
	}
	kept := writes[:0:0]
	var refused error
	for _, w := range writes {
		if err := e.admitWrite(w.t); err != nil {
			refused = cmp.Or(refused, err)
			unprocessed[w.name] = append(unprocessed[w.name], w.req)
			continue
		}
		e.chargeWrite(w.t, indexUnits{table: w.estimate()})
		kept = append(kept, w)
	}
	if len(kept) == 0 {
		return nil, nil, refused
	}
	return kept, unprocessed, nil
}

// chargeRead pays units read from t (or its index), and counts them
// (capacity_meter.go).
func (e *Engine) chargeRead(t *Table, index string, units float64) {
	if !e.metering {
		return
	}
	e.charge(t, t.readIndex(index), false, units)
}

// chargeWrite pays a write's units: the table's share and its LSIs' from
// the table's write capacity, each GSI's share from that GSI's.
func (e *Engine) chargeWrite(t *Table, u indexUnits) {
	if !e.metering {
		return
	}
	table := u.table
	for _, v := range u.lsi {
		table += v
	}
	e.charge(t, "", true, table)
	for name, v := range u.gsi {
		e.charge(t, name, true, v)
	}
}

func (e *Engine) charge(t *Table, index string, write bool, units float64) {
	if units == 0 {
		return
	}
	if e.cfg.MeterCapacity {
		if m := meterFor(t, index, write); m != nil {
			m.add(units)
		}
	}
	lim, ok := t.throughputLimit(index, write)
	if !ok || !e.cfg.Throttle.On {
		return
	}
	e.thr.Charge(lim, e.clock.Now(), units)
}

// admitTxWrites cancels a write transaction one of whose actions' tables
// (or their GSIs) is out of write capacity: those actions carry
// ProvisionedThroughputExceeded (ThrottlingError for an on-demand
// maximum), the others None.
func (e *Engine) admitTxWrites(acts []*txAction) error {
	if !e.cfg.Throttle.On {
		return nil
	}
	tables := make([]*Table, len(acts))
	for i, a := range acts {
		tables[i] = a.table
	}
	return e.admitTx(tables, e.admitWrite)
}

// admitTxReads is admitTxWrites for a read transaction.
func (e *Engine) admitTxReads(gets []txGet) error {
	if !e.cfg.Throttle.On {
		return nil
	}
	tables := make([]*Table, len(gets))
	for i, g := range gets {
		tables[i] = g.table
	}
	return e.admitTx(tables, func(t *Table) error { return e.admitRead(t, "") })
}

func (e *Engine) admitTx(tables []*Table, admit func(*Table) error) error {
	reasons := transact.NewReasons(len(tables))
	for i, t := range tables {
		if err := admit(t); err != nil {
			reasons.Set(i, throttleReason(err.(*ddberr.Error)))
		}
	}
	return reasons.Err()
}

// chargeTxWrites pays a write transaction's capacity, as
// txWriteUnits counts it (doubled).
func (e *Engine) chargeTxWrites(acts []*txAction, res []writeResult) {
	if !e.metering {
		return
	}
	for i, a := range acts {
		e.chargeWrite(a.table, txWriteUnits(a, res[i]))
	}
}

// throttleReason is a transaction's cancellation reason for an action
// refused for capacity.
func throttleReason(err *ddberr.Error) wire.CancellationReason {
	code := "ProvisionedThroughputExceeded"
	if err.Type == "ThrottlingException" {
		code = "ThrottlingError"
	}
	msg := err.Message
	return wire.CancellationReason{Code: code, Message: &msg}
}
