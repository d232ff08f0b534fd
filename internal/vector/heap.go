package vector

// cand is a node with its distance to the current query (lower is closer).
type cand struct {
	d float32
	n uint32
}

// minHeap pops the closest candidate first.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d <= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	downMin(s)
	*h = s
	return top
}

// maxHeap keeps the farthest candidate on top (bounded result sets).
type maxHeap []cand

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d >= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	downMax(s)
	*h = s
	return top
}

// pushBounded adds c if the heap holds fewer than k items or c is closer
// than the farthest one.
func (h *maxHeap) pushBounded(c cand, k int) {
	if len(*h) < k {
		h.push(c)
		return
	}
	if c.d < (*h)[0].d {
		(*h)[0] = c
		downMax(*h)
	}
}

func downMin(s []cand) {
	i, n := 0, len(s)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && s[r].d < s[l].d {
			j = r
		}
		if s[j].d >= s[i].d {
			return
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
}

func downMax(s []cand) {
	i, n := 0, len(s)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && s[r].d > s[l].d {
			j = r
		}
		if s[j].d <= s[i].d {
			return
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
}

// sortAsc sorts the heap's contents in place by ascending distance (heap
// drain) and returns them; the heap is no longer a heap afterwards.
func (h *maxHeap) sortAsc() []cand {
	s := *h
	for end := len(s) - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		downMax(s[:end])
	}
	return s
}

// visited is a generation-stamped visited set: a node is visited when its
// stamp equals the current generation, so clearing is O(1).
type visited struct {
	stamp []uint32
	gen   uint32
}

func (v *visited) reset(n int) {
	if len(v.stamp) < n {
		v.stamp = make([]uint32, n+n/4+1024)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 { // wrapped: clear and restart
		clear(v.stamp)
		v.gen = 1
	}
}

// visit marks n and reports whether it was unvisited.
func (v *visited) visit(n uint32) bool {
	if v.stamp[n] == v.gen {
		return false
	}
	v.stamp[n] = v.gen
	return true
}

// searcher is the pooled per-search scratch state.
type searcher struct {
	vis  visited
	cand minHeap
	res  maxHeap
	q    []float32 // query, normalised for COSINE
	qsq  float32   // ‖q‖² for EUCLIDEAN
	req  []uint32  // required filter pairs
	tmp  []cand
	next []uint32 // unvisited neighbours of the node being expanded

	// SQ8 traversal (quant.go): integer query weights and the affine map
	// back to a dot product; useQ is set per search.
	useQ   bool
	qk     []int16
	qbase  float32
	qscale float32
}
