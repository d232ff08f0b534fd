package engine

import (
	"bytes"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// indexRead is one Query or Scan of a secondary index.
type indexRead struct {
	t          *Table
	ix         *Index
	consistent bool
	// fetch: an LSI read that needs attributes its entries lack reads the
	// item from the table (and pays for it).
	fetch bool

	indexBytes int     // size of the entries read
	tableUnits float64 // capacity of the table reads (LSI fetches)
}

// openIndexRead resolves IndexName for a read and applies DynamoDB's
// checks, in its order: the index exists, no consistent reads on a GSI, the
// GSI is not being backfilled, and Select=ALL_ATTRIBUTES only where the
// whole item is available.
func openIndexRead(t *Table, name, sel string, consistent *bool, filter *expr.Condition, proj *expr.Projection, entriesOnly bool) (*indexRead, error) {
	ix, ok := t.Index(name)
	if !ok || ix.Status == StatusDeleting {
		return nil, ddberr.Validation("The table does not have the specified index: " + name)
	}
	r := &indexRead{t: t, ix: ix, consistent: isTrue(consistent)}
	if !ix.Local {
		if r.consistent {
			return nil, ddberr.Validation("Consistent reads are not supported on global secondary indexes")
		}
		if ix.Status != StatusActive || ix.Backfilling {
			return nil, ddberr.Validation("Cannot read from backfilling global secondary index: " + name)
		}
	}
	if sel == selectAll && !ix.ProjectAll() {
		// Every form of Query and Scan, with or without a filter (dynalite's
		// tests, run against DynamoDB; TestSelectAllAttributesOnPartialGSI).
		if !ix.Local {
			return nil, ddberr.InvalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", name)
		}
		r.fetch = true
	}
	if ix.Local && !ix.ProjectAll() && !r.fetch {
		need := func(p expr.Path) {
			if !t.projects(ix, p[0].Name) {
				r.fetch = true
			}
		}
		if filter != nil && !entriesOnly {
			walkConditionPaths(filter, need)
		}
		if proj != nil {
			for _, p := range proj.Paths {
				need(p)
			}
		}
	}
	return r, nil
}

// fill reads entries within opts from src into p until the range ends or p
// is full. table is where non-projected attributes are fetched from (r.fetch:
// the same snapshot as src); nil when r does not fetch.
func (r *indexRead) fill(src storage.RangeReader, table storage.Reader, p *page, opts storage.IterOptions) error {
	if p.enc.on {
		// Every entry goes out whole: transcode it as stored.
		err := p.fillEncoded(src, opts)
		r.indexBytes += p.bytes
		return err
	}
	it, err := src.NewIterator(opts)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		entry, err := attr.DecodeItem(it.Value())
		if err != nil {
			return err
		}
		size := attr.ItemSize(entry)
		r.indexBytes += size
		item := entry
		if r.fetch {
			full, err := readItem(table, r.t.storageKey(r.t.primaryKeyOf(entry)))
			if err != nil {
				return err
			}
			if full != nil {
				item = full
				r.tableUnits += readUnits(attr.ItemSize(full), r.consistent)
			}
		}
		full, err := p.add(item)
		// The 1 MB page cap counts index entries, not fetched items.
		p.bytes += size - attr.ItemSize(item)
		if err != nil || full {
			return err
		}
	}
	return it.Err()
}

// units is the read capacity of the read: the entries read from the index
// and any items fetched from the table.
func (r *indexRead) units() indexUnits {
	u := indexUnits{table: r.tableUnits}
	m := map[string]float64{r.ix.Name: readUnits(r.indexBytes, r.consistent)}
	if r.ix.Local {
		u.lsi = m
	} else {
		u.gsi = m
	}
	return u
}

// lastEvaluatedKey is the LastEvaluatedKey of an index page: table and
// index key attributes of the last entry read.
func (r *indexRead) lastEvaluatedKey(p *page) attr.Item {
	if !p.full {
		return nil
	}
	return indexes.KeyItem(r.t.Def(), r.ix, p.lastScanned())
}

// validateStartKey checks an ExclusiveStartKey of an index read, in the
// order and words of dynalite's Query and Scan tests (run against
// DynamoDB): exactly the table and index key attributes (else the short
// text), the index's key attributes with their types (a missing one: the
// short text; a mistyped one: msgKeySchema alone), then the table's (a
// missing or mistyped one: the long text), then the key value rules.
func (r *indexRead) validateStartKey(esk attr.Item) error {
	attrs := r.t.keyAttrs()
	for _, k := range r.ix.KeyAttrs() {
		if !r.t.isKeyAttr(k.Name) {
			attrs = append(attrs, k)
		}
	}
	if len(esk) != len(attrs) {
		return ddberr.Validation(msgStartKeyInvalid)
	}
	for _, ka := range r.ix.KeyAttrs() {
		switch v, ok := esk[ka.Name]; {
		case !ok:
			return ddberr.Validation(msgStartKeyInvalid)
		case v.T != ka.Type:
			return ddberr.Validation(msgKeySchema)
		}
	}
	for _, ka := range r.t.keyAttrs() {
		if v, ok := esk[ka.Name]; !ok || v.T != ka.Type {
			return ddberr.Validation(msgStartKeyInvalid + ": " + msgKeySchema)
		}
	}
	if err := r.t.checkKeyValues(esk); err != nil {
		return ddberr.Validation(msgStartKeyInvalid + ": " + ddberr.As(err).Message)
	}
	return nil
}

