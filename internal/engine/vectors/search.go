package vectors

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// maxSearchResponse is SearchVectors' response size limit (16 MB).
const maxSearchResponse = 16 << 20

// SearchVectors texts (measured against DynamoDB).
const (
	msgSearchComparator   = "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"
	msgSearchHashRequired = "SearchConditionExpression must be provided when SearchSchema has a HASH key"
)

// Query is a SearchVectors request as the core has checked and parsed it:
// the TopK within MaxTopK, the SearchConditionExpression's equalities
// (Equalities) and the ProjectionExpression (nil when absent).
type Query struct {
	Index    string
	Vector   []attr.Value
	TopK     int
	Eqs      []Eq
	Proj     *expr.Projection
	Capacity bool // ReturnConsumedCapacity asks for it
}

// Search is SearchVectors' execution over one vector index of t: the index
// must be ready, the vector of its dimensions; the hits come back with the
// items as a snapshot taken after the search holds them (an item removed
// meanwhile is left out), projected as the index and the request say.
func (r *Registry) Search(t Table, q Query) (*wire.SearchVectorsOutput, error) {
	def := t.Def()
	name := q.Index
	vx, ok := ByName(t.VectorIndexes(), name)
	var rt *liveIndex
	if ok {
		rt = r.ensure(def.Name, def.ID, vx)
		if err := r.loaded(rt); err != nil {
			return nil, err
		}
	}
	if !ok || rt == nil || !vx.Ready() {
		if ok && (vx.Status == statusCreating || vx.Backfilling != nil && *vx.Backfilling) {
			// Through the whole creation, resource allocation included
			// (eu-west-2, 2026-08-11 and 2026-08-21, captured by another
			// emulator's authors).
			return nil, ddberr.Validation("Cannot search backfilling vector index: " + name)
		}
		return nil, ddberr.Validation("The table does not have the specified index: " + name)
	}
	vec := make([]float32, len(q.Vector))
	for i, v := range q.Vector {
		f, ok := float32Of(v.Str)
		if v.T != attr.N || !ok {
			return nil, ddberr.InvalidSearchVector()
		}
		vec[i] = f
	}
	if len(vec) != vx.Dims {
		return nil, ddberr.Validationf("Input search vector dimension %d does not match vector index dimension %d", len(vec), vx.Dims)
	}
	f, err := vx.searchFilter(q.Eqs)
	if err != nil {
		return nil, err
	}

	ef := r.efSearch
	if ef == 0 {
		ef = rt.index().Config().EfSearch
	}
	if searchEfHook != nil {
		searchEfHook(ef)
	}
	hits, err := rt.index().SearchEf(vec, q.TopK, ef, f)
	if err != nil {
		return nil, ddberr.Internal("Internal server error")
	}
	snap, err := r.opt.Store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	out := &wire.SearchVectorsOutput{SearchResults: []wire.SearchResultItem{}}
	keep := vx.resultAttrs(def, q.Proj)
	size := 0
	for _, h := range hits {
		key, err := snap.Get(idKey(rt.prefix, KeyID, h.ID))
		if errors.Is(err, storage.ErrNotFound) {
			continue // removed after the search saw it
		}
		if err != nil {
			return nil, err
		}
		item, err := r.opt.Host.ReadItem(snap, key, keep)
		if err != nil {
			return nil, err
		}
		if item == nil {
			continue
		}
		if v, ok := item[vx.Attr]; ok {
			item[vx.Attr] = float32Vector(v)
		}
		res := resultItem(item, q.Proj)
		size += attr.ItemSize(res) + 8
		if size > maxSearchResponse {
			break
		}
		out.SearchResults = append(out.SearchResults, wire.SearchResultItem{Item: res, Score: wire.Ptr(finiteScore(h.Score))})
	}
	if q.Capacity {
		b := float64(searchBytes(vx, rt.index().Len(), q.TopK) + size)
		out.ConsumedCapacity = &wire.VectorCapacity{VectorSearchRequestBytes: &b}
	}
	return out, nil
}

// searchBytes approximates the vector data a search examines: the
// float32 vectors of about TopK plus 16·log2(n) candidates (graph search is
// logarithmic in the index size), capped at the whole index.
func searchBytes(vx *Index, n, k int) int {
	examined := min(n, k+16*int(math.Ceil(math.Log2(float64(n)+1))))
	return 4 * vx.Dims * max(examined, 1)
}

// resultAttrs says which stored attributes a search result can use:
// the projected ones, and the vector only when the ProjectionExpression
// names it, so the (large) vector is not even decoded otherwise.
func (vx *Index) resultAttrs(t *change.Table, proj *expr.Projection) func(string) bool {
	wantVec := false
	if proj != nil {
		for _, p := range proj.Paths {
			if len(p) > 0 && p[0].Name == vx.Attr {
				wantVec = true
			}
		}
	}
	// The vector attribute can be asked for whatever the projection type,
	// as the key can (ScyllaDB's Alternator tests, which are run against
	// DynamoDB: 'p, v' from a KEYS_ONLY or INCLUDE index gives both).
	return func(name string) bool {
		if name == vx.Attr {
			return wantVec
		}
		return vx.projects(t, name)
	}
}

