package vector

import "slices"

// deleteLocked tombstones id and repairs its neighbours' adjacency (caller
// holds wmu). It compacts the index when tombstones exceed a quarter of the
// nodes.
func (x *Index) deleteLocked(id uint64) bool {
	x.mu.RLock()
	n, ok := x.byID[id]
	if !ok {
		x.mu.RUnlock()
		return false
	}
	var upd []linkUpdate
	var buf []cand
	for lc := 0; lc <= int(x.level[n]); lc++ {
		nb := x.links(n, lc)
		for _, e := range nb {
			if x.dead[e] || !slices.Contains(x.links(e, lc), n) {
				continue
			}
			buf = x.repairCands(buf[:0], e, n, x.links(e, lc), nb)
			upd = append(upd, linkUpdate{n: e, layer: lc, list: x.selectNeighbors(nil, buf, x.maxConn(lc), nil)})
		}
	}
	x.mu.RUnlock()

	x.mu.Lock()
	for _, u := range upd {
		x.setLinks(u.n, u.layer, u.list)
	}
	x.dead[n] = true
	delete(x.byID, id)
	x.attrs.remove(n)
	x.live--
	x.tombs++
	if x.entry == n {
		x.pickEntry()
	}
	x.mu.Unlock()

	if len(x.ids) >= 64 && x.tombs*4 > len(x.ids) {
		x.compactLocked()
	}
	return true
}

// repairCands collects, sorted by distance to e, the live nodes of cur and
// of extra except e itself and the removed node gone.
func (x *Index) repairCands(buf []cand, e, gone uint32, cur, extra []uint32) []cand {
	add := func(c uint32) {
		if c == e || c == gone || x.dead[c] {
			return
		}
		for _, b := range buf {
			if b.n == c {
				return
			}
		}
		buf = append(buf, cand{x.pairDist(nil, e, c), c})
	}
	for _, c := range cur {
		add(c)
	}
	for _, c := range extra {
		add(c)
	}
	sortCands(buf)
	return buf
}

// pickEntry makes the live node with the highest level the entry point.
func (x *Index) pickEntry() {
	x.top = -1
	for i, l := range x.level {
		if !x.dead[i] && int(l) > x.top {
			x.entry, x.top = uint32(i), int(l)
		}
	}
}

// Compact drops tombstoned nodes, renumbers the rest and refills adjacency
// lists that pointed at dropped nodes from their two-hop neighbourhood.
// Searches continue while the new graph is built (it needs about as much
// memory again as the index); they wait only for the swap.
func (x *Index) Compact() {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.compactLocked()
}

func (x *Index) compactLocked() {
	if x.tombs == 0 {
		return
	}
	x.mu.RLock()
	y := &Index{}
	y.init(x.cfg)
	y.quant = x.quant // appendNode encodes the survivors with the same ranges
	remap := make([]uint32, len(x.ids))
	var a Attrs
	for o := range x.ids {
		if x.dead[o] {
			remap[o] = ^uint32(0)
			continue
		}
		a = x.attrsOf(uint32(o), a)
		var sq float32
		if x.cfg.Distance == Euclidean {
			sq = x.sqn[o]
		}
		remap[o] = y.appendNode(x.ids[o], x.vec(uint32(o)), sq, int(x.level[o]), &a)
	}
	var buf []cand
	var list []uint32
	for o := range x.ids {
		if x.dead[o] {
			continue
		}
		for lc := 0; lc <= int(x.level[o]); lc++ {
			cur := x.links(uint32(o), lc)
			if x.anyDead(cur) {
				buf = buf[:0]
				for _, c := range cur {
					if x.dead[c] {
						buf = x.appendRepair(buf, uint32(o), x.links(c, lc))
					}
				}
				buf = x.appendRepair(buf, uint32(o), cur)
				sortCands(buf)
				list = x.selectNeighbors(nil, buf, x.maxConn(lc), list)
			} else {
				list = append(list[:0], cur...)
			}
			for i, c := range list {
				list[i] = remap[c]
			}
			y.setLinks(remap[o], lc, list)
		}
	}
	if x.top >= 0 {
		y.entry, y.top = remap[x.entry], x.top
	}
	x.mu.RUnlock()

	x.mu.Lock()
	x.vecs, x.l0, x.sqn, x.ids, x.level, x.dead = y.vecs, y.l0, y.sqn, y.ids, y.level, y.dead
	x.l0Shared = nil // new chunks, shared with no view
	x.upOff, x.up, x.byID, x.attrs = y.upOff, y.up, y.byID, y.attrs
	x.codes = y.codes
	x.entry, x.top, x.live, x.tombs = y.entry, y.top, y.live, 0
	x.mu.Unlock()
}

// appendRepair adds the live nodes of src other than o to buf with their
// distance to o, skipping duplicates.
func (x *Index) appendRepair(buf []cand, o uint32, src []uint32) []cand {
outer:
	for _, c := range src {
		if c == o || x.dead[c] {
			continue
		}
		for _, b := range buf {
			if b.n == c {
				continue outer
			}
		}
		buf = append(buf, cand{x.pairDist(nil, o, c), c})
	}
	return buf
}

// attrsOf reconstructs node n's Attrs, reusing a's storage.
func (x *Index) attrsOf(n uint32, a Attrs) Attrs {
	a = Attrs{Inline: a.Inline[:0]}
	for _, p := range x.attrs.of(n) {
		k := x.attrs.keys[p]
		if k.Name == partitionName {
			a.Partition, a.HasPartition = k.Value.Text, true
		} else {
			a.Inline = append(a.Inline, Attr(k))
		}
	}
	return a
}