// queryIndex is Query with IndexName. With encode, a page of entries that
// all go out whole (no filter, projection, COUNT or fetch from the table)
// keeps them encoded (see query).
func (e *Engine) queryIndex(in *wire.QueryInput, x queryExprs, t *Table, encode []byte) (*wire.QueryOutput, *page, error) {
	r, err := openIndexRead(t, *in.IndexName, in.Select, in.ConsistentRead, x.filter, x.proj, false)
	if err != nil {
		return nil, nil, err
	}
	ix := r.ix
	if err := checkLegacyKeyCount(in, x, len(ix.Hashes)+len(ix.Ranges)); err != nil {
		return nil, nil, err
	}
	kc, err := analyzeIndexKeyCondition(ix, x.key)
	if err != nil {
		return nil, nil, err
	}
	if x.filter != nil {
		var bad string
		walkConditionPaths(x.filter, func(p expr.Path) {
			if bad == "" && ix.IsKeyAttr(p[0].Name) {
				bad = p[0].Name
			}
		})
		if bad != "" {
			return nil, nil, ddberr.Validationf("%s can only contain non-primary key attributes: Primary key attribute: %s", x.filterBy, bad)
		}
	}
	hashVals := make([]attr.Value, len(kc.Hash))
	for i, h := range kc.Hash {
		hashVals[i] = h.Values[0]
	}
	opts := indexQueryBounds(t.ID, ix, hashVals, kc.Range, in.ScanIndexForward == nil || *in.ScanIndexForward)
	if esk := in.ExclusiveStartKey; esk != nil {
		if err := r.validateStartKey(esk); err != nil {
			return nil, nil, err
		}
		for i, h := range ix.Hashes {
			if !attr.Equal(esk[h.Name], hashVals[i]) {
				return nil, nil, ddberr.Validation(msgStartKeyOutside)
			}
		}
		for i, rp := range kc.Range {
			if !sortKeyMatches(rp, esk[ix.Ranges[i].Name]) {
				return nil, nil, ddberr.Validation(msgStartKeyRangeNoMatch)
			}
		}
		startAfter(&opts, t.entryKey(ix, esk))
	}
	if err := t.checkScalarKeyPaths(x.filter, x.proj, nil); err != nil {
		return nil, nil, err
	}
	p := newPage(in.Limit, in.Select, x.filter, x.proj)
	if encode != nil && p.canEncode() && !r.fetch {
		p.enc = encodedPage{on: true, json: encode}
	}
	if err := e.admitRead(t, r.ix.Name); err != nil {
		return nil, nil, err
	}
	if err := e.fillIndexFromSnapshot(r, p, opts); err != nil {
		return nil, nil, err
	}
	units := r.units()
	e.chargeRead(t, r.ix.Name, units.total())
	var items []attr.Item
	if !p.enc.on {
		items = p.resultItems()
	}
	return &wire.QueryOutput{
		Items:            items,
		Count:            int32Ptr(p.matched),
		ScannedCount:     int32Ptr(p.scanned),
		LastEvaluatedKey: r.lastEvaluatedKey(p),
		ConsumedCapacity: consumedWithIndexes(in.ReturnConsumedCapacity, t.Name, units),
	}, p, nil
}

// fillIndexFromSnapshot fills p from index entries read in one consistent
// snapshot (the index counterpart of fillFromSnapshot).
func (e *Engine) fillIndexFromSnapshot(r *indexRead, p *page, opts storage.IterOptions) error {
	if e.rng != nil && !r.fetch {
		// One index iterator is the whole read, and a consistent view.
		return r.fill(e.rng, nil, p, opts)
	}
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	return r.fill(snap, snap, p, opts)
}

// startAfter narrows opts to the keys after k in scan direction.
func startAfter(opts *storage.IterOptions, k []byte) {
	if opts.Reverse {
		if bytes.Compare(k, opts.Upper) < 0 {
			opts.Upper = k
		}
		return
	}
	if start := after(k); bytes.Compare(start, opts.Lower) > 0 {
		opts.Lower = start
	}
}

