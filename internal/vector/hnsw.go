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
		s.next = s.next[:0]
		for _, m := range x.links(c.n, layer) {
			if s.vis.visit(m) {
				s.next = append(s.next, m)
			}
		}
		x.prefetchNodes(s, s.next)
		for _, m := range s.next {
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
//
// With SQ8 the traversal runs on the codes and all (up to ef) candidates it
// found are re-scored with the float32 vectors before the best k are taken,
// so the returned distances are exact and quantisation error can only swap
// candidates near the ef boundary, not corrupt the top k's order.
func (x *Index) graphSearch(s *searcher, k, ef int, req []uint32) []cand {
	quant := x.useCodes(s)
	ep := cand{x.qdist(s, x.entry), x.entry}
	for lc := x.top; lc > 0; lc-- {
		ep = x.greedy(s, ep, lc)
	}
	s.tmp = append(s.tmp[:0], ep)
	x.searchLayer(s, s.tmp, ef, 0, req)
	if quant {
		s.useQ = false
		s.tmp = x.rescore(s, s.tmp[:0], s.res)
		return s.tmp[:min(k, len(s.tmp))]
	}
	for len(s.res) > k {
		s.res.pop()
	}
	return s.res.sortAsc()
}

// rescore appends src with exact distances to dst, sorted ascending.
func (x *Index) rescore(s *searcher, dst, src []cand) []cand {
	for _, c := range src {
		dst = append(dst, cand{x.qdistExact(s, c.n), c.n})
	}
	sortCands(dst)
	return dst
}

// selectNeighbors applies the HNSW paper's neighbour-selection heuristic
// (Algorithm 4 without extension or pruned-connection refill): candidates,
// sorted by ascending distance to the base, are kept when closer to the base
// than to every neighbour already kept, up to m. Writer only.
func (x *Index) selectNeighbors(p *pending, cands []cand, m int, out []uint32) []uint32 {
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
			if x.pairDist(p, c.n, o) < c.d {
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

// linkUpdate is a new adjacency list for node n at layer. seen is the list
// the plan started from: if it changed before publication (a concurrent
// insert of AddBatch), the update is recomputed.
type linkUpdate struct {
	n     uint32
	layer int
	list  []uint32
	seen  []uint32
}

// pendingNode stands for the node being inserted in a plan: its number is
// only known when it is published. pending carries its vector so that pair
// distances can include it.
const pendingNode = ^uint32(0)

type pending struct {
	vec []float32
	sq  float32
}

// insert adds a node (caller holds wmu). Neighbour lists are computed under
// the read lock and published under the write lock.
func (x *Index) insert(id uint64, v []float32, a *Attrs) {
	x.insertLevel(id, v, a, x.randomLevel())
}

// insertLevel is insert with a given level (AddBatch draws levels in order
// up front).
func (x *Index) insertLevel(id uint64, v []float32, a *Attrs, lvl int) {
	x.mu.RLock()
	pl := x.makePlan(id, v, a, lvl)
	x.mu.RUnlock()
	x.mu.Lock()
	x.publish(pl)
	x.mu.Unlock()
}

// nodePlan is an insert computed but not yet published.
type nodePlan struct {
	id  uint64
	p   *pending
	a   *Attrs
	lvl int
	own [][]uint32
	upd []linkUpdate
}

// makePlan prepares v and computes its links (read lock held; several may
// run at once).
func (x *Index) makePlan(id uint64, v []float32, a *Attrs, lvl int) *nodePlan {
	vec, sq := x.prepare(nil, v)
	pl := &nodePlan{id: id, p: &pending{vec, sq}, a: a, lvl: lvl}
	if x.top >= 0 {
		pl.own, pl.upd = x.plan(pl.p, lvl)
	}
	return pl
}

// publish stores a planned node and its neighbours' new lists (write lock
// held). A neighbour list that changed since the plan saw it (another plan
// of the same AddBatch round was published first) is recomputed from its
// current state, so no link is lost.
func (x *Index) publish(pl *nodePlan) {
	n := x.appendNode(pl.id, pl.p.vec, pl.p.sq, pl.lvl, pl.a)
	for lc, list := range pl.own {
		x.setLinks(n, lc, list)
	}
	for _, u := range pl.upd {
		if cur := x.links(u.n, u.layer); !slices.Equal(cur, u.seen) {
			u.list = x.relink(pl.p, u.n, u.layer, cur)
		}
		for i, c := range u.list {
			if c == pendingNode {
				u.list[i] = n
			}
		}
		x.setLinks(u.n, u.layer, u.list)
	}
	if pl.lvl > x.top || x.top < 0 {
		x.entry, x.top = n, pl.lvl
	}
	x.maybeTrain()
}

// relink is e's new list at layer lc once the pending node links to it,
// starting from e's current list cur.
func (x *Index) relink(p *pending, e uint32, lc int, cur []uint32) []uint32 {
	if len(cur) < x.maxConn(lc) && !x.anyDead(cur) {
		return append(append(make([]uint32, 0, len(cur)+1), cur...), pendingNode)
	}
	buf := []cand{{x.pairDist(p, e, pendingNode), pendingNode}}
	for _, c := range cur {
		if !x.dead[c] {
			buf = append(buf, cand{x.pairDist(p, e, c), c})
		}
	}
	sortCands(buf)
	return x.selectNeighbors(p, buf, x.maxConn(lc), nil)
}

// plan computes the new node's neighbour lists per layer and the updated
// lists of those neighbours (read lock held). The new node appears in them
// as pendingNode.
func (x *Index) plan(p *pending, lvl int) (own [][]uint32, upd []linkUpdate) {
	s := x.pool.Get().(*searcher)
	defer x.pool.Put(s)
	s.q, s.qsq = p.vec, p.sq
	// With SQ8 the construction searches traverse the codes too (the new
	// node's own codes are not needed: it is only ever the query here), and
	// the candidates are re-scored exactly before neighbour selection, which
	// compares exact pair distances.
	quant := x.useCodes(s)
	n := pendingNode

	ep := cand{x.qdist(s, x.entry), x.entry}
	for lc := x.top; lc > lvl; lc-- {
		ep = x.greedy(s, ep, lc)
	}
	own = make([][]uint32, min(lvl, x.top)+1)
	eps := []cand{ep}
	var buf []cand
	for lc := min(lvl, x.top); lc >= 0; lc-- {
		x.searchLayer(s, eps, x.cfg.EfConstruction, lc, nil)
		var w []cand
		if quant {
			w = x.rescore(s, make([]cand, 0, len(s.res)), s.res)
		} else {
			w = append([]cand(nil), s.res...)
			sortCands(w)
		}
		own[lc] = x.selectNeighbors(p, w, x.cfg.M, nil)
		capacity := x.maxConn(lc)
		for i, e := range own[lc] {
			cur := x.links(e, lc)
			seen := append([]uint32(nil), cur...)
			if len(cur) < capacity && !x.anyDead(cur) {
				list := make([]uint32, len(cur)+1)
				copy(list, cur)
				list[len(cur)] = n
				upd = append(upd, linkUpdate{n: e, layer: lc, list: list, seen: seen})
				continue
			}
			buf = buf[:0]
			buf = append(buf, cand{w[indexOf(w, e, i)].d, n})
			for _, c := range cur {
				if !x.dead[c] {
					buf = append(buf, cand{x.pairDist(p, e, c), c})
				}
			}
			sortCands(buf)
			upd = append(upd, linkUpdate{n: e, layer: lc, list: x.selectNeighbors(p, buf, capacity, nil), seen: seen})
		}
		if len(w) > 0 {
			eps = w
			if quant {
				// The next layer's heaps hold code distances.
				eps = append([]cand(nil), s.res...)
			}
		}
	}
	s.q, s.useQ = nil, false
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
