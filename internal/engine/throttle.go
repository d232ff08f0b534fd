package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/membership"
	"github.com/kura-db/kura/internal/wire"
)

// Capacity: what each request consumes is the core's (writeUnitsOf, the
// reads' readUnits), its enforcement (Config.Throttle) and metering
// (Config.MeterCapacity) package throttle's: Open builds the quota
// (e.quota) and wires its applier around the write path (wireAppliers);
// reads run inside quota.Read and transactions are admitted with
// quota.AdmitAll. With throughput enforced, a table's provisioned
// ReadCapacityUnits and WriteCapacityUnits, its GSIs', and the
// MaxRead/WriteRequestUnits of on-demand tables and GSIs limit what
// requests consume, as in DynamoDB; a refused request is
// ProvisionedThroughputExceededException (ThrottlingException for an
// on-demand maximum), a batch's refused requests come back unprocessed,
// and a transaction with a refused action is cancelled. In cluster mode
// each node enforces its share of every limit (followNodes).

// ThrottleConfig turns throughput enforcement on (package throttle).
type ThrottleConfig = throttle.Config

// DefaultBurst is DynamoDB's burst capacity: five minutes of unused
// capacity.
const DefaultBurst = throttle.DefaultBurst

// CapacityStat is what a table (Index "") or one of its GSIs consumed,
// reads or writes, since the engine opened (Config.MeterCapacity).
type CapacityStat = throttle.Stat

// Uncharged marks ctx's GetItem and Scan calls as Kura's own reads, which
// consume no capacity (throttle.Uncharged): global tables' replication.
func Uncharged(ctx context.Context) context.Context { return throttle.Uncharged(ctx) }

// A table version as the quota sees it (throttle.Target).

// Limit is the limit on t (index "") or one of its GSIs.
func (t *Table) Limit(index string, write bool) (throttle.Limit, bool) {
	return throttle.LimitOf(t.ID, t.BillingMode, &t.Desc, index, write)
}

// WriteIndexes are t's GSIs, whose write capacity a write needs too.
func (t *Table) WriteIndexes() []string {
	names := make([]string, len(t.GSIs))
	for i, ix := range t.GSIs {
		names[i] = ix.Name
	}
	return names
}

// ReadIndex is the GSI whose read capacity a read of index pays from, or
// "" for the table's (the table itself, an LSI).
func (t *Table) ReadIndex(index string) string {
	if ix, ok := t.Index(index); ok && !ix.Local {
		return index
	}
	return ""
}

// Meters count t's consumption; nil for a table without statistics.
func (t *Table) Meters() *throttle.Meters {
	if t.stats == nil {
		return nil
	}
	return &t.stats.capacity
}

// writeUnitsOf is the capacity of one item write: the table's share and
// each touched index's.
func (t *Table) writeUnitsOf(res writeResult) indexes.Units {
	u := indexes.Units{Table: res.units()}
	u.GSI, u.LSI = indexes.WriteUnits(t, res.Old, res.New, writeUnits)
	u.Vec = vectors.WriteBytes(&t.Table, t.Vectors, res.Old, res.New)
	return u
}

// writeConsumed is the ConsumedCapacity member of a single-item write, or
// nil when mode does not ask for it; the index shares are only worked out
// when it does (they take a look at every index of the table).
func (t *Table) writeConsumed(mode string, res writeResult) *wire.ConsumedCapacity {
	if mode != capTotal && mode != capIndexes {
		return nil
	}
	return indexes.Consumed(mode, t.Name, t.writeUnitsOf(res))
}

// writeApplier applies single-item writes (PutItem, UpdateItem,
// DeleteItem) and BatchWriteItem's: the core's write path, wrapped in the
// quota applier when capacity is enforced or metered (wireAppliers).
type writeApplier = throttle.Writes[itemWrite, batchWrite, writeResult]

// wireAppliers builds the write applier chain: with capacity neither
// enforced nor metered there is nothing to wrap writeItem with.
func (e *Engine) wireAppliers() {
	var a writeApplier = coreApplier{e}
	if e.quota.Metering() {
		a = throttle.Applier[itemWrite, batchWrite, writeResult]{Quota: e.quota, Next: a, Units: quotaUnits}
	}
	e.applier = a
}

