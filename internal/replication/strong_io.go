package replication

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// The requests of an MRSC table. All regions are in this process, so the
// synchronous replication DynamoDB does between regions is done here with
// the regions' engines and the replication store directly:
//
//   - A write in region R holds the items it writes (itemLocks) from before
//     it runs until it is acknowledged; a write of one of them through
//     another region meanwhile is refused with
//     ReplicatedWriteConflictException. Before it runs, R applies every
//     write queued for it (catchUp), so its conditions see the latest
//     acknowledged write. Once the engine has made it, R's stream is read
//     at once (the records queued for the other replicas) and the write is
//     acknowledged when it is in a majority of the three regions: applied
//     in another replica, or received by the witness. The third region gets
//     it asynchronously, by the replication workers.
//   - A strongly consistent read in R first applies every write queued for
//     R, so it returns the latest acknowledged write.
//   - A region cut off by the fault controls (unavailable, or replication
//     to it paused) does not count towards a majority; a write or a
//     strongly consistent read with no majority of reachable regions is
//     refused as DynamoDB refuses what it cannot serve (ServiceUnavailable).
//     A replication delay to a region holds a write's acknowledgement from
//     it (and so the write's items) until the delay has passed.

// itemLocks are the items of MRSC tables that writes are making: by table
// and item key, the region writing it and how many of its writes are; and
// by table, how many items each region's writes hold. A write whose item
// is not known holds allKeys, every item of its table.
type itemLocks struct {
	mu     sync.Mutex
	items  map[[2]string]*itemLock
	tables map[string]map[string]int
}

type itemLock struct {
	region string
	n      int
}

// allKeys stands for every item of a table (no item key is "*": they are
// JSON objects).
const allKeys = "*"

// hold marks keys (of table) as written through region, or refuses them
// all if another region is writing one of them (or all of the table's).
func (l *itemLocks) hold(table, region string, keys []string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.items == nil {
		l.items, l.tables = map[[2]string]*itemLock{}, map[string]map[string]int{}
	}
	for _, k := range slices.Concat(keys, []string{allKeys}) {
		if h := l.items[[2]string{table, k}]; h != nil && h.region != region {
			return nil, ddberr.ReplicatedWriteConflict()
		}
	}
	if slices.Contains(keys, allKeys) {
		for r, n := range l.tables[table] {
			if r != region && n > 0 {
				return nil, ddberr.ReplicatedWriteConflict()
			}
		}
	}
	l.count(table, region, keys, 1)
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.count(table, region, keys, -1)
	}, nil
}

// count adds d to the holds of keys of table by region. l.mu is held.
func (l *itemLocks) count(table, region string, keys []string, d int) {
	for _, k := range keys {
		h := l.items[[2]string{table, k}]
		if h == nil {
			h = &itemLock{region: region}
			l.items[[2]string{table, k}] = h
		}
		if h.n += d; h.n == 0 {
			delete(l.items, [2]string{table, k})
		}
	}
	if l.tables[table] == nil {
		l.tables[table] = map[string]int{}
	}
	if l.tables[table][region] += d * len(keys); l.tables[table][region] == 0 {
		delete(l.tables[table], region)
	}
}

// strongView is region's view of an MRSC table: its key attributes and
// the other regions of the table (replicas not being deleted, and the
// witness).
type strongView struct {
	table    string
	keys     []string
	replicas []string
	witness  string
}

// strongView returns region's view of table, or nil when table is not an
// MRSC table with a replica in region.
func (g *Group) strongView(table, region string) *strongView {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[table]
	if t == nil || t.Strong == nil || t.replica(region) == nil || t.replica(region).Status == statusDeleting {
		return nil
	}
	v := &strongView{table: table, keys: t.Strong.Keys, witness: t.Strong.Witness}
	for _, r := range t.Replicas {
		if r.Region != region && r.Status != statusDeleting {
			v.replicas = append(v.replicas, r.Region)
		}
	}
	return v
}

// needed is how many of the other regions must have a write for it to be
// in a majority of the table's regions.
func (v *strongView) needed() int {
	n := len(v.replicas) + 1
	if v.witness != "" {
		n++
	}
	return n/2 + 1 - 1
}

// key is the stored form of item's key under v's key attributes; allKeys
// when item does not hold them all (a PartiQL write whose item is not
// known).
func (v *strongView) key(item attr.Item) string {
	k := attr.Item{}
	for _, name := range v.keys {
		a, ok := item[name]
		if !ok {
			return allKeys
		}
		k[name] = a
	}
	return itemKey(k)
}

// reachable reports whether region takes part in MRSC requests: neither
// unavailable nor cut off from replication.
func (g *Group) reachable(region string) bool {
	return !g.faults.unavailable(region) && !g.faults.isPaused(region)
}

// checkMajority refuses a request in region when region and the reachable
// other regions are no majority.
func (g *Group) checkMajority(region string, v *strongView) error {
	if !g.reachable(region) {
		return ddberr.ServiceUnavailable()
	}
	n := 0
	for _, r := range append(slices.Clone(v.replicas), v.witness) {
		if r != "" && g.reachable(r) {
			n++
		}
	}
	if n < v.needed() {
		return ddberr.ServiceUnavailable()
	}
	return nil
}

