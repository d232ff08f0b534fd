package vector

import (
	"math"
	"slices"
)

// randomLevel draws a node level from the exponential distribution with
// scale 1/ln(M).
func (x *Index) randomLevel() int {
	l := int(-math.Log(1-x.rng.Float64()) * x.mL)
	return min(l, maxLevel)
}

// greedy descends one layer by hill-climbing from ep.
func (x *Index) greedy(s *searcher, ep cand, layer int) cand {
	for changed := true; changed; {
		changed = false
		for _, m := range x.links(ep.n, layer) {
			if d := x.qdist(s, m); d < ep.d {
				ep = cand{d, m}
				changed = true
			}
		}
	}
	return ep
}

// searchLayer runs the HNSW beam search at layer from the entry points eps
// with candidate list size ef. Only live nodes matching req (nil: all live
// nodes) enter the result heap s.res, but every reached node is expanded, and
// the search does not stop early while fewer than ef results are held.
func (x *Index) searchLayer(s *searcher, eps []cand, ef, layer int, req []uint32) {
	s.vis.reset(len(x.ids))
	s.cand = s.cand[:0]
	s.res = s.res[:0]
	accept := func(n uint32) bool {
		return !x.dead[n] && (req == nil || x.attrs.matches(n, req))
	}
	for _, e := range eps {
		if !s.vis.visit(e.n) {
			continue
		}
		s.cand.push(e)
		if accept(e.n) {
			s.res.pushBounded(e, ef)
		}
	}
	for len(s.cand) > 0 {
		c := s.cand.pop()
		if len(s.res) >= ef && c.d > s.res[0].d {
			break
		}
		for _, m := range x.links(c.n, layer) {
			if !s.vis.visit(m) {
				continue
			}
			d := x.qdist(s, m)
			if len(s.res) < ef || d < s.res[0].d {
				s.cand.push(cand{d, m})
				if accept(m) {
					s.res.pushBounded(cand{d, m}, ef)
				}
			}
		}
	}
}

// graphSearch is the HNSW query: greedy descent to layer 1, then a beam
// search of width ef on layer 0. It returns the best k, ascending.
func (x *Index) graphSearch(s *searcher, k, ef int, req []uint32) []cand {
	ep := cand{x.qdist(s, x.entry), x.entry}
	for lc := x.top; lc > 0; lc-- {
		ep = x.greedy(s, ep, lc)
	}
	s.tmp = append(s.tmp[:0], ep)
	x.searchLayer(s, s.tmp, ef, 0, req)
	for len(s.res) > k {
		s.res.pop()
	}
	return s.res.sortAsc()
}

// selectNeighbors applies the HNSW paper's neighbour-selection heuristic
// (Algorithm 4 without extension or pruned-connection refill): candidates,
// sorted by ascending distance to the base, are kept when closer to the base
// than to every neighbour already kept, up to m. Writer only.
func (x *Index) selectNeighbors(cands []cand, m int, out []uint32) []uint32 {
	out = out[:0]
	if len(cands) <= m {
		for _, c := range cands {
			out = append(out, c.n)
		}
		return out
	}
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		good := true
		for _, o := range out {
			if x.pairDist(c.n, o) < c.d {
				good = false
				break
			}
		}
		if good {
			out = append(out, c.n)
		}
	}
	return out
}

func sortCands(c []cand) {
	slices.SortFunc(c, func(a, b cand) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		return int(a.n) - int(b.n)
	})
}

// linkUpdate is a new adjacency list for node n at layer.
type linkUpdate struct {
	n     uint32
	layer int
	list  []uint32
}

// insert adds a node (caller holds wmu). Neighbour lists are computed under
// the read lock and published under the write lock.
func (x *Index) insert(id uint64, v []float32, a *Attrs) {
	vec, sq := x.prepare(nil, v)
	lvl := x.randomLevel()

	x.mu.RLock()
	n := uint32(len(x.ids))
	x.pendN, x.pendVec, x.pendSq = n, vec, sq
	var own [][]uint32
	var upd []linkUpdate
	if x.top >= 0 {
		own, upd = x.plan(vec, sq, lvl)
	}
	x.mu.RUnlock()

	x.mu.Lock()
	x.appendNode(id, vec, sq, lvl, a)
	for lc, list := range own {
		x.setLinks(n, lc, list)
	}
	for _, u := range upd {
		x.setLinks(u.n, u.layer, u.list)
	}
	if lvl > x.top || x.top < 0 {
		x.entry, x.top = n, lvl
	}
	x.mu.Unlock()
	x.pendVec = nil
}

// plan computes the new node's neighbour lists per layer and the updated
// lists of those neighbours (read lock held; pendN/pendVec set).
func (x *Index) plan(vec []float32, sq float32, lvl int) (own [][]uint32, upd []linkUpdate) {
	s := x.pool.Get().(*searcher)
	defer x.pool.Put(s)
	s.q, s.qsq = vec, sq
	n := x.pendN

	ep := cand{x.qdist(s, x.entry), x.entry}
	for lc := x.top; lc > lvl; lc-- {
		ep = x.greedy(s, ep, lc)
	}
	own = make([][]uint32, min(lvl, x.top)+1)
	eps := []cand{ep}
	var buf []cand
	for lc := min(lvl, x.top); lc >= 0; lc-- {
		x.searchLayer(s, eps, x.cfg.EfConstruction, lc, nil)
		w := append([]cand(nil), s.res...)
		sortCands(w)
		own[lc] = x.selectNeighbors(w, x.cfg.M, nil)
		capacity := x.maxConn(lc)
		for i, e := range own[lc] {
			cur := x.links(e, lc)
			if len(cur) < capacity && !x.anyDead(cur) {
				list := make([]uint32, len(cur)+1)
				copy(list, cur)
				list[len(cur)] = n
				upd = append(upd, linkUpdate{e, lc, list})
				continue
			}
			buf = buf[:0]
			buf = append(buf, cand{w[indexOf(w, e, i)].d, n})
			for _, c := range cur {
				if !x.dead[c] {
					buf = append(buf, cand{x.pairDist(e, c), c})
				}
			}
			sortCands(buf)
			upd = append(upd, linkUpdate{e, lc, x.selectNeighbors(buf, capacity, nil)})
		}
		if len(w) > 0 {
			eps = w
		}
	}
	s.q = nil
	return own, upd
}

// indexOf finds node e in w, starting near hint.
func indexOf(w []cand, e uint32, hint int) int {
	for i := hint; i < len(w); i++ {
		if w[i].n == e {
			return i
		}
	}
	for i := range w {
		if w[i].n == e {
			return i
		}
	}
	return 0
}

func (x *Index) anyDead(list []uint32) bool {
	for _, c := range list {
		if x.dead[c] {
			return true
		}
	}
	return false
}