// quotaUnits is what a write consumed, as the quota applier pays it.
func quotaUnits(t throttle.Target, r writeResult) (float64, map[string]float64) {
	u := t.(*Table).writeUnitsOf(r)
	return u.WithLSIs(), u.GSI
}

func (w itemWrite) QuotaTarget() throttle.Target  { return w.table }
func (w batchWrite) QuotaTarget() throttle.Target { return w.t }

// coreApplier is the write path itself (item.go, batch_write.go).
type coreApplier struct{ e *Engine }

func (a coreApplier) ApplyWrite(ctx context.Context, w itemWrite) (writeResult, error) {
	return a.e.writeItem(ctx, w)
}

func (a coreApplier) ApplyBatch(ctx context.Context, writes []batchWrite) ([]batchWrite, []writeResult, []batchWrite, error) {
	results, err := a.e.commitBatchWrites(ctx, writes)
	return writes, results, nil, err
}

// admitTxWrites and admitTxReads admit a transaction's actions: the
// refused ones carry ProvisionedThroughputExceeded (ThrottlingError for an
// on-demand maximum) and cancel it, the others None.
func (e *Engine) admitTxWrites(acts []*txAction) error {
	return e.admitTx(len(acts), true, func(i int) throttle.Target { return acts[i].table })
}

func (e *Engine) admitTxReads(gets []txGet) error {
	return e.admitTx(len(gets), false, func(i int) throttle.Target { return gets[i].table })
}

func (e *Engine) admitTx(n int, write bool, table func(i int) throttle.Target) error {
	if !e.quota.Enforcing() {
		return nil
	}
	tables := make([]throttle.Target, n)
	for i := range tables {
		tables[i] = table(i)
	}
	refused := e.quota.AdmitAll(tables, write)
	if refused == nil {
		return nil
	}
	reasons := transact.NewReasons(len(tables))
	for i, err := range refused {
		if err != nil {
			reasons.Set(i, throttle.Reason(err))
		}
	}
	return reasons.Err()
}

// chargeTxWrites pays a write transaction's capacity, as txWriteUnits
// counts it (doubled); chargeTxReads a read transaction's (items[i] is
// what gets[i] read).
func (e *Engine) chargeTxWrites(acts []*txAction, res []writeResult) {
	if !e.quota.Metering() {
		return
	}
	for i, a := range acts {
		u := txWriteUnits(a, res[i])
		e.quota.ChargeWrite(a.table, u.WithLSIs(), u.GSI)
	}
}

func (e *Engine) chargeTxReads(gets []txGet, items []attr.Item) {
	if !e.quota.Metering() {
		return
	}
	for i, g := range gets {
		e.quota.ChargeRead(g.table, "", 2*readUnits(itemSize(items[i]), true))
	}
}

// followNodes, in cluster mode with throughput enforced, keeps this
// node's share of every limit at 1/n of it for the n live nodes of the
// store (internal/membership; throttle's share.go), recounted every
// membership.Heartbeat. Callers are in Open.
func (e *Engine) followNodes() {
	if !e.cfg.Cluster || !e.quota.Enforcing() {
		return
	}
	b := e.quota.Buckets()
	b.Refresh(e.liveNodes)
	e.goBackground(func() { b.Follow(e.liveNodes, membership.Heartbeat, e.sleep) })
}

// NodesChanged recounts the live nodes now, for the share of every
// limit this node enforces: the server calls it once this node has
// joined the membership (which it does after Open), so a node does not
// wait a period to count itself. A no-op outside cluster mode or without
// enforcement.
func (e *Engine) NodesChanged() {
	if e.cfg.Cluster && e.quota.Enforcing() {
		e.quota.Buckets().Refresh(e.liveNodes)
	}
}

// liveNodes counts the nodes registered in the store (their heartbeats
// are on the lease clock's time, the system clock unless a test injects
// one).
func (e *Engine) liveNodes() (int, error) {
	var clock Clock = SystemClock{}
	if e.cfg.LeaseClock != nil {
		clock = e.cfg.LeaseClock
	}
	nodes, err := membership.List(e.store, clock.Now())
	return len(nodes), err
}