// strongWrite is one write request in region: writes names, per table,
// the items it writes; op makes it in region's engine. A table that is not
// an MRSC table is written by op alone.
func (g *Group) strongWrite(ctx context.Context, region string, writes map[string][]attr.Item, op func() error) error {
	var views []*strongView
	for table, items := range writes {
		v := g.strongView(table, region)
		if v == nil {
			continue
		}
		if err := g.checkMajority(region, v); err != nil {
			return err
		}
		keys := make([]string, 0, len(items))
		for _, it := range items {
			keys = append(keys, v.key(it))
		}
		release, err := g.locks.hold(table, region, keys)
		if err != nil {
			return err
		}
		defer release()
		views = append(views, v)
	}
	for _, v := range views {
		if err := g.catchUp(ctx, v.table, region); err != nil {
			return err
		}
	}
	if err := op(); err != nil {
		return err
	}
	for _, v := range views {
		if err := g.replicateNow(ctx, region, v); err != nil {
			return err
		}
	}
	return nil
}

// strongRead prepares a strongly consistent read of tables in region: for
// an MRSC table, a majority is reachable and region has applied every
// write queued for it.
func (g *Group) strongRead(ctx context.Context, region string, tables ...string) error {
	for _, table := range tables {
		v := g.strongView(table, region)
		if v == nil {
			continue
		}
		if err := g.checkMajority(region, v); err != nil {
			return err
		}
		if err := g.catchUp(ctx, table, region); err != nil {
			return err
		}
	}
	return nil
}

// isStrong reports whether table is an MRSC table.
func (g *Group) isStrong(table string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[table]
	return t != nil && t.Strong != nil
}

// workerOf is the worker of table's replica in region, or nil.
func (g *Group) workerOf(table, region string) *worker {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.workers[workerKey{table, region}]
}

// catchUp applies every write queued for region's replica of table, delay
// or not: what a majority acknowledged is there when it returns.
func (g *Group) catchUp(ctx context.Context, table, region string) error {
	w := g.workerOf(table, region)
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !g.hold(w) {
		return g.awaitQueue(ctx, table, region)
	}
	for {
		batch, err := g.queuedFor(table, region, maxApplyRound)
		if err != nil {
			return err
		}
		n, err := g.applyReady(ctx, w, batch)
		switch {
		case err != nil:
			return err
		case n == len(batch) && len(batch) < maxApplyRound:
			return nil
		case n < len(batch):
			// Some of the replica's capacity refused: again once it is back.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(g.cfg.Poll):
			}
		}
	}
}

// replicateNow queues the writes made in region's replica of v's table
// for the other replicas at once (reading its stream), then waits until
// enough other regions have them for a majority: a replica once it has
// applied them (as a replication delay to it allows), the witness once
// the delay to it has passed.
func (g *Group) replicateNow(ctx context.Context, region string, v *strongView) error {
	if w := g.workerOf(v.table, region); w != nil {
		w.mu.Lock()
		var err error
		if g.hold(w) { // else the node holding the worker's lease reads it
			err = g.readAll(ctx, w)
		}
		w.mu.Unlock()
		if err != nil {
			return err
		}
	}
	bound := g.nextSeq() // every entry of this write is numbered lower
	start := g.cfg.Now(region)
	for {
		acks, live := 0, 0
		for _, r := range v.replicas {
			if !g.reachable(r) {
				continue
			}
			live++
			has, err := g.applyNow(ctx, v.table, r, bound)
			if err != nil {
				return err
			}
			if has {
				acks++
			}
		}
		if v.witness != "" && g.reachable(v.witness) {
			live++
			if d := g.faults.delayOf(region, v.witness); !g.cfg.Now(region).Before(start.Add(d)) {
				acks++
			}
		}
		if acks >= v.needed() {
			return nil
		}
		if live < v.needed() {
			return ddberr.ServiceUnavailable()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(g.cfg.Poll):
		}
	}
}

// readAll reads w's stream to its end.
func (g *Group) readAll(ctx context.Context, w *worker) error {
	for {
		n, err := g.readStream(ctx, w, false)
		if err != nil || n < maxReadRound {
			return err
		}
	}
}

// applyNow applies what may be applied of the writes queued for region's
// replica of table and reports whether every one numbered up to bound is.
func (g *Group) applyNow(ctx context.Context, table, region string, bound uint64) (bool, error) {
	w := g.workerOf(table, region)
	if w == nil {
		return false, nil
	}
	w.mu.Lock()
	_, err := g.applyQueue(ctx, w)
	w.mu.Unlock()
	if err != nil {
		return false, err
	}
	return !g.queuedUpTo(table, region, bound), nil
}

// awaitQueue waits until nothing is queued for region's replica of table:
// the node that holds the replica's worker lease applied it all.
func (g *Group) awaitQueue(ctx context.Context, table, region string) error {
	for {
		q, err := g.queuedFor(table, region, 1)
		if err != nil || len(q) == 0 {
			return err
		}
		if !sleepCtx(ctx, g.cfg.Poll) {
			return ctx.Err()
		}
	}
}
