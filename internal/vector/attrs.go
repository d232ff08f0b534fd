package vector

import "strconv"

// ValueType is the scalar type of a filter attribute value.
type ValueType uint8

// Filterable scalar types (INLINE_FILTER attributes are small scalars).
const (
	TypeString ValueType = iota + 1
	TypeNumber
	TypeBool
)

// Value is a scalar attribute value compared by exact equality. Numbers must
// be given in one canonical decimal text form (the engine's normalised
// DynamoDB number), so "1.0" and "1" are the same value only if the caller
// canonicalises them.
type Value struct {
	Type ValueType
	Text string
}

// String returns a string Value.
func String(s string) Value { return Value{Type: TypeString, Text: s} }

// Number returns a number Value from its canonical decimal text.
func Number(canonical string) Value { return Value{Type: TypeNumber, Text: canonical} }

// Bool returns a boolean Value.
func Bool(b bool) Value { return Value{Type: TypeBool, Text: strconv.FormatBool(b)} }

// Attr is one named filter attribute.
type Attr struct {
	Name  string
	Value Value
}

// Attrs are the filterable attributes of one indexed item.
type Attrs struct {
	// Partition is the value of the SearchSchema HASH element, if any.
	Partition    string
	HasPartition bool
	// Inline are the INLINE_FILTER attributes present on the item.
	Inline []Attr
}

// Filter restricts a search to nodes whose attributes match: the partition
// value (when HasPartition) and every Inline condition by equality.
type Filter struct {
	Partition    string
	HasPartition bool
	Inline       []Attr
}

func (f *Filter) empty() bool { return f == nil || (!f.HasPartition && len(f.Inline) == 0) }

// pairKey is an interned (attribute name, value) pair. The partition uses
// partitionName, which no DynamoDB attribute name can equal (names are
// non-empty).
type pairKey struct {
	Name  string
	Value Value
}

const partitionName = ""

// attrTable interns attribute pairs and keeps a posting list and live count
// per pair. Node attributes are flat: node n's pair IDs are
// pairs[end[n-1]:end[n]].
type attrTable struct {
	ids      map[pairKey]uint32
	keys     []pairKey
	postings [][]uint32 // pair → nodes (may include tombstones until compaction)
	live     []int      // pair → live nodes carrying it
	end      []uint32   // node → end offset in nodePairs
	pairs    []uint32   // concatenated pair IDs of all nodes
}

func (t *attrTable) intern(k pairKey) uint32 {
	if id, ok := t.ids[k]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = make(map[pairKey]uint32)
	}
	id := uint32(len(t.keys))
	t.ids[k] = id
	t.keys = append(t.keys, k)
	t.postings = append(t.postings, nil)
	t.live = append(t.live, 0)
	return id
}

// add appends node n (which must equal the number of nodes so far).
func (t *attrTable) add(n uint32, a *Attrs) {
	if a != nil {
		if a.HasPartition {
			t.addPair(n, t.intern(pairKey{partitionName, String(a.Partition)}))
		}
		for _, at := range a.Inline {
			if at.Name == partitionName {
				continue
			}
			t.addPair(n, t.intern(pairKey(at)))
		}
	}
	t.end = append(t.end, uint32(len(t.pairs)))
}

func (t *attrTable) addPair(n, p uint32) {
	start := t.start(n)
	for _, q := range t.pairs[start:] {
		if q == p {
			return // duplicate attribute name/value
		}
	}
	t.pairs = append(t.pairs, p)
	t.postings[p] = append(t.postings[p], n)
	t.live[p]++
}

func (t *attrTable) start(n uint32) uint32 {
	if n == 0 {
		return 0
	}
	return t.end[n-1]
}

func (t *attrTable) of(n uint32) []uint32 { return t.pairs[t.start(n):t.end[n]] }

// remove drops node n's contribution to the live counts.
func (t *attrTable) remove(n uint32) {
	for _, p := range t.of(n) {
		t.live[p]--
	}
}

// resolve turns a filter into required pair IDs; ok is false when some
// condition matches no node at all.
func (t *attrTable) resolve(f *Filter, buf []uint32) (req []uint32, ok bool) {
	req = buf[:0]
	look := func(k pairKey) bool {
		id, found := t.ids[k]
		if !found || t.live[id] == 0 {
			return false
		}
		req = append(req, id)
		return true
	}
	if f.HasPartition && !look(pairKey{partitionName, String(f.Partition)}) {
		return req, false
	}
	for _, c := range f.Inline {
		if c.Name == partitionName || !look(pairKey(c)) {
			return req, false
		}
	}
	return req, true
}

// matches reports whether node n carries every required pair.
func (t *attrTable) matches(n uint32, req []uint32) bool {
	have := t.of(n)
outer:
	for _, p := range req {
		for _, q := range have {
			if q == p {
				continue outer
			}
		}
		return false
	}
	return true
}

// shortest returns the required pair with the shortest posting list.
func (t *attrTable) shortest(req []uint32) uint32 {
	best := req[0]
	for _, p := range req[1:] {
		if len(t.postings[p]) < len(t.postings[best]) {
			best = p
		}
	}
	return best
}
