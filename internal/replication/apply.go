package replication

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// maxApplyRound bounds the queued writes one round applies.
const maxApplyRound = 500

// Replicated writes are made in BatchWriteItem requests of up to
// batchWriteSize items (DynamoDB's limit), up to writeParallel of them at
// once, so that the replica's commits share its fsyncs as its clients'
// concurrent writes do.
const (
	batchWriteSize = 25
	writeParallel  = 4
)

// queued is one outbox entry and its key.
type queued struct {
	k []byte
	e entry
}

// applyQueue applies the writes queued for w.region, unless replication
// to the region is paused; one from a region with a delay to this one
// waits until it is that old, and so does everything queued after it. It
// returns how many it handled.
//
// The writes ready are applied in batches of distinct items (applyBatch):
// an item's first write queued in this round, then its second, and so on,
// so each item's writes are made in the order they were queued while
// different items' share store commits. A batch the replica's capacity
// refuses in part ends the round: what was not applied stays queued, in
// order.
func (g *Group) applyQueue(ctx context.Context, w *worker) (int, error) {
	if g.faults.isPaused(w.region) {
		return 0, nil
	}
	from := w.cursor
	if from == nil || time.Since(w.scanned) >= fullScanEvery {
		from, w.scanned = nil, time.Now()
	}
	ready, err := g.queuedFrom(w.table, w.region, from, maxApplyRound)
	if err != nil {
		return 0, err
	}
	if len(ready) == 0 && from != nil {
		w.cursor = nil // a full scan next round
	}
	for i, q := range ready {
		// A delay is timed on the clock of the region the write was made in,
		// as its Enqueued time is.
		from := q.e.Stamp.Origin
		if d := g.faults.delayOf(from, w.region); d > 0 && g.cfg.Now(from).Before(time.Unix(0, q.e.Enqueued).Add(d)) {
			ready = ready[:i] // in order: what follows is younger
			break
		}
	}
	n, err := g.applyReady(ctx, w, ready)
	w.advance(ready, n, err)
	if throttled(err) {
		return n, nil // the rest waits for the replica's capacity
	}
	return n, err
}

// applyReady applies queued writes, in batches of distinct items, until
// one is refused for the replica's capacity: the count is then short of
// len(ready), and the error is the refusal if the write failed with one.
func (g *Group) applyReady(ctx context.Context, w *worker, ready []queued) (int, error) {
	n := 0
	for _, batch := range byOccurrence(ready) {
		done, err := g.applyBatch(ctx, w, batch)
		n += done
		if err != nil || done < len(batch) {
			return n, err
		}
	}
	return n, nil
}

// byOccurrence splits queued writes into batches of distinct items: the
// first holds each item's first write, the next its second, and so on.
func byOccurrence(qs []queued) [][]queued {
	var out [][]queued
	seen := map[string]int{}
	for _, q := range qs {
		ks := itemKey(q.e.Key)
		i := seen[ks]
		seen[ks] = i + 1
		if i == len(out) {
			out = append(out, nil)
		}
		out[i] = append(out[i], q)
	}
	return out
}

// fullScanEvery is how often a worker reads its queue from the start
// rather than from its cursor.
const fullScanEvery = 100 * time.Millisecond

// advance moves w's cursor past the entries ready once all of them were
// handled (n); when some were not (the replica's capacity refused them:
// not necessarily the last ones, since batches take items in turn), the
// next round starts at the first of them again. With an error other than
// a refusal for capacity it starts from the queue's start.
//
// The cursor spares each round the entries applied before, which the
// store keeps as deletions until it compacts them (skipping them was most
// of a round's work under load). An entry can commit after an entry
// numbered after it (two regions' readers, or a backfill, queueing for one
// region), so the queue is read from its start too, every fullScanEvery
// and whenever nothing is found after the cursor: such an entry is
// applied a little later, and last-writer-wins on its stamp decides as
// ever.
func (w *worker) advance(ready []queued, n int, err error) {
	switch {
	case err != nil && !throttled(err):
		w.cursor = nil
	case n < len(ready):
		w.cursor = ready[0].k
	case n > 0:
		w.cursor = append(slices.Clone(ready[n-1].k), 0)
	}
}

