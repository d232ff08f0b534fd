package vector

import "sync"

// BatchItem is one vector of AddBatch.
type BatchItem struct {
	ID    uint64
	Vec   []float32
	Attrs *Attrs
}

// batchSerialPrefix: AddBatch inserts one at a time until the graph has this
// many nodes, so that concurrent plans never start from a nearly empty graph
// (a node planned against an empty graph would get no links).
const batchSerialPrefix = 1024

// AddBatch indexes items like consecutive Add calls, computing up to workers
// neighbour plans at once. It works in rounds of 16 items per worker: the
// round's plans are computed concurrently under the read lock, then
// published in item order under the write lock; an adjacency list that an
// earlier plan of the round changed is recomputed from its current state, so
// no link is lost. Plans of one round do not see each other's nodes. The
// result depends only on the items and workers (not on scheduling), and
// workers ≤ 1 gives exactly the graph of consecutive Adds of new, distinct
// IDs (levels are drawn in item order). An ID repeated in the batch keeps
// its last vector. Searches run during the planning phases; other writers
// wait for the whole batch.
func (x *Index) AddBatch(items []BatchItem, workers int) error {
	for _, it := range items {
		if err := checkVector(it.Vec, x.dim); err != nil {
			return err
		}
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	last := make(map[uint64]int, len(items))
	for i, it := range items {
		last[it.ID] = i
	}
	lvls := make([]int, len(items))
	for i, it := range items {
		if last[it.ID] != i {
			continue
		}
		x.mu.RLock()
		_, exists := x.byID[it.ID]
		x.mu.RUnlock()
		if exists {
			x.deleteLocked(it.ID)
		}
		lvls[i] = x.randomLevel()
	}
	next := 0
	for ; next < len(items) && (workers <= 1 || x.nodes() < batchSerialPrefix); next++ {
		if last[items[next].ID] == next {
			x.insertLevel(items[next].ID, items[next].Vec, items[next].Attrs, lvls[next])
		}
	}
	if next == len(items) {
		return nil
	}
	// Rounds: plan a few items per worker concurrently under one read lock
	// (searches continue), then publish them all under the write lock. A
	// plan does not see the other nodes of its round; at 16 per worker that
	// is noise next to the graph, and it keeps the workers busy between the
	// short exclusive sections.
	round := workers * 16
	var todo []int
	plans := make([]*nodePlan, round)
	for next < len(items) {
		todo = todo[:0]
		for ; next < len(items) && len(todo) < round; next++ {
			if last[items[next].ID] == next {
				todo = append(todo, next)
			}
		}
		x.mu.RLock()
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for j := w; j < len(todo); j += workers {
					it := items[todo[j]]
					plans[j] = x.makePlan(it.ID, it.Vec, it.Attrs, lvls[todo[j]])
				}
			}(w)
		}
		wg.Wait()
		x.mu.RUnlock()
		x.mu.Lock()
		for j := range todo {
			x.publish(plans[j])
			plans[j] = nil
		}
		x.mu.Unlock()
	}
	return nil
}

// nodes is the number of stored nodes, live or tombstoned.
func (x *Index) nodes() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}
