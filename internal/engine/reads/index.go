package reads

import (
	"bytes"
	"context"
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// indexRead is one Query or Scan of a secondary index of t (the checks
// and the capacity it records: indexes.Read).
type indexRead struct {
	t   Table
	def *change.Table
	*indexes.Read
}

// openIndexRead resolves IndexName for a read and applies DynamoDB's
// checks (indexes.OpenRead); the read needs of each entry the attributes
// of the filter (unless entriesOnly) and of the projection.
func openIndexRead(t Table, name, sel string, consistent *bool, filter *expr.Condition, proj *expr.Projection, entriesOnly bool) (*indexRead, error) {
	ix, _ := t.Index(name)
	req := indexes.ReadRequest{Name: name, Select: sel, Consistent: isTrue(consistent)}
	if filter != nil && !entriesOnly || proj != nil {
		req.Needs = func(need func(string)) {
			if filter != nil && !entriesOnly {
				walkConditionPaths(filter, func(p expr.Path) { need(p[0].Name) })
			}
			if proj != nil {
				for _, p := range proj.Paths {
					need(p[0].Name)
				}
			}
		}
	}
	r, err := indexes.OpenRead(t.Def(), ix, req)
	if err != nil {
		return nil, err
	}
	return &indexRead{t: t, def: t.Def(), Read: r}, nil
}

// fill reads entries within opts from src into p until the range ends or p
// is full. table is where non-projected attributes are fetched from (r.Fetch:
// the same snapshot as src); nil when r does not fetch.
func (r *indexRead) fill(src storage.RangeReader, table storage.Reader, p *page, opts storage.IterOptions) error {
	if p.enc.on {
		// Every entry goes out whole: transcode it as stored.
		err := p.fillEncoded(src, opts)
		r.EntryBytes += p.bytes
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
		r.EntryBytes += size
		item := entry
		if r.Fetch {
			full, err := readItem(table, itemKey(r.def, entry))
			if err != nil {
				return err
			}
			if full != nil {
				item = full
				r.TableUnits += throttle.ReadUnits(attr.ItemSize(full), r.Consistent)
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
func (r *indexRead) units() indexes.Units {
	u := indexes.Units{Table: r.TableUnits}
	m := map[string]float64{r.Index.Name: throttle.ReadUnits(r.EntryBytes, r.Consistent)}
	if r.Index.Local {
		u.LSI = m
	} else {
		u.GSI = m
	}
	return u
}

// lastEvaluatedKey is the LastEvaluatedKey of an index page: table and
// index key attributes of the last entry read.
func (r *indexRead) lastEvaluatedKey(p *page) attr.Item {
	if !p.full {
		return nil
	}
	return indexes.KeyItem(r.def, r.Index, p.lastScanned())
}

// validateStartKey checks an ExclusiveStartKey of an index read, in the
// order and words of dynalite's Query and Scan tests (run against
// DynamoDB): exactly the table and index key attributes (else the short
// text), the index's key attributes with their types (a missing one: the
// short text; a mistyped one: msgKeySchema alone), then the table's (a
// missing or mistyped one: the long text), then the key value rules.
func (r *indexRead) validateStartKey(esk attr.Item) error {
	attrs := r.def.KeyAttrs()
	for _, k := range r.Index.KeyAttrs() {
		if !r.def.IsKeyAttr(k.Name) {
			attrs = append(attrs, k)
		}
	}
	if len(esk) != len(attrs) {
		return ddberr.Validation(msgStartKeyInvalid)
	}
	for _, ka := range r.Index.KeyAttrs() {
		switch v, ok := esk[ka.Name]; {
		case !ok:
			return ddberr.Validation(msgStartKeyInvalid)
		case v.T != ka.Type:
			return ddberr.Validation(ddberr.MsgKeySchema)
		}
	}
	for _, ka := range r.def.KeyAttrs() {
		if v, ok := esk[ka.Name]; !ok || v.T != ka.Type {
			return ddberr.Validation(msgStartKeyInvalid + ": " + ddberr.MsgKeySchema)
		}
	}
	if err := r.def.CheckKeyValues(esk); err != nil {
		return ddberr.Validation(msgStartKeyInvalid + ": " + ddberr.As(err).Message)
	}
	return nil
}

// queryIndex is Query with IndexName. With encode, a page of entries that
// all go out whole (no filter, projection, COUNT or fetch from the table)
// keeps them encoded (see query).
func (rd *Reads) queryIndex(in *wire.QueryInput, x queryExprs, t Table, encode []byte) (*wire.QueryOutput, *page, error) {
	r, err := openIndexRead(t, *in.IndexName, in.Select, in.ConsistentRead, x.filter, x.proj, false)
	if err != nil {
		return nil, nil, err
	}
	ix := r.Index
	if err := checkLegacyKeyCount(in, x, len(ix.Hashes)+len(ix.Ranges)); err != nil {
		return nil, nil, err
	}
	kc, err := indexes.AnalyzeKeyCondition(ix, x.key)
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
	def := t.Def()
	opts := indexes.QueryBounds(def.ID, ix, hashVals, kc.Range, in.ScanIndexForward == nil || *in.ScanIndexForward)
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
		startAfter(&opts, indexes.EntryKey(def, ix, esk))
	}
	p, items, units, err := rd.readIndexPage(r, in.Limit, in.Select, x.filter, x.proj, encode, opts)
	if err != nil {
		return nil, nil, err
	}
	return &wire.QueryOutput{
		Items:            items,
		Count:            int32Ptr(p.matched),
		ScannedCount:     int32Ptr(p.scanned),
		LastEvaluatedKey: r.lastEvaluatedKey(p),
		ConsumedCapacity: indexes.Consumed(in.ReturnConsumedCapacity, t.Def().Name, units),
	}, p, nil
}

// readIndexPage reads a page of r's entries within opts, after checking the
// filter's and projection's key paths and admitting the read, and charges
// it: with encode, a page of entries that all go out
// whole (no filter, projection, COUNT or fetch from the table) keeps them
// encoded (items is then nil).
func (rd *Reads) readIndexPage(r *indexRead, limit *int32, sel string, filter *expr.Condition, proj *expr.Projection, encode []byte, opts storage.IterOptions) (p *page, items []attr.Item, units indexes.Units, err error) {
	if err := r.t.CheckKeyPaths(filter, proj); err != nil {
		return nil, nil, indexes.Units{}, err
	}
	p = newPage(limit, sel, filter, proj)
	if encode != nil && p.canEncode() && !r.Fetch {
		p.enc = encodedPage{on: true, json: encode}
	}
	if err := rd.quota.Read(context.Background(), r.t, r.Index.Name, func() (float64, error) {
		err := rd.fillIndexFromSnapshot(r, p, opts)
		units = r.units()
		return units.Total(), err
	}); err != nil {
		return nil, nil, indexes.Units{}, err
	}
	if !p.enc.on {
		items = p.resultItems()
	}
	return p, items, units, nil
}

// fillIndexFromSnapshot fills p from index entries read in one consistent
// snapshot (the index counterpart of fillFromSnapshot).
func (rd *Reads) fillIndexFromSnapshot(r *indexRead, p *page, opts storage.IterOptions) error {
	if rd.rng != nil && !r.Fetch {
		// One index iterator is the whole read, and a consistent view.
		return r.fill(rd.rng, nil, p, opts)
	}
	snap, err := rd.store.NewSnapshot()
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

// scanIndex is Scan with IndexName (parallel segments are ranges of the
// index's partition hash, as for tables).
func (rd *Reads) scanIndex(in *wire.ScanInput, x scanExprs, t Table, encode []byte) (*wire.ScanOutput, *page, error) {
	r, err := openIndexRead(t, *in.IndexName, in.Select, in.ConsistentRead, x.filter, x.proj, x.entriesOnly)
	if err != nil {
		return nil, nil, err
	}
	def := t.Def()
	opts, inSegment := scanSegment(in, indexes.Prefix(def.ID, r.Index.ID), indexes.Prefix(def.ID, r.Index.ID+1))
	if esk := in.ExclusiveStartKey; esk != nil {
		// An index Scan answers the short text, as Query does.
		if err := r.validateStartKey(esk); err != nil {
			return nil, nil, err
		}
		ek := indexes.EntryKey(def, r.Index, esk)
		if err := inSegment(ek); err != nil {
			return nil, nil, err
		}
		startAfter(&opts, ek)
	}
	p, items, units, err := rd.readIndexPage(r, in.Limit, in.Select, x.filter, x.proj, encode, opts)
	if err != nil {
		return nil, nil, err
	}
	return &wire.ScanOutput{
		Items:            items,
		Count:            int32Ptr(p.matched),
		ScannedCount:     int32Ptr(p.scanned),
		LastEvaluatedKey: r.lastEvaluatedKey(p),
		ConsumedCapacity: indexes.Consumed(in.ReturnConsumedCapacity, t.Def().Name, units),
	}, p, nil
}

// readItem reads and decodes one item; a missing item is (nil, nil).
func readItem(r storage.Reader, key []byte) (attr.Item, error) {
	b, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return attr.DecodeItem(b)
}
