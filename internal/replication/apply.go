package replication

import (
	"context"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// maxApplyRound bounds the queued writes one round applies.
const maxApplyRound = 500

// queued is one outbox entry and its key.
type queued struct {
	k []byte
	e entry
}

// applyQueue applies the writes queued for w.region, oldest first, unless
// replication to the region is paused; one from a region with a delay to
// this one waits until it is that old. It returns how many it handled.
func (g *Group) applyQueue(ctx context.Context, w *worker) (int, error) {
	if g.faults.isPaused(w.region) {
		return 0, nil
	}
	batch, err := g.queuedFor(w.table, w.region, maxApplyRound)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, q := range batch {
		// A delay is timed on the clock of the region the write was made in,
		// as its Enqueued time is.
		from := q.e.Stamp.Origin
		if d := g.faults.delayOf(from, w.region); d > 0 && g.cfg.Now(from).Before(time.Unix(0, q.e.Enqueued).Add(d)) {
			break // in order: what follows is younger
		}
		if err := g.applyOne(ctx, w, q); err != nil {
			if throttled(err) {
				// The replica's write capacity is used up: the write waits
				// for it, as DynamoDB's replication does (its latency
				// grows); it stays queued and nothing is lost.
				return n, nil
			}
			return n, err
		}
		n++
	}
	return n, nil
}

// queuedFor reads up to limit entries queued for region's replica of
// table.
func (g *Group) queuedFor(table, region string, limit int) ([]queued, error) {
	snap, err := g.cfg.Store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	p := append(key('q', table, region), 0)
	it, err := snap.NewIterator(storage.IterOptions{Lower: p, Upper: prefixEnd(p)})
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

// applyOne applies one queued write with last-writer-wins: it is dropped
// when the item's last write in the region is later, and skipped when the
// item already is the image. Otherwise its stamp and a marker are stored
// first, then the item written, then the entry removed: a stop between the
// steps repeats the write, which is then skipped as already made.
func (g *Group) applyOne(ctx context.Context, w *worker, q queued) error {
	eng := g.cfg.Regions[w.region]
	ks := itemKey(q.e.Key)
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	var cur stamp
	hasCur, err := getJSON(txn, key('m', w.table, w.region, ks), &cur)
	if err != nil {
		return err
	}
	if hasCur && cur.after(q.e.Stamp) {
		return dropEntry(txn, q)
	}
	// Replication's reads are not charged (DynamoDB charges replicated
	// writes only); the write below is, on the replica's capacity.
	got, err := eng.GetItem(engine.Uncharged(ctx), &wire.GetItemInput{TableName: &w.table, Key: q.e.Key, ConsistentRead: ptr(true)})
	if isType(err, "ResourceNotFoundException") {
		return dropEntry(txn, q) // the replica's table is gone
	}
	if err != nil {
		return err
	}
	if err := setJSON(txn, key('m', w.table, w.region, ks), q.e.Stamp); err != nil {
		return err
	}
	if sameImage(got.Item, q.e.Image) {
		return dropEntry(txn, q)
	}
	var marks []marker
	if _, err := getJSON(txn, key('e', w.table, w.region, ks), &marks); err != nil {
		return err
	}
	m := marker{Digest: digest(q.e.Image), Stamp: q.e.Stamp}
	if !slices.Contains(marks, m) {
		marks = append(marks, m)
	}
	if err := setMarkers(txn, w, ks, marks); err != nil {
		return err
	}
	if err := txn.Commit(storage.CommitOptions{Sync: true}); err != nil {
		return err
	}
	if q.e.Image == nil {
		_, err = eng.DeleteItem(ctx, &wire.DeleteItemInput{TableName: &w.table, Key: q.e.Key})
	} else {
		_, err = eng.PutItem(ctx, &wire.PutItemInput{TableName: &w.table, Item: q.e.Image})
	}
	if err != nil && !isType(err, "ResourceNotFoundException") {
		return err
	}
	done, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer done.Rollback()
	return dropEntry(done, q)
}

// dropEntry removes q from the outbox and commits txn.
func dropEntry(txn storage.Txn, q queued) error {
	if err := txn.Delete(q.k); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
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
