package vectors

import (
	"bytes"
	"errors"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// backfillChunk is how many items one backfill step indexes.
const backfillChunk = 256

// backfill is the job that fills a vector index added by UpdateTable from
// the items already in the table, then marks it ACTIVE. It walks the table
// in steps through the core's snapshot reader; each step locks the items
// it read and indexes them as they are under the lock, so a concurrent
// write of the same item cannot be overtaken by a stale copy.
func (r *Registry) backfill(table string, tableID uint64, indexID uint32) {
	h := r.opt.Host
	if !r.awaitAllocation(table, tableID) || !h.UpdateDesc(table, tableID, indexID, func(d *wire.VectorIndexDescription) {
		d.Backfilling = wire.Ptr(true)
	}) {
		return
	}
	// With --create-delay the backfill also lasts the delay at least, so
	// its phase (table ACTIVE, index CREATING with Backfilling true, a
	// Delete taken as a cancel) can be seen as on DynamoDB, where it lasts
	// minutes even for a few items.
	minEnd := r.opt.Now().Add(r.opt.CreateDelay)
	var from []byte // the suffix to resume from; nil: the table's first item
	for {
		select {
		case <-r.opt.Closing:
			return
		default:
		}
		t, ok := h.Table(table, tableID)
		if !ok {
			return
		}
		vx := byID(t.VectorIndexes(), indexID)
		rt := r.runtime(tableID, indexID)
		if vx == nil || rt == nil {
			return
		}
		next, err := r.backfillStep(tableID, vx, rt, from)
		if errors.Is(err, storage.ErrConflict) {
			// A write of one of the step's items (through another node in
			// cluster mode) committed meanwhile: the step again.
			if !r.opt.Sleep(time.Millisecond) {
				return
			}
			continue
		}
		if err != nil {
			return
		}
		if next == nil {
			break
		}
		from = next
	}
	if !h.AwaitClock(minEnd, func() bool {
		t, ok := h.Table(table, tableID)
		return ok && byID(t.VectorIndexes(), indexID) != nil
	}) {
		return
	}
	h.UpdateDesc(table, tableID, indexID, func(d *wire.VectorIndexDescription) {
		d.Backfilling = nil
		d.IndexStatus = statusActive
	})
}

// backfillStep indexes up to backfillChunk items from the one whose
// suffix is from; next is the suffix to resume from, nil at the end.
func (r *Registry) backfillStep(tableID uint64, vx *Index, rt *liveIndex, from []byte) ([]byte, error) {
	snap, err := r.opt.Host.Snapshot()
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	var last []byte
	_, err = snap.ItemsFrom(tableID, from, func(suffix, _ []byte) (bool, error) {
		last = bytes.Clone(suffix)
		keys = append(keys, snap.ItemKey(tableID, suffix))
		return len(keys) < backfillChunk, nil
	})
	snap.Close()
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	defer r.opt.Host.LockItems(keys)()
	type entry struct {
		id  uint64
		vec []float32
		a   *vector.Attrs
	}
	var apply []entry
	err = r.opt.Host.Commit(false, func(txn storage.Txn) error {
		apply = apply[:0]
		for _, k := range keys {
			item, err := r.opt.Host.ReadItem(txn, k, nil)
			if err != nil {
				return err
			}
			v, a, ok := vx.entry(item)
			if !ok {
				continue
			}
			if err := r.stageItem(txn, rt, k, true); err != nil {
				return err
			}
			o, _ := rt.popPending(k)
			apply = append(apply, entry{o.id, v, a})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, x := range apply {
		r.apply(rt, x.id, x.vec, x.a, false)
	}
	return append(last, 0), nil
}

// awaitAllocation waits while the table is UPDATING within --create-delay:
// DynamoDB's resource allocation, during which a new vector index is
// CREATING with Backfilling false, comes before its backfill. It reports
// false when the engine closes or the table goes away.
func (r *Registry) awaitAllocation(table string, tableID uint64) bool {
	h := r.opt.Host
	t, ok := h.Table(table, tableID)
	if !ok {
		return false
	}
	until := t.UpdatingUntil()
	if until.IsZero() {
		return true
	}
	return h.AwaitClock(until, func() bool {
		_, ok := h.Table(table, tableID)
		return ok
	})
}