// queuedFor reads up to limit entries queued for region's replica of
// table.
func (g *Group) queuedFor(table, region string, limit int) ([]queued, error) {
	return g.queuedFrom(table, region, nil, limit)
}

// queuedFrom reads up to limit entries queued for region's replica of
// table, from the key from on (nil: from the first).
func (g *Group) queuedFrom(table, region string, from []byte, limit int) ([]queued, error) {
	snap, err := g.cfg.Store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	p := append(key('q', table, region), 0)
	lower := p
	if from != nil {
		lower = from
	}
	it, err := snap.NewIterator(storage.IterOptions{Lower: lower, Upper: prefixEnd(p)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []queued
	for len(out) < limit && it.Next() {
		q := queued{k: slices.Clone(it.Key())}
		if err := jsonUnmarshal(it.Value(), &q.e); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, it.Err()
}

// applyBatch applies queued writes of distinct items with last-writer-wins
// and returns how many it handled: a write is dropped when the item's last
// write in the region is later, and skipped when the item already is the
// image. The others' stamps and markers are stored first (one commit),
// then the items written, then their entries removed (one commit): a stop
// between the steps repeats a write, which is then skipped as already
// made. A write the replica's capacity refuses stays queued; when one is
// refused the count is short of len(qs), and the error is the refusal if
// a whole request failed with one.
func (g *Group) applyBatch(ctx context.Context, w *worker, qs []queued) (int, error) {
	eng := g.cfg.Regions[w.region]
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return 0, err
	}
	defer txn.Rollback()
	var writes []queued
	for _, q := range qs {
		apply, err := g.admit(ctx, txn, w, q)
		if err != nil {
			return 0, err
		}
		if apply {
			writes = append(writes, q)
		} else if err := txn.Delete(q.k); err != nil {
			return 0, err
		}
	}
	if err := w.fence(txn); err != nil {
		return 0, err
	}
	if err := txn.Commit(storage.CommitOptions{Sync: true}); err != nil {
		return 0, err
	}
	if len(writes) == 0 {
		return len(qs), nil
	}
	if w.lease != nil && !w.lease.Held() {
		// Taken over since the commit: the new holder applies these.
		return 0, lease.ErrLost
	}
	made, refused := g.writeAll(ctx, eng, w.table, writes)
	if refused != nil && !throttled(refused) {
		return 0, refused
	}
	done, err := g.cfg.Store.Begin()
	if err != nil {
		return 0, err
	}
	defer done.Rollback()
	for _, q := range made {
		if err := done.Delete(q.k); err != nil {
			return 0, err
		}
	}
	if err := w.fence(done); err != nil {
		return 0, err
	}
	if err := done.Commit(storage.CommitOptions{Sync: true}); err != nil {
		return 0, err
	}
	return len(qs) - len(writes) + len(made), refused
}

// admit decides in txn whether q is written in the replica (last writer
// wins, and the item not already its image), and if so records its stamp
// and its marker there.
func (g *Group) admit(ctx context.Context, txn storage.Txn, w *worker, q queued) (bool, error) {
	ks := itemKey(q.e.Key)
	var cur stamp
	hasCur, err := getJSON(txn, key('m', w.table, w.region, ks), &cur)
	if err != nil || hasCur && cur.after(q.e.Stamp) {
		return false, err
	}
	// Replication's reads are not charged (DynamoDB charges replicated
	// writes only); the writes are, on the replica's capacity.
	got, err := g.cfg.Regions[w.region].GetItem(engine.Uncharged(ctx), &wire.GetItemInput{TableName: &w.table, Key: q.e.Key, ConsistentRead: ptr(true)})
	if isType(err, "ResourceNotFoundException") {
		return false, nil // the replica's table is gone
	}
	if err != nil {
		return false, err
	}
	if err := setJSON(txn, key('m', w.table, w.region, ks), q.e.Stamp); err != nil {
		return false, err
	}
	if sameImage(got.Item, q.e.Image) {
		return false, nil
	}
	var marks []marker
	if _, err := getJSON(txn, key('e', w.table, w.region, ks), &marks); err != nil {
		return false, err
	}
	m := marker{Digest: digest(q.e.Image), Stamp: q.e.Stamp}
	if !slices.Contains(marks, m) {
		marks = append(marks, m)
	}
	return true, setMarkers(txn, w, ks, marks)
}

// writeAll makes writes (of distinct items) in table in eng's region, in
// BatchWriteItem requests run side by side, and returns those made: all
// but the ones the replica's capacity refused (or whose table is gone,
// which count as made). The error is a request's failure: a throttling
// error leaves the writes made by the other requests made.
func (g *Group) writeAll(ctx context.Context, eng *engine.Engine, table string, writes []queued) ([]queued, error) {
	chunks := slices.Collect(slices.Chunk(writes, batchWriteSize))
	made := make([][]queued, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, writeParallel)
	for i, c := range chunks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			made[i], errs[i] = writeChunk(ctx, eng, table, c)
		}()
	}
	wg.Wait()
	var out []queued
	var first error
	for i := range chunks {
		if errs[i] != nil && (first == nil || throttled(first)) {
			first = errs[i]
		}
		out = append(out, made[i]...)
	}
	return out, first
}

