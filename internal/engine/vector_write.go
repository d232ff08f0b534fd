package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
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
func checkVectorValue(vx *VectorIndex, v attr.Value) error {
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
func checkSchemaValue(vx *VectorIndex, k KeyAttr, hash bool, v attr.Value) error {
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

// checkVectorWrite validates the vector-index attributes a write changes
// (DynamoDB validates what a write changes, not values already stored; a
// Put changes every attribute it holds: re-putting an item stored before
// the index with an invalid vector is refused, eu-west-2 and us-east-1,
// 2026-08-12, captured by another emulator's authors). old is nil for a
// Put.
func (t *Table) checkVectorWrite(old, new attr.Item) error {
	for _, vx := range t.Vectors {
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

// vectorEntry is what the index holds for an item: its float32 vector and
// filter attributes; ok is false when the item is not in the index (no
// valid vector, no valid HASH value when the schema has one, or an
// INLINE_FILTER attribute of another type: only items written before the
// index have one, and DynamoDB's backfill skips them rather than index
// them without the value (ScyllaDB's Alternator tests, run against it); a
// missing INLINE_FILTER attribute is merely absent).
func (t *Table) vectorEntry(vx *VectorIndex, it attr.Item) ([]float32, *vector.Attrs, bool) {
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

// vectorViewChanged reports whether a write changes what the index holds
// or projects for the item.
func (t *Table) vectorViewChanged(vx *VectorIndex, old, new attr.Item) bool {
	_, _, inOld := t.vectorEntry(vx, old)
	_, _, inNew := t.vectorEntry(vx, new)
	if inOld != inNew {
		return true
	}
	if !inNew {
		return false
	}
	if !attr.Equal(old[vx.Attr], new[vx.Attr]) {
		return true
	}
	return !attr.ItemsEqual(t.vectorProject(vx, old), t.vectorProject(vx, new))
}

// vectorWrites is the Stage of vector indexes (subsystems.go): inside the
// item's transaction it validates the vector attributes, maintains the
// item ↔ ID mapping and marks the ID dirty; the in-memory index is updated
// by vectorApply once the transaction has committed. verbatim skips the
// validation (itemWrite.verbatim).
func (e *Engine) vectorWrites(txn storage.Txn, t *Table, itemKey []byte, old, new attr.Item, whole, verbatim bool) error {
	if len(t.Vectors) == 0 {
		return nil
	}
	if new != nil && !verbatim {
		written := old
		if whole {
			written = nil // a Put writes every attribute it holds
		}
		if err := t.checkVectorWrite(written, new); err != nil {
			return err
		}
	}
	for _, vx := range t.Vectors {
		rt := e.vecRuntime(t.ID, vx.ID)
		if rt == nil {
			continue
		}
		_, _, inOld := t.vectorEntry(vx, old)
		_, _, inNew := t.vectorEntry(vx, new)
		if !inOld && !inNew {
			continue
		}
		if err := e.stageVectorItem(txn, rt, itemKey, inNew); err != nil {
			return err
		}
	}
	return nil
}

// stageVectorItem writes the mapping and dirty mark of one item in txn and
// records the change for vectorApply.
func (e *Engine) stageVectorItem(txn storage.Txn, rt *vecRuntime, itemKey []byte, indexed bool) error {
	mapKey := append(vecSub(rt.prefix, vecKeyMap), itemKey...)
	var id uint64
	b, err := txn.Get(mapKey)
	switch {
	case err == nil && len(b) == 8:
		id = binary.BigEndian.Uint64(b)
	case err == nil || errors.Is(err, storage.ErrNotFound):
		if !indexed {
			return nil
		}
		id = rt.alloc()
		if err := txn.Set(mapKey, binary.BigEndian.AppendUint64(nil, id)); err != nil {
			return err
		}
		if err := txn.Set(vecIDKey(rt.prefix, vecKeyID, id), bytes.Clone(itemKey)); err != nil {
			return err
		}
	default:
		return err
	}
	if !indexed {
		if err := txn.Delete(mapKey); err != nil {
			return err
		}
		if err := txn.Delete(vecIDKey(rt.prefix, vecKeyID, id)); err != nil {
			return err
		}
	}
	// The mark carries a fresh sequence so that a snapshot cut before this
	// write does not clear it (vector_snapshot.go). Callers hold the item's
	// stripe lock, which is what orders the sequence against a cut.
	seq := rt.marks.Add(1)
	if err := txn.Set(vecIDKey(rt.prefix, vecKeyDirty, id), binary.BigEndian.AppendUint64(nil, seq)); err != nil {
		return err
	}
	rt.changes.Add(1)
	rt.setPending(itemKey, vecOp{id: id, del: !indexed})
	return nil
}

// vectorApply updates the in-memory vector indexes after a committed item
// write (called from writeStats).
func (e *Engine) vectorApply(t *Table, old, new attr.Item) {
	if len(t.Vectors) == 0 {
		return
	}
	it := new
	if it == nil {
		it = old
	}
	if it == nil {
		return
	}
	itemKey := t.storageKey(t.primaryKeyOf(it))
	for _, vx := range t.Vectors {
		rt := e.vecRuntime(t.ID, vx.ID)
		if rt == nil {
			continue
		}
		op, ok := rt.popPending(itemKey)
		if !ok {
			continue
		}
		if v, a, in := t.vectorEntry(vx, new); in && !op.del {
			rt.idx.Add(op.id, v, a)
		} else {
			rt.idx.Delete(op.id)
		}
	}
}

// vectorWriteBytes is the VectorWriteRequestBytes of one item write per
// vector index whose content changes: the item size of the index's entry,
// the vector attribute counted as its name plus 4 bytes per dimension (the
// float32 vector), at least 1024 (DynamoDB's figures, pinned by a
// conformance suite run against it).
func (t *Table) vectorWriteBytes(old, new attr.Item) map[string]float64 {
	var out map[string]float64
	for _, vx := range t.Vectors {
		if !t.vectorViewChanged(vx, old, new) {
			continue
		}
		src := new
		if _, _, in := t.vectorEntry(vx, new); !in {
			src = old
		}
		p := t.vectorProject(vx, src)
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

// awaitAllocation waits while the table is UPDATING within --create-delay:
// DynamoDB's resource allocation, during which a new vector index is
// CREATING with Backfilling false, comes before its backfill. It reports
// false when the engine closes or the table goes away.
func (e *Engine) awaitAllocation(table string, tableID uint64) bool {
	t, ok := e.lookupTable(table)
	if !ok || t.ID != tableID {
		return false
	}
	if t.rec.Status != StatusUpdating || t.rec.ReadyAt.IsZero() {
		return true
	}
	return e.awaitClock(t.rec.ReadyAt, func() bool {
		t, ok := e.lookupTable(table)
		return ok && t.ID == tableID
	})
}

// awaitClock waits until the engine's clock reaches at, while still
// holds; it reports false when the engine closes or still stops holding.
func (e *Engine) awaitClock(at time.Time, still func() bool) bool {
	for {
		if !still() {
			return false
		}
		wait := at.Sub(e.clock.Now())
		if wait <= 0 {
			return true
		}
		select {
		case <-e.closing:
			return false
		case <-time.After(min(wait, 50*time.Millisecond)):
		}
	}
}

// vectorBackfillChunk is how many items one backfill step indexes.
const vectorBackfillChunk = 256

// vectorBackfill fills a vector index added by UpdateTable from the items
// already in the table, then marks it ACTIVE. Each step locks the items it
// reads, so a concurrent write of the same item cannot be overtaken by a
// stale copy.
func (e *Engine) vectorBackfill(table string, tableID uint64, indexID uint32) {
	if !e.awaitAllocation(table, tableID) || !e.setVectorBackfilling(table, tableID, indexID) {
		return
	}
	// With --create-delay the backfill also lasts the delay at least, so
	// its phase (table ACTIVE, index CREATING with Backfilling true, a
	// Delete taken as a cancel) can be seen as on DynamoDB, where it lasts
	// minutes even for a few items.
	minEnd := e.clock.Now().Add(e.cfg.CreateDelay)
	cursor := itemPrefix(tableID)
	end := itemPrefix(tableID + 1)
	for {
		select {
		case <-e.closing:
			return
		default:
		}
		t, ok := e.lookupTable(table)
		if !ok || t.ID != tableID {
			return
		}
		vx := vectorByID(t, indexID)
		rt := e.vecRuntime(tableID, indexID)
		if vx == nil || rt == nil {
			return
		}
		next, err := e.vectorBackfillChunk(t, vx, rt, cursor, end)
		if err != nil {
			return
		}
		if next == nil {
			break
		}
		cursor = next
	}
	if !e.awaitClock(minEnd, func() bool {
		t, ok := e.lookupTable(table)
		return ok && t.ID == tableID && vectorByID(t, indexID) != nil
	}) {
		return
	}
	e.finishVectorBackfill(table, tableID, indexID)
}

func vectorByID(t *Table, id uint32) *VectorIndex {
	for _, vx := range t.Vectors {
		if vx.ID == id {
			return vx
		}
	}
	return nil
}

// vectorBackfillChunk indexes the items from cursor; next is nil at the end.
func (e *Engine) vectorBackfillChunk(t *Table, vx *VectorIndex, rt *vecRuntime, cursor, end []byte) ([]byte, error) {
	r, err := e.openSnapshot()
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	_, err = r.Range(cursor, end, func(key, _ []byte) (bool, error) {
		keys = append(keys, bytes.Clone(key))
		return len(keys) < vectorBackfillChunk, nil
	})
	r.Close()
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	// Lock the chunk's stripes in index order (writers hold one at a time).
	stripes := map[int]bool{}
	for _, k := range keys {
		stripes[e.stripeOf(k)] = true
	}
	order := make([]int, 0, len(stripes))
	for s := range stripes {
		order = append(order, s)
	}
	slices.Sort(order)
	for _, s := range order {
		e.locks[s].Lock()
	}
	defer func() {
		for _, s := range order {
			e.locks[s].Unlock()
		}
	}()
	type entry struct {
		id  uint64
		vec []float32
		a   *vector.Attrs
	}
	var apply []entry
	err = e.commit(false, func(txn storage.Txn) error {
		apply = apply[:0]
		for _, k := range keys {
			item, err := readItem(txn, k)
			if err != nil {
				return err
			}
			v, a, ok := t.vectorEntry(vx, item)
			if !ok {
				continue
			}
			if err := e.stageVectorItem(txn, rt, k, true); err != nil {
				return err
			}
			op, _ := rt.popPending(k)
			apply = append(apply, entry{op.id, v, a})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, x := range apply {
		rt.idx.Add(x.id, x.vec, x.a)
	}
	last := keys[len(keys)-1]
	return append(bytes.Clone(last), 0), nil
}

// minVectorWriteBytes is the least VectorWriteRequestBytes a write reports
// per vector index.
const minVectorWriteBytes = 1024

// billedSize is the size an item's write is billed at: its item size, with
// each attribute a vector index reads (a valid vector) counted as its name
// plus 4 bytes per dimension instead of the list of numbers it holds
// (DynamoDB, measured by a conformance suite: 1 to 1,024 dimensions). Reads
// and the 400 KB limit size the vector as the numbers it holds.
func (t *Table) billedSize(it attr.Item, size int) int {
	if len(t.Vectors) == 0 || it == nil {
		return size
	}
	var seen []string
	for _, vx := range t.Vectors {
		v, ok := it[vx.Attr]
		if !ok || v.T != attr.L || len(v.List) != vx.Dims || slices.Contains(seen, vx.Attr) {
			continue
		}
		seen = append(seen, vx.Attr)
		size += 4*vx.Dims - attr.ValueSize(v)
	}
	return size
}
