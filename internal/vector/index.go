package vector

import (
	"math"
	"math/rand/v2"
	"sync"
	"unsafe"
)

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// Index is an HNSW vector index with exact-scan fallbacks. See the package
// documentation for the design. The zero value is not usable; call New or
// Load.
type Index struct {
	cfg      Config
	dim      int
	l0Stride int // 1 + 2M: count followed by neighbours
	upStride int // 1 + M
	mL       float64

	wmu sync.Mutex   // serialises writers (Add, Update, Delete, Compact, ReadFrom)
	mu  sync.RWMutex // readers hold R; writers take W only to publish changes

	vecs [][]float32 // chunked vector slab, chunkSize vectors per chunk
	l0   [][]uint32  // chunked layer-0 adjacency rows (l0Stride per node)
	// l0Shared[c]: chunk l0[c] is also referenced by a Frozen view, so a
	// writer copies it before changing a row (chunks past the end: not
	// shared).
	l0Shared []bool
	sqn      []float32 // ‖v‖² per node (EUCLIDEAN only)
	ids      []uint64  // node → external ID
	level    []uint8   // node → top layer
	dead     []bool    // node → tombstoned
	upOff    []uint32  // node → offset of its layer-1 row in up (level > 0 only)
	up       []uint32  // upper-layer rows, level·upStride per node with level > 0
	byID     map[uint64]uint32
	attrs    attrTable

	quant *sq8      // trained SQ8 quantiser; nil until trained or when off
	codes [][]uint8 // chunked SQ8 codes, same chunking as vecs (quant != nil)
	entry uint32
	top   int // layer of entry; -1 when the graph is empty
	live  int
	tombs int

	pcg *rand.PCG
	rng *rand.Rand

	pool sync.Pool // *searcher
}

// New returns an empty index.
func New(cfg Config) (*Index, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	x := &Index{}
	x.init(cfg)
	return x, nil
}

func (x *Index) init(cfg Config) {
	x.cfg = cfg
	x.dim = cfg.Dimensions
	x.l0Stride = 1 + 2*cfg.M
	x.upStride = 1 + cfg.M
	x.mL = 1 / math.Log(float64(cfg.M))
	x.byID = make(map[uint64]uint32)
	x.top = -1
	x.pcg = rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)
	x.rng = rand.New(x.pcg)
	x.pool.New = func() any { return new(searcher) }
}

// Config returns the index configuration with defaults applied.
func (x *Index) Config() Config { return x.cfg }

// Len returns the number of live vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Contains reports whether id is indexed.
func (x *Index) Contains(id uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.byID[id]
	return ok
}

// vec returns node n's stored vector.
func (x *Index) vec(n uint32) []float32 {
	c := x.vecs[n>>chunkBits]
	o := int(n&chunkMask) * x.dim
	return c[o : o+x.dim : o+x.dim]
}

// wvec is vec for an insert, which also sees its pending node (p may be nil).
func (x *Index) wvec(p *pending, n uint32) []float32 {
	if p != nil && n == pendingNode {
		return p.vec
	}
	return x.vec(n)
}

func (x *Index) wsq(p *pending, n uint32) float32 {
	if p != nil && n == pendingNode {
		return p.sq
	}
	return x.sqn[n]
}

// row returns node n's full adjacency row at layer: row[0] is the count.
func (x *Index) row(n uint32, layer int) []uint32 {
	if layer == 0 {
		c := x.l0[n>>chunkBits]
		o := int(n&chunkMask) * x.l0Stride
		return c[o : o+x.l0Stride : o+x.l0Stride]
	}
	o := int(x.upOff[n]) + (layer-1)*x.upStride
	return x.up[o : o+x.upStride : o+x.upStride]
}

// links returns node n's neighbours at layer.
func (x *Index) links(n uint32, layer int) []uint32 {
	r := x.row(n, layer)
	return r[1 : 1+r[0]]
}

func (x *Index) setLinks(n uint32, layer int, list []uint32) {
	if layer == 0 {
		x.ownL0(int(n >> chunkBits))
	}
	r := x.row(n, layer)
	r[0] = uint32(copy(r[1:], list))
}

// ownL0 makes layer-0 chunk c private to the index before a writer (holding
// mu for writing) changes a row in it: a chunk a Frozen view still shares is
// replaced by a copy, which the view never sees.
func (x *Index) ownL0(c int) {
	if c < len(x.l0Shared) && x.l0Shared[c] {
		x.l0[c] = append([]uint32(nil), x.l0[c]...)
		x.l0Shared[c] = false
	}
}