// resultItem is one result's item, decoded with resultAttrs
// (so already only projected attributes, the vector only when named): the
// ProjectionExpression applied, if any.
func resultItem(item attr.Item, proj *expr.Projection) attr.Item {
	if proj == nil {
		return item
	}
	return proj.Apply(item)
}

// Eq is one "attribute = :value" of a SearchConditionExpression.
type Eq struct {
	name  string
	value attr.Value
}

// Equalities flattens a SearchConditionExpression: only = between a
// top-level attribute and a value, joined by AND (SearchVectors' request
// validation, before the table is looked up).
func Equalities(c *expr.Condition) ([]Eq, error) { return equalities(c, nil) }

func equalities(c *expr.Condition, out []Eq) ([]Eq, error) {
	switch c.Op {
	case expr.OpAnd:
		for _, s := range c.Sub {
			var err error
			if out, err = equalities(s, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	case expr.OpEQ:
		a, b := c.Operands[0], c.Operands[1]
		if a.Kind == expr.OperandValue {
			a, b = b, a
		}
		if a.Kind != expr.OperandPath || b.Kind != expr.OperandValue {
			return nil, ddberr.Validation(msgSearchComparator)
		}
		if len(a.Path) != 1 || a.Path[0].IsIndex {
			// Refused as nested before the schema is consulted (eu-west-2,
			// 2026-08-19, captured by another emulator's authors;
			// ScyllaDB's Alternator tests agree).
			return nil, ddberr.Validation("Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on nested attributes")
		}
		for _, q := range out {
			if q.name == a.Path[0].Name {
				// eu-west-2, 2026-08-19, captured by another emulator's
				// authors.
				return nil, ddberr.Validation("Invalid SearchConditionExpression: SearchConditionExpression must only contain one condition per attribute")
			}
		}
		return append(out, Eq{name: a.Path[0].Name, value: b.Value}), nil
	}
	return nil, ddberr.Validation(msgSearchComparator)
}

func notInSchema(name string) error {
	return ddberr.Validation("SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: " + name)
}

// searchFilter turns the equalities into an index filter.
func (vx *Index) searchFilter(eqs []Eq) (*vector.Filter, error) {
	f := &vector.Filter{}
	for _, q := range eqs {
		k, hash, ok := vx.schemaAttr(q.name)
		if !ok {
			return nil, notInSchema(q.name)
		}
		if q.value.T != k.Type {
			return nil, ddberr.Validationf("Type of '%s' attribute in SearchConditionExpression (%s) does not match type in search schema (%s)",
				k.Name, typeToken(q.value), typeToken(attr.Value{T: k.Type}))
		}
		if hash {
			if q.value.T == attr.S && q.value.Str == "" {
				return nil, ddberr.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: " + k.Name)
			}
			v := filterValue(q.value).Text
			if f.HasPartition && f.Partition != v {
				f.Inline = append(f.Inline, vector.Attr{Name: "\x00never", Value: vector.String("")})
			}
			f.Partition, f.HasPartition = v, true
			continue
		}
		f.Inline = append(f.Inline, vector.Attr{Name: k.Name, Value: filterValue(q.value)})
	}
	if vx.Hash != nil && !f.HasPartition {
		return nil, ddberr.Validation(msgSearchHashRequired)
	}
	return f, nil
}

// RenameSearchErr gives a condition parse error SearchVectors' prefix.
func RenameSearchErr(err error) error {
	de := ddberr.As(err)
	if de == nil {
		return err
	}
	msg := strings.Replace(de.Message, "Invalid ConditionExpression:", "Invalid SearchConditionExpression:", 1)
	if msg == de.Message {
		return err
	}
	return ddberr.Validation(msg)
}

// searchEfHook, when set by a test, sees the beam width each
// SearchVectors passes to the index.
var searchEfHook func(ef int)

// float32Vector is the copy of a vector the index stores and a search
// returns: each number rounded to float32 (a conformance suite run against
// DynamoDB reads 16777217 back from a search as 16777216; the table keeps
// the number as written).
func float32Vector(v attr.Value) attr.Value {
	if v.T != attr.L {
		return v
	}
	out := attr.Value{T: attr.L, List: make([]attr.Value, len(v.List))}
	for i, e := range v.List {
		out.List[i] = e
		if e.T != attr.N {
			continue
		}
		f, err := strconv.ParseFloat(e.Str, 64)
		if err != nil {
			continue
		}
		if s, err := attr.CanonicalNumber(strconv.FormatFloat(float64(float32(f)), 'g', -1, 32)); err == nil {
			out.List[i] = attr.Value{T: attr.N, Str: s}
		}
	}
	return out
}

// finiteScore is a hit's score as JSON can carry it: a distance or dot
// product of 32-bit vectors can overflow to an infinity, which DynamoDB
// answers with the item and the largest 32-bit float, signed
// (3.4028234663852886e38; eu-west-2 and us-east-1, 2026-08-13, captured by
// another emulator's authors; ScyllaDB's Alternator tests see a very large
// score).
func finiteScore(s float32) float64 {
	switch f := float64(s); {
	case math.IsInf(f, 1):
		return math.MaxFloat32
	case math.IsInf(f, -1):
		return -math.MaxFloat32
	case math.IsNaN(f):
		return 0
	default:
		return f
	}
}
