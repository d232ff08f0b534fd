package vectors

import (
	"time"

	"bytes"
	"encoding/binary"
	"errors"

	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// Table is a version of a table as the write path resolved it, with its
// vector indexes. The core's table implements it.
type Table interface {
	change.TableDef
	// VectorIndexes are the table's vector indexes (nil when none).
	VectorIndexes() []*Index
	// UpdatingUntil is when DynamoDB's resource allocation of an UPDATING
	// table ends (its ReadyAt, --create-delay after the UpdateTable); zero
	// when the table is not UPDATING.
	UpdatingUntil() time.Time
}

// tableOf is the table behind a change.
func tableOf(c change.Change) Table { return c.Table.(Table) }

// Stage is the Subsystem's Stage (change.Subsystem): inside the item's
// transaction it validates the written vector attributes (unless the
// change is a restore's verbatim copy), maintains the item ↔ ID mapping
// and marks the ID dirty; the in-memory index is updated by Committed.
func (r *Registry) Stage(txn storage.Txn, c change.Change) error {
	t := tableOf(c)
	vxs := t.VectorIndexes()
	if len(vxs) == 0 {
		return nil
	}
	if c.New != nil && !c.Verbatim {
		written := c.Old
		if c.Whole {
			written = nil // a Put writes every attribute it holds
		}
		if err := checkWrite(vxs, written, c.New); err != nil {
			return err
		}
	}
	tableID := t.Def().ID
	for _, vx := range vxs {
		rt := r.ensure(t.Def().Name, tableID, vx) // cluster mode: an index another node created
		if rt == nil {
			continue
		}
		_, _, inOld := vx.entry(c.Old)
		_, _, inNew := vx.entry(c.New)
		if !inOld && !inNew {
			continue
		}
		if err := r.stageItem(txn, rt, c.Key, inNew); err != nil {
			return err
		}
	}
	return nil
}

// stageItem writes the mapping of one item in txn and what tells the
// in-memory graphs of its change (one server: a dirty mark; several nodes:
// a log entry, follow.go), and records the change for Committed.
func (r *Registry) stageItem(txn storage.Txn, rt *liveIndex, itemKey []byte, indexed bool) error {
	if rt.cl != nil {
		return r.stageCluster(txn, rt, itemKey, indexed)
	}
	id, del, err := r.stageMapping(txn, rt, itemKey, indexed)
	if err != nil || id == 0 {
		return err
	}
	// The mark carries a fresh sequence so that a snapshot cut before this
	// write does not clear it (snapshot.go). Callers hold the item's
	// stripe lock, which is what orders the sequence against a cut.
	seq := rt.marks.Add(1)
	if err := txn.Set(idKey(rt.prefix, keyDirty, id), binary.BigEndian.AppendUint64(nil, seq)); err != nil {
		return err
	}
	rt.changes.Add(1)
	rt.setPending(itemKey, op{id: id, del: del})
	return nil
}

// stageMapping keeps the item ↔ ID mapping of one item in txn: the ID the
// change concerns (0: none, an item neither indexed nor mapped) and
// whether the item left the index.
func (r *Registry) stageMapping(txn storage.Txn, rt *liveIndex, itemKey []byte, indexed bool) (uint64, bool, error) {
	mapKey := append(sub(rt.prefix, KeyMap), itemKey...)
	var id uint64
	b, err := txn.Get(mapKey)
	switch {
	case err == nil && len(b) == 8:
		id = binary.BigEndian.Uint64(b)
	case err == nil || errors.Is(err, storage.ErrNotFound):
		if !indexed {
			return 0, false, nil
		}
		if rt.cl != nil {
			if id, err = r.allocShared(rt); err != nil {
				return 0, false, err
			}
		} else {
			id = rt.alloc()
		}
		if err := txn.Set(mapKey, binary.BigEndian.AppendUint64(nil, id)); err != nil {
			return 0, false, err
		}
		if err := txn.Set(idKey(rt.prefix, KeyID, id), bytes.Clone(itemKey)); err != nil {
			return 0, false, err
		}
	default:
		return 0, false, err
	}
	if !indexed {
		if err := txn.Delete(mapKey); err != nil {
			return 0, false, err
		}
		if err := txn.Delete(idKey(rt.prefix, KeyID, id)); err != nil {
			return 0, false, err
		}
	}
	return id, !indexed, nil
}

// Committed is the Subsystem's Committed: it updates the in-memory
// indexes after the item's transaction committed (the caller still holds
// the item's lock).
func (r *Registry) Committed(c change.Change) {
	t := tableOf(c)
	vxs := t.VectorIndexes()
	if len(vxs) == 0 || c.New == nil && c.Old == nil {
		return
	}
	tableID := t.Def().ID
	for _, vx := range vxs {
		rt := r.runtime(tableID, vx.ID)
		if rt == nil {
			continue
		}
		o, ok := rt.popPending(c.Key)
		if !ok {
			continue
		}
		v, a, in := vx.entry(c.New)
		r.apply(rt, o.id, v, a, !in || o.del)
	}
}

// Tables lists ts as Tables.
func Tables[T Table](ts []T) []Table {
	out := make([]Table, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}