// maxConn is the adjacency capacity at layer.
func (x *Index) maxConn(layer int) int {
	if layer == 0 {
		return 2 * x.cfg.M
	}
	return x.cfg.M
}

// qdist is the distance from the prepared query in s to stored node n: on the
// SQ8 codes during a quantised traversal, else exact.
func (x *Index) qdist(s *searcher, n uint32) float32 {
	if s.useQ {
		return x.qdistCodes(s, n)
	}
	return x.qdistExact(s, n)
}

// qdistExact is qdist on the float32 vectors.
func (x *Index) qdistExact(s *searcher, n uint32) float32 {
	return x.queryDist(s, n, dot(s.q, x.vec(n)))
}

// queryDist turns d, the dot product of the prepared query in s with node
// n's vector (exact or from the codes), into the internal distance.
func (x *Index) queryDist(s *searcher, n uint32, d float32) float32 {
	switch x.cfg.Distance {
	case Cosine:
		return 1 - d
	case DotProduct:
		return -d
	}
	return s.qsq + x.sqn[n] - 2*d
}

// pairDist is the distance between two nodes, either of which may be the
// pending node of p.
func (x *Index) pairDist(p *pending, a, b uint32) float32 {
	d := dot(x.wvec(p, a), x.wvec(p, b))
	switch x.cfg.Distance {
	case Cosine:
		return 1 - d
	case DotProduct:
		return -d
	}
	return x.wsq(p, a) + x.wsq(p, b) - 2*d
}

// prepare copies a vector for storage or querying: normalised for COSINE,
// with ‖v‖² for EUCLIDEAN.
func (x *Index) prepare(dst, v []float32) ([]float32, float32) {
	dst = append(dst[:0], v...)
	var sq float32
	switch x.cfg.Distance {
	case Cosine:
		normalize(dst)
	case Euclidean:
		sq = dot(dst, dst)
	}
	return dst, sq
}

// appendNode stores a new node (caller holds mu for writing).
func (x *Index) appendNode(id uint64, v []float32, sq float32, lvl int, a *Attrs) uint32 {
	n := uint32(len(x.ids))
	if int(n)>>chunkBits == len(x.vecs) {
		x.vecs = append(x.vecs, make([]float32, chunkSize*x.dim))
		x.l0 = append(x.l0, make([]uint32, chunkSize*x.l0Stride))
		if x.quant != nil {
			x.codes = append(x.codes, make([]uint8, chunkSize*x.dim))
		}
	}
	copy(x.vec(n)[:x.dim:x.dim], v)
	if x.quant != nil {
		x.quant.encode(x.code(n), v)
	}
	x.ids = append(x.ids, id)
	x.level = append(x.level, uint8(lvl))
	x.dead = append(x.dead, false)
	if x.cfg.Distance == Euclidean {
		x.sqn = append(x.sqn, sq)
	}
	var off uint32
	if lvl > 0 {
		off = uint32(len(x.up))
		x.up = append(x.up, make([]uint32, lvl*x.upStride)...)
	}
	x.upOff = append(x.upOff, off)
	x.attrs.add(n, a)
	x.byID[id] = n
	x.live++
	return n
}

