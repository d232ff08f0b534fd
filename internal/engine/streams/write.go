package streams

import (
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// errStreamTxn reports a transaction not begun on the engine's store (its
// sequence numbers could not be released).
var errStreamTxn = errors.New("engine: stream record in a foreign transaction")

// Stage appends the stream record of one item change to txn, the
// item's own transaction, so that the record commits exactly when the
// item does. No record is written when the table has no enabled stream or
// when the write changed nothing (old and new equal). The record carries
// what the stream's view type asks for; a deletion staged by the TTL
// expirer itself (c.TTL) is marked as the service's, so
// any other delete of the same item, racing or not, is the user's.
func (reg *Registry) Stage(txn storage.Txn, c change.Change) error {
	old, new := c.Old, c.New
	if old == nil && new == nil {
		return nil
	}
	t := c.Table.Def()
	s, err := reg.streamFor(t)
	if s == nil || err != nil {
		return err
	}
	if old != nil && new != nil && attr.ItemsEqual(old, new) {
		return nil
	}
	r := streamRecord{Created: reg.cfg.Clock.Now()}
	switch {
	case old == nil:
		r.Event = eventInsert
		r.Keys = t.KeyItem(new)
	case new == nil:
		r.Event = eventRemove
		r.Keys = t.KeyItem(old)
		r.Service = c.TTL
	default:
		r.Event = eventModify
		r.Keys = t.KeyItem(new)
	}
	switch s.view {
	case "NEW_IMAGE":
		r.New = new
	case "OLD_IMAGE":
		r.Old = old
	case "NEW_AND_OLD_IMAGES":
		r.New, r.Old = new, old
	}
	value := encodeStreamRecord(&r)
	if reg.cfg.Cluster {
		if st, ok := txn.(*streamTxn); ok {
			if err := st.takeTurn(s); err != nil {
				return err
			}
		}
		return reg.stageShared(txn, s, value)
	}
	st, ok := txn.(*streamTxn)
	if !ok {
		return errStreamTxn
	}

	// Allocate the number and register it in flight atomically, so that a
	// reader's watermark never passes it before the commit resolves it.
	s.mu.Lock()
	sh := s.activeShard()
	if sh == nil { // disabled concurrently: the write no longer records
		s.mu.Unlock()
		return nil
	}
	n := reg.seq.Add(1)
	s.inflight[n] = struct{}{}
	s.last = n
	shardNo := sh.No
	s.mu.Unlock()
	st.pending = append(st.pending, pendingSeq{s: s, n: n})
	return txn.Set(streamRecordKey(s.id.table, s.id.no, shardNo, n), value)
}
