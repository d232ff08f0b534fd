package reads

import (
	"bytes"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/layout"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
)

// maxPageBytes is the most item data one Query or Scan page reads (1 MB):
// the page ends after the item that reaches it.
const maxPageBytes = 1 << 20

// Select values.
const (
	selectAll       = "ALL_ATTRIBUTES"
	selectProjected = "ALL_PROJECTED_ATTRIBUTES"
	selectSpecific  = "SPECIFIC_ATTRIBUTES"
	selectCount     = "COUNT"
)

// Starting-key messages. An ExclusiveStartKey that does not match the key
// schema is worded by operation (startKeyTexts).
const (
	msgStartKeyInvalid      = "The provided starting key is invalid"
	msgStartKeyOutside      = "The provided starting key is outside query boundaries based on provided conditions"
	msgStartKeyRangeNoMatch = "The provided starting key does not match the range key predicate"
)

// checkSelect applies DynamoDB's rules between Select and the projection
// parameter (projParam names the one present — "ProjectionExpression" or
// "AttributesToGet" — or is ""), for a request with or without IndexName.
// The returned message is bare; the caller decides on the prefix.
func checkSelect(sel, projParam string, hasIndex bool) string {
	switch sel {
	case selectProjected:
		// With both rules broken DynamoDB reports the projection one (a
		// suite run against it; an emulator's pull request agrees).
		if projParam != "" {
			return "Cannot specify the " + projParam + " when choosing to get ALL_PROJECTED_ATTRIBUTES"
		}
		if !hasIndex {
			return "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
		}
	case selectAll:
		if projParam != "" {
			return "Cannot specify the " + projParam + " when choosing to get ALL_ATTRIBUTES"
		}
	case selectCount:
		if projParam != "" {
			return "Cannot specify the " + projParam + " when choosing to get only the Count"
		}
	case selectSpecific:
		if projParam == "" {
			return "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
		}
	}
	return ""
}

// startKeyTexts are how an operation words a table ExclusiveStartKey that
// does not match the key schema: shape when its attributes are not the
// key's (too many, too few, other names), mistyped when one of them has
// another type than the key declares.
type startKeyTexts struct{ shape, mistyped string }

var (
	// A table Scan says the long text for both in us-east-1 (dynalite's
	// Scan tests, run against DynamoDB: an empty key, other names, an extra
	// attribute on a hash-only table, each wrong type; the public
	// conformance suite's registry row scan-bad-start-key-message: the
	// short form only in its newer cohort of four regions, since September
	// 2026, us-east-1 not among them at its 2026-09-26 sweep).
	scanStartKey = startKeyTexts{msgStartKeyInvalid + ": " + ddberr.MsgKeySchema, msgStartKeyInvalid + ": " + ddberr.MsgKeySchema}
	// A table Query says the short text for the wrong attributes and the
	// schema text alone for a wrong type (dynalite's Query tests, in both
	// the KeyConditions and the expression form).
	queryStartKey = startKeyTexts{msgStartKeyInvalid, ddberr.MsgKeySchema}
)

// validateStartKey checks an ExclusiveStartKey against the table's key
// schema: exactly the key attributes (else texts.shape), in schema order
// each with its declared type (else texts.mistyped), then the key value
// rules (reported after "The provided starting key is invalid: ").
func validateStartKey(t *change.Table, esk attr.Item, texts startKeyTexts) error {
	attrs := t.KeyAttrs()
	if len(esk) != len(attrs) {
		return ddberr.Validation(texts.shape)
	}
	for _, ka := range attrs {
		switch v, ok := esk[ka.Name]; {
		case !ok:
			return ddberr.Validation(texts.shape)
		case v.T != ka.Type:
			return ddberr.Validation(texts.mistyped)
		}
	}
	if err := t.CheckKeyValues(esk); err != nil {
		return ddberr.Validation(msgStartKeyInvalid + ": " + ddberr.As(err).Message)
	}
	return nil
}

// itemKey is the storage key of the item whose key attributes it carries
// (validated).
func itemKey(t *change.Table, it attr.Item) []byte {
	var sk attr.Value
	if t.Range != nil {
		sk = it[t.Range.Name]
	}
	return layout.ItemKey(t.ID, it[t.Hash.Name], sk)
}

// after is the smallest storage key greater than k.
func after(k []byte) []byte {
	return append(bytes.Clone(k), 0)
}

// newPage starts a Query or Scan page.
func newPage(limit *int32, sel string, filter *expr.Condition, proj *expr.Projection) *page {
	p := &page{count: sel == selectCount}
	if limit != nil {
		p.limit = int(*limit)
	}
	if filter != nil {
		p.filter = filter.Eval
	}
	if proj != nil {
		p.project = proj.Apply
	}
	return p
}

// page accumulates one Query or Scan page. Items are counted as scanned
// when read, before the filter; Limit and the 1 MB cap apply to scanned
// items, and the last scanned item becomes LastEvaluatedKey when the page
// ends early.
type page struct {
	limit   int // Limit, 0 when absent
	count   bool
	filter  func(attr.Item) (bool, error)
	project func(attr.Item) attr.Item

	items   []attr.Item
	matched int
	scanned int
	bytes   int
	last    attr.Item // last scanned item
	full    bool      // ended by Limit or the size cap

	enc encodedPage // items kept as JSON (see encodedPage)
}

// add takes one scanned item and reports whether the page is full.
func (p *page) add(it attr.Item) (bool, error) {
	p.scanned++
	p.bytes += attr.ItemSize(it)
	p.last = it
	keep := true
	if p.filter != nil {
		var err error
		if keep, err = p.filter(it); err != nil {
			return false, err
		}
	}
	if keep {
		p.matched++
		if !p.count {
			if p.project != nil {
				it = p.project(it)
			}
			p.items = append(p.items, it)
		}
	}
	p.full = (p.limit > 0 && p.scanned >= p.limit) || p.bytes >= maxPageBytes
	return p.full, nil
}

// fill reads items from r within opts into p until the range ends or the
// page is full, through one iterator and no other read. accept, when set, skips stored items that do not belong
// (it guards a Query against a foreign partition sharing the prefix).
func (p *page) fill(r storage.RangeReader, opts storage.IterOptions, accept func(attr.Item) bool) error {
	if p.enc.on {
		return p.fillEncoded(r, opts)
	}
	it, err := r.NewIterator(opts)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		item, err := attr.DecodeItem(it.Value())
		if err != nil {
			return err
		}
		if accept != nil && !accept(item) {
			continue
		}
		full, err := p.add(item)
		if err != nil || full {
			return err
		}
	}
	return it.Err()
}

// resultItems is the Items member: always sent (never nil), except for
// Select=COUNT, where DynamoDB leaves it out.
func (p *page) resultItems() []attr.Item {
	if p.count {
		return nil
	}
	if p.items == nil {
		return []attr.Item{}
	}
	return p.items
}

// lastEvaluatedKey is the LastEvaluatedKey member: the key of the last
// scanned item when the page ended early, else nil.
func (p *page) lastEvaluatedKey(t *change.Table) attr.Item {
	if !p.full {
		return nil
	}
	return t.KeyItem(p.lastScanned())
}