// Add indexes vec under id with the given filter attributes (a may be nil).
// Adding an existing id replaces it (as Update).
func (x *Index) Add(id uint64, vec []float32, a *Attrs) error {
	if err := checkVector(vec, x.dim); err != nil {
		return err
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.RLock()
	_, exists := x.byID[id]
	x.mu.RUnlock()
	if exists {
		x.deleteLocked(id)
	}
	x.insert(id, vec, a)
	return nil
}

// Update replaces the vector and attributes of id (delete + add).
func (x *Index) Update(id uint64, vec []float32, a *Attrs) error { return x.Add(id, vec, a) }

// Delete removes id and reports whether it was present.
func (x *Index) Delete(id uint64) bool {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	return x.deleteLocked(id)
}

// Search returns the k nearest live vectors to q that match f (nil for no
// filter), best first, using the configured EfSearch.
func (x *Index) Search(q []float32, k int, f *Filter) ([]Result, error) {
	return x.SearchEf(q, k, x.cfg.EfSearch, f)
}

// SearchEf is Search with an explicit candidate list size (raised to k).
func (x *Index) SearchEf(q []float32, k, ef int, f *Filter) ([]Result, error) {
	return x.search(q, k, ef, f, false)
}

// SearchExact is Search by an exact scan (recall 1), whatever the index size.
func (x *Index) SearchExact(q []float32, k int, f *Filter) ([]Result, error) {
	return x.search(q, k, k, f, true)
}

func (x *Index) search(q []float32, k, ef int, f *Filter, exact bool) ([]Result, error) {
	if err := checkVector(q, x.dim); err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	ef = max(ef, k)
	s := x.pool.Get().(*searcher)
	defer x.pool.Put(s)
	s.q, s.qsq = x.prepare(s.q, q)
	s.useQ = false // exact scans always use the float32 vectors

	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil, nil
	}
	var hits []cand
	if !f.empty() {
		req, ok := x.attrs.resolve(f, s.req)
		s.req = req
		if !ok {
			return []Result{}, nil
		}
		list := x.attrs.postings[x.attrs.shortest(req)]
		m := len(list)
		// Graph search with a filter of selectivity m/live expands about
		// ef·live/m nodes of 2M neighbours each; scanning the list costs m.
		if exact || m <= x.cfg.FilterExactMax || float64(m)*float64(m) <= float64(ef)*float64(2*x.cfg.M)*float64(x.live) {
			hits = x.exactList(s, list, k, req)
		} else {
			hits = x.graphSearch(s, k, ef, req)
		}
	} else if exact || x.live <= x.cfg.ExactMax || x.top < 0 {
		hits = x.exactAll(s, k)
	} else {
		hits = x.graphSearch(s, k, ef, nil)
	}
	return x.results(s, q, hits), nil
}

// results converts internal distances to DynamoDB scores.
func (x *Index) results(s *searcher, q []float32, hits []cand) []Result {
	out := make([]Result, len(hits))
	for i, h := range hits {
		var score float32
		switch x.cfg.Distance {
		case Cosine:
			score = min(max(h.d, 0), 2)
		case DotProduct:
			score = -h.d
		case Euclidean:
			score = float32(math.Sqrt(l2sq(q, x.vec(h.n))))
		}
		out[i] = Result{ID: x.ids[h.n], Score: score}
	}
	if x.cfg.Distance == Euclidean {
		// Exact rescoring can reorder near-ties computed in float32.
		for i := 1; i < len(out); i++ {
			for j := i; j > 0 && out[j].Score < out[j-1].Score; j-- {
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
	}
	return out
}

// exactAll scans every live vector.
func (x *Index) exactAll(s *searcher, k int) []cand {
	s.res = s.res[:0]
	total := len(x.ids)
	for c := range x.vecs {
		base := c << chunkBits
		cnt := min(chunkSize, total-base)
		for i := 0; i < cnt; i++ {
			n := uint32(base + i)
			if x.dead[n] {
				continue
			}
			s.res.pushBounded(cand{x.qdist(s, n), n}, k)
		}
	}
	return s.res.sortAsc()
}

// exactList scans the nodes of a posting list that match req.
func (x *Index) exactList(s *searcher, list []uint32, k int, req []uint32) []cand {
	s.res = s.res[:0]
	for _, n := range list {
		if x.dead[n] || !x.attrs.matches(n, req) {
			continue
		}
		s.res.pushBounded(cand{x.qdist(s, n), n}, k)
	}
	return s.res.sortAsc()
}

// prefetchNodes asks the CPU to start loading the codes (SQ8 traversal) or
// vectors the search is about to score, all of them at once, so their
// memory latencies overlap instead of adding up one vector at a time. The
// first KB of each is enough: the hardware prefetcher follows the rest once
// the dot product streams through it (prefetching whole 4 KB float32 vectors
// was slower, measured with vecbench at 250k × 1024).
func (x *Index) prefetchNodes(s *searcher, ns []uint32) {
	for _, n := range ns {
		if s.useQ {
			c := x.code(n)
			prefetch(&c[0], min(prefetchLines, (len(c)+63)/64))
		} else {
			v := x.vec(n)
			prefetch((*byte)(unsafe.Pointer(&v[0])), min(prefetchLines, (len(v)+15)/16))
		}
	}
}

// prefetchLines is how many 64-byte lines of each vector prefetchNodes asks
// for.
const prefetchLines = 16
