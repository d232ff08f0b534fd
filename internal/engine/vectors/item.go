package vectors

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/vector"
)

// vecInvalid opens DynamoDB's vector write errors: a full stop after
// "invalid", not the usual colon. The texts below are DynamoDB's as
// captured in eu-west-2 (2026-08-11) and us-east-1 (2026-08-12), quoted by
// a public conformance suite and two emulators: no full stop before
// IndexName in the list and size forms, one in the element forms.
const vecInvalid = "One or more parameter values were invalid."

// typeToken is the DynamoDB type name of a value (S, N, L, ...).
func typeToken(v attr.Value) string {
	switch v.T {
	case attr.S:
		return "S"
	case attr.N:
		return "N"
	case attr.B:
		return "B"
	case attr.BOOL:
		return "BOOL"
	case attr.NULL:
		return "NULL"
	case attr.M:
		return "M"
	case attr.L:
		return "L"
	case attr.SS:
		return "SS"
	case attr.NS:
		return "NS"
	case attr.BS:
		return "BS"
	}
	return "NONE"
}

// float32Of parses a DynamoDB number as a float32; ok is false when it is
// outside the float32 range.
func float32Of(s string) (float32, bool) {
	f, err := strconv.ParseFloat(s, 32)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return float32(f), true
}

// sciText formats an out-of-range number as the service does (1.0E39).
func sciText(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	t := strings.ToUpper(strconv.FormatFloat(f, 'E', -1, 64))
	mant, exp, _ := strings.Cut(t, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// checkVectorValue validates a written vector attribute value.
func checkVectorValue(vx *Index, v attr.Value) error {
	if v.T != attr.L {
		return ddberr.Validationf("%s Invalid type for parameter %s, Expected: 32-bit floating point number list IndexName: %s", vecInvalid, vx.Attr, vx.Name)
	}
	if len(v.List) != vx.Dims {
		return ddberr.Validationf("%s Invalid size for parameter %s, Expected: %d, Actual: %d IndexName: %s", vecInvalid, vx.Attr, vx.Dims, len(v.List), vx.Name)
	}
	for i, el := range v.List {
		if el.T != attr.N {
			return ddberr.Validationf("%s Invalid type for parameter %s[%d], Expected: 32-bit floating point number, Actual: %s. IndexName: %s", vecInvalid, vx.Attr, i, typeToken(el), vx.Name)
		}
		if _, ok := float32Of(el.Str); !ok {
			return ddberr.Validationf("%s Invalid value for parameter %s[%d], Value: %s is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: %s", vecInvalid, vx.Attr, i, sciText(el.Str), vx.Name)
		}
	}
	return nil
}

// checkSchemaValue validates a written SearchSchema attribute value.
func checkSchemaValue(vx *Index, k KeyAttr, hash bool, v attr.Value) error {
	if v.T != k.Type {
		return ddberr.Validationf("One or more parameter values were invalid. Attribute '%s' type mismatch. Expected: %s, Actual: %s. IndexName: %s", k.Name, typeToken(attr.Value{T: k.Type}), typeToken(v), vx.Name)
	}
	if hash && (v.T == attr.S && v.Str == "" || v.T == attr.B && len(v.Bin) == 0) {
		kind := "string"
		if v.T == attr.B {
			kind = "binary"
		}
		return ddberr.Validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. "+
			"The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, vx.Name, k.Name)
	}
	return nil
}

// checkWrite validates the vector-index attributes a write changes
// (DynamoDB validates what a write changes, not values already stored; a
// Put changes every attribute it holds: re-putting an item stored before
// the index with an invalid vector is refused, eu-west-2 and us-east-1,
// 2026-08-12, captured by another emulator's authors). old is nil for a
// Put.
func checkWrite(vxs []*Index, old, new attr.Item) error {
	for _, vx := range vxs {
		changed := func(n string) (attr.Value, bool) {
			v, ok := new[n]
			if !ok {
				return v, false
			}
			if o, had := old[n]; had && attr.Equal(o, v) {
				return v, false
			}
			return v, true
		}
		if v, ok := changed(vx.Attr); ok {
			if err := checkVectorValue(vx, v); err != nil {
				return err
			}
		}
		if vx.Hash != nil {
			if v, ok := changed(vx.Hash.Name); ok {
				if err := checkSchemaValue(vx, *vx.Hash, true, v); err != nil {
					return err
				}
			}
		}
		for _, k := range vx.Inline {
			if v, ok := changed(k.Name); ok {
				if err := checkSchemaValue(vx, k, false, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// filterValue is the index's form of a SearchSchema value.
func filterValue(v attr.Value) vector.Value {
	switch v.T {
	case attr.N:
		return vector.Number(v.Str)
	case attr.B:
		return vector.String(string(v.Bin))
	}
	return vector.String(v.Str)
}

// entry is what the index holds for an item: its float32 vector and
// filter attributes; ok is false when the item is not in the index (no
// valid vector, no valid HASH value when the schema has one, or an
// INLINE_FILTER attribute of another type: only items written before the
// index have one, and DynamoDB's backfill skips them rather than index
// them without the value (ScyllaDB's Alternator tests, run against it); a
// missing INLINE_FILTER attribute is merely absent).
func (vx *Index) entry(it attr.Item) ([]float32, *vector.Attrs, bool) {
	if it == nil {
		return nil, nil, false
	}
	v, ok := it[vx.Attr]
	if !ok || v.T != attr.L || len(v.List) != vx.Dims {
		return nil, nil, false
	}
	vec := make([]float32, vx.Dims)
	for i, el := range v.List {
		f, ok := float32Of(el.Str)
		if el.T != attr.N || !ok {
			return nil, nil, false
		}
		vec[i] = f
	}
	a := &vector.Attrs{}
	if vx.Hash != nil {
		h, ok := it[vx.Hash.Name]
		if !ok || h.T != vx.Hash.Type || h.T == attr.S && h.Str == "" || h.T == attr.B && len(h.Bin) == 0 {
			return nil, nil, false
		}
		a.Partition, a.HasPartition = filterValue(h).Text, true
	}
	for _, k := range vx.Inline {
		f, ok := it[k.Name]
		if !ok {
			continue
		}
		if f.T != k.Type {
			return nil, nil, false
		}
		a.Inline = append(a.Inline, vector.Attr{Name: k.Name, Value: filterValue(f)})
	}
	return vec, a, true
}

// viewChanged reports whether a write of an item of t changes what the
// index holds or projects for the item.
func (vx *Index) viewChanged(t *change.Table, old, new attr.Item) bool {
	_, _, inOld := vx.entry(old)
	_, _, inNew := vx.entry(new)
	if inOld != inNew {
		return true
	}
	if !inNew {
		return false
	}
	if !attr.Equal(old[vx.Attr], new[vx.Attr]) {
		return true
	}
	return !attr.ItemsEqual(vx.project(t, old), vx.project(t, new))
}

// WriteBytes is the VectorWriteRequestBytes of one item write per
// vector index whose content changes: the item size of the index's entry,
// the vector attribute counted as its name plus 4 bytes per dimension (the
// float32 vector), at least 1024 (DynamoDB's figures, pinned by a
// conformance suite run against it).
func WriteBytes(t *change.Table, vxs []*Index, old, new attr.Item) map[string]float64 {
	var out map[string]float64
	for _, vx := range vxs {
		if !vx.viewChanged(t, old, new) {
			continue
		}
		src := new
		if _, _, in := vx.entry(new); !in {
			src = old
		}
		p := vx.project(t, src)
		n := len(vx.Attr) + 4*vx.Dims
		for name, v := range p {
			if name != vx.Attr {
				n += len(name) + attr.ValueSize(v)
			}
		}
		n = max(n, minVectorWriteBytes)
		if out == nil {
			out = map[string]float64{}
		}
		out[vx.Name] = float64(n)
	}
	return out
}

// minVectorWriteBytes is the least VectorWriteRequestBytes a write reports
// per vector index.
const minVectorWriteBytes = 1024

// BilledSize is the size an item's write is billed at: its item size, with
// each attribute a vector index reads (a valid vector) counted as its name
// plus 4 bytes per dimension instead of the list of numbers it holds
// (DynamoDB, measured by a conformance suite: 1 to 1,024 dimensions). Reads
// and the 400 KB limit size the vector as the numbers it holds.
func BilledSize(vxs []*Index, it attr.Item, size int) int {
	if len(vxs) == 0 || it == nil {
		return size
	}
	var seen []string
	for _, vx := range vxs {
		v, ok := it[vx.Attr]
		if !ok || v.T != attr.L || len(v.List) != vx.Dims || slices.Contains(seen, vx.Attr) {
			continue
		}
		seen = append(seen, vx.Attr)
		size += 4*vx.Dims - attr.ValueSize(v)
	}
	return size
}