// writeChunk makes up to batchWriteSize writes of distinct items in one
// BatchWriteItem and returns those made.
func writeChunk(ctx context.Context, eng *engine.Engine, table string, writes []queued) ([]queued, error) {
	reqs := make([]wire.WriteRequest, len(writes))
	for i, q := range writes {
		if q.e.Image == nil {
			reqs[i].DeleteRequest = &wire.DeleteRequest{Key: q.e.Key}
		} else {
			reqs[i].PutRequest = &wire.PutRequest{Item: q.e.Image}
		}
	}
	out, err := eng.BatchWriteItem(ctx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{table: reqs}})
	switch {
	case isType(err, "ResourceNotFoundException"):
		return writes, nil // the replica's table is gone
	case err != nil:
		// Throttled: the replica's write capacity is used up, and the
		// writes wait for it, as DynamoDB's replication does (its latency
		// grows); they stay queued and nothing is lost.
		return nil, err
	}
	left := out.UnprocessedItems[table]
	if len(left) == 0 {
		return writes, nil
	}
	refused := map[string]bool{}
	for _, r := range left {
		if r.PutRequest != nil {
			refused[itemKey(keyOf(r.PutRequest.Item, writes[0].e.Key))] = true
		} else if r.DeleteRequest != nil {
			refused[itemKey(r.DeleteRequest.Key)] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(writes), func(q queued) bool { return refused[itemKey(q.e.Key)] }), nil
}

// keyOf is item's key: its attributes named in like (a key of the table).
func keyOf(item, like attr.Item) attr.Item {
	k := attr.Item{}
	for name := range like {
		k[name] = item[name]
	}
	return k
}

// throttled reports whether err refused a write for the capacity of the
// replica's table (or one of its GSIs).
func throttled(err error) bool {
	return isType(err, "ProvisionedThroughputExceededException") || isType(err, "ThrottlingException")
}

// sameImage reports whether the stored item is the image (nil: absent).
func sameImage(item, img attr.Item) bool {
	if len(item) == 0 || len(img) == 0 {
		return len(item) == 0 && len(img) == 0
	}
	return attr.ItemsEqual(item, img)
}

func ptr[T any](v T) *T { return &v }
