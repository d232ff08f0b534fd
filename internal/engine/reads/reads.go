package reads

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Core is what the reads need of the engine's core: the table a read
// resolves.
type Core interface {
	// ReadTable is the named table (name nil: none) as a read of index
	// (nil: the table itself) sees it: ResourceNotFoundException unless
	// it is ACTIVE or UPDATING; in cluster mode a cached version that
	// lacks the index or has it still filling is reloaded.
	ReadTable(name, index *string) (Table, error)
}

// Table is one version of a table as the reads see it (the core's table
// versions implement it).
type Table interface {
	// Def is the name, ID and key schema.
	change.TableDef
	// Target is what the quota admits and charges.
	throttle.Target
	// Index is the secondary index (GSI or LSI) named name.
	Index(name string) (*indexes.Index, bool)
	// VectorIndexes are the table's vector indexes (a read naming one is
	// refused: vectors.CheckRead).
	VectorIndexes() []*vectors.Index
	// CheckKeyPaths refuses a filter or projection path that reaches into
	// a table or index key attribute ('.' or '[]'), in the core's words
	// for every operation.
	CheckKeyPaths(filter *expr.Condition, proj *expr.Projection) error
}

// Reads runs Query and Scan over one store.
type Reads struct {
	core  Core
	store storage.Store
	// rng opens a single iterator over the latest state without a
	// snapshot when the store can (see fillFromSnapshot); nil otherwise.
	rng   storage.RangeReader
	quota *throttle.Quota
}

// New is the reads of c's tables over store, admitted and charged by
// quota.
func New(c Core, store storage.Store, quota *throttle.Quota) *Reads {
	r := &Reads{core: c, store: store, quota: quota}
	r.rng, _ = store.(storage.RangeReader)
	return r
}

// Query reads the items of one partition in sort-key order, within the
// sort-key range of the key condition: one bounded range scan of storage.
func (r *Reads) Query(ctx context.Context, in *wire.QueryInput) (*wire.QueryOutput, error) {
	out, _, err := r.query(in, nil)
	return out, err
}

// QueryEncoded is Query, except that when the page returns every item
// whole (a table Query without filter, projection or Select=COUNT) the
// items come back already written as DynamoDB JSON, comma separated, in
// items (with encoded true) and the output's Items is nil. That skips
// decoding every stored item into an attr.Item. The items are appended to
// dst[:0], so a caller can reuse one buffer across requests.
func (r *Reads) QueryEncoded(ctx context.Context, in *wire.QueryInput, dst []byte) (out *wire.QueryOutput, items []byte, encoded bool, err error) {
	if dst == nil {
		dst = []byte{} // nil would mean "do not encode"
	}
	out, p, err := r.query(in, dst[:0])
	if err != nil || p == nil {
		return out, nil, false, err
	}
	items, encoded = p.encodedItems()
	return out, items, encoded, nil
}

// Scan reads a whole table, or one segment of it, in storage (hash)
// order; a read in an Uncharged ctx admits and pays no capacity (package
// throttle).
func (r *Reads) Scan(ctx context.Context, in *wire.ScanInput) (*wire.ScanOutput, error) {
	out, _, err := r.scan(ctx, in, nil, false)
	return out, err
}

// ScanEncoded is Scan with QueryEncoded's pre-encoded items: when the page
// returns every item whole, they are appended to dst[:0] as DynamoDB JSON
// (encoded true) and the output's Items is nil.
func (r *Reads) ScanEncoded(ctx context.Context, in *wire.ScanInput, dst []byte) (out *wire.ScanOutput, items []byte, encoded bool, err error) {
	if dst == nil {
		dst = []byte{} // nil would mean "do not encode"
	}
	out, p, err := r.scan(context.Background(), in, dst[:0], false)
	if err != nil || p == nil {
		return out, nil, false, err
	}
	items, encoded = p.encodedItems()
	return out, items, encoded, nil
}

// ScanPartiQL is Scan for an unkeyed PartiQL SELECT: on a local secondary
// index its filter sees the index entries only, so a condition on an
// attribute the index does not project matches nothing (a public
// conformance suite run against DynamoDB, 2026: the GSI and LSI mirrors).
func (r *Reads) ScanPartiQL(in *wire.ScanInput) (*wire.ScanOutput, error) {
	out, _, err := r.scan(context.Background(), in, nil, true)
	return out, err
}

// fillFromSnapshot fills p from one consistent snapshot.
func (r *Reads) fillFromSnapshot(p *page, opts storage.IterOptions, accept func(attr.Item) bool) error {
	if r.rng != nil {
		// p.fill opens one iterator and reads nothing else: that iterator
		// is the consistent view.
		return p.fill(r.rng, opts, accept)
	}
	snap, err := r.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	return p.fill(snap, opts, accept)
}

// pageResult is the members of a Query's or Scan's answer a page of the
// table gives.
type pageResult struct {
	items          []attr.Item // nil when the page is encoded
	count, scanned *int32
	last           attr.Item
	consumed       *wire.ConsumedCapacity
}

// tablePage fills p from one snapshot of t's items in opts (those accept
// takes: nil for all), admitted and charged by the quota, and gives its
// answer's members.
func (r *Reads) tablePage(ctx context.Context, t Table, p *page, opts storage.IterOptions, accept func(attr.Item) bool,
	consistent *bool, returnConsumed string) (pageResult, error) {
	var units float64
	if err := r.quota.Read(ctx, t, "", func() (float64, error) {
		err := r.fillFromSnapshot(p, opts, accept)
		units = readUnits(p.bytes, consistent)
		return units, err
	}); err != nil {
		return pageResult{}, err
	}
	var res pageResult
	if !p.enc.on {
		res.items = p.resultItems()
	}
	res.count, res.scanned = int32Ptr(p.matched), int32Ptr(p.scanned)
	res.last = p.lastEvaluatedKey(t.Def())
	res.consumed = consumed(returnConsumed, t.Def().Name, units)
	return res, nil
}

// consumed is the ConsumedCapacity member of a table read of units, or nil
// when mode (ReturnConsumedCapacity) does not ask for it.
func consumed(mode, table string, units float64) *wire.ConsumedCapacity {
	return indexes.Consumed(mode, table, indexes.Units{Table: units})
}

// readUnits is the read capacity of reading size bytes.
func readUnits(size int, consistent *bool) float64 {
	return throttle.ReadUnits(size, isTrue(consistent))
}

func isTrue(b *bool) bool { return b != nil && *b }

// int32Ptr is a pointer to n as an int32 (Count, ScannedCount).
func int32Ptr(n int) *int32 {
	v := int32(n)
	return &v
}