// analyzeIndexKeyCondition matches a key condition against an index's key
// schema and checks the operand types.
func analyzeIndexKeyCondition(ix *Index, c *expr.Condition) (*expr.KeyCondition, error) {
	names := func(ks []KeyAttr) []string {
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = k.Name
		}
		return out
	}
	kc, err := expr.AnalyzeKeyCondition(c, names(ix.Hashes), names(ix.Ranges))
	if err != nil {
		return nil, err
	}
	check := func(parts []expr.KeyPart, ks []KeyAttr) error {
		for i, p := range parts {
			for _, v := range p.Values {
				if v.T != ks[i].Type {
					return ddberr.InvalidParam("Condition parameter type does not match schema type")
				}
			}
		}
		return nil
	}
	if err := check(kc.Hash, ix.Hashes); err != nil {
		return nil, err
	}
	if err := check(kc.Range, ix.Ranges); err != nil {
		return nil, err
	}
	for i, h := range kc.Hash {
		if err := attr.ValidateKeyValue(ix.Hashes[i].Name, h.Values[0], ix.Hashes[i].Type, true); err != nil {
			return nil, err
		}
	}
	return kc, nil
}

// indexQueryBounds is the storage range of an index key condition: the
// index partition, narrowed by equalities on leading range attributes and
// the last range condition. Entries carry more key components after the
// range attributes, so upper bounds are prefix ends.
func indexQueryBounds(tableID uint64, ix *Index, hashVals []attr.Value, rng []expr.KeyPart, forward bool) storage.IterOptions {
	part := ix.PartitionPrefix(tableID, hashVals)
	for i := 0; i+1 < len(rng); i++ {
		part = attr.AppendKey(part, rng[i].Values[0])
	}
	opts := storage.IterOptions{Lower: part, Upper: attr.PrefixEnd(part), Reverse: !forward}
	if len(rng) == 0 {
		return opts
	}
	r := rng[len(rng)-1]
	at := func(v attr.Value) []byte { return attr.AppendKey(bytes.Clone(part), v) }
	switch r.Op {
	case expr.OpEQ:
		opts.Lower = at(r.Values[0])
		opts.Upper = attr.PrefixEnd(opts.Lower)
	case expr.OpLT:
		opts.Upper = at(r.Values[0])
	case expr.OpLE:
		opts.Upper = attr.PrefixEnd(at(r.Values[0]))
	case expr.OpGT:
		opts.Lower = attr.PrefixEnd(at(r.Values[0]))
	case expr.OpGE:
		opts.Lower = at(r.Values[0])
	case expr.OpBetween:
		opts.Lower, opts.Upper = at(r.Values[0]), attr.PrefixEnd(at(r.Values[1]))
	case expr.OpBeginsWith:
		prefix := append(bytes.Clone(part), attr.PrefixKey(r.Values[0])...)
		opts.Lower = prefix
		if end := attr.PrefixEnd(prefix); end != nil {
			opts.Upper = end
		}
	}
	return opts
}

// scanIndex is Scan with IndexName (parallel segments are ranges of the
// index's partition hash, as for tables).
func (e *Engine) scanIndex(in *wire.ScanInput, x scanExprs, t *Table, encode []byte) (*wire.ScanOutput, *page, error) {
	r, err := openIndexRead(t, *in.IndexName, in.Select, in.ConsistentRead, x.filter, x.proj, x.entriesOnly)
	if err != nil {
		return nil, nil, err
	}
	opts, inSegment := scanSegment(in, indexPrefix(t.ID, r.ix.ID), indexPrefix(t.ID, r.ix.ID+1))
	if esk := in.ExclusiveStartKey; esk != nil {
		// An index Scan answers the short text, as Query does.
		if err := r.validateStartKey(esk); err != nil {
			return nil, nil, err
		}
		ek := t.entryKey(r.ix, esk)
		if err := inSegment(ek); err != nil {
			return nil, nil, err
		}
		startAfter(&opts, ek)
	}
	if err := t.checkScalarKeyPaths(x.filter, x.proj, nil); err != nil {
		return nil, nil, err
	}
	p := newPage(in.Limit, in.Select, x.filter, x.proj)
	if encode != nil && p.canEncode() && !r.fetch {
		p.enc = encodedPage{on: true, json: encode}
	}
	if err := e.admitRead(t, r.ix.Name); err != nil {
		return nil, nil, err
	}
	if err := e.fillIndexFromSnapshot(r, p, opts); err != nil {
		return nil, nil, err
	}
	units := r.units()
	e.chargeRead(t, r.ix.Name, units.total())
	var items []attr.Item
	if !p.enc.on {
		items = p.resultItems()
	}
	return &wire.ScanOutput{
		Items:            items,
		Count:            int32Ptr(p.matched),
		ScannedCount:     int32Ptr(p.scanned),
		LastEvaluatedKey: r.lastEvaluatedKey(p),
		ConsumedCapacity: consumedWithIndexes(in.ReturnConsumedCapacity, t.Name, units),
	}, p, nil
}
