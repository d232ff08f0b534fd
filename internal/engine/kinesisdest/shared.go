package kinesisdest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// Destinations on a store several nodes share (Config.Cluster; doc.go).
//
// The outbox numbers of each destination come from a key of the store,
// "mkseq/" + destID(8), that every write capturing a change reads with Get
// and advances in the item's own transaction: the store serialises the
// destination's writers on every node, so outbox order is commit order
// (each item's changes in order) and no two nodes draw one number.
//
// A change to a destination (its state, its precision) is written in a
// transaction that also rewrites its table's catalog record as the next
// generation (Config.Touch), and that checks the destination is still as
// this node read it: every node's item writes read that generation in
// their transaction, so a write that would capture with a stale set of
// destinations conflicts and retries with the table reloaded. Stage
// caches a table's live destinations per version of the table's
// definition (a new version is a new pointer) and reads them again, in
// the write's own transaction, for a new one. The forwarder (delivery,
// ENABLING's check, the timed states) runs on the holder of the lease
// Config.Hold only, reading the destinations from the store each round.

const seqPrefix = "mkseq/"

func seqKey(destID uint64) []byte { return binary.BigEndian.AppendUint64([]byte(seqPrefix), destID) }

// errChanged reports a destination another node changed since this one
// read it: a conflict, so the operation runs again on what is stored.
var errChanged = fmt.Errorf("%w: the destination was changed by another node", storage.ErrConflict)

// sharedView is the live destinations of a table as Stage read them for
// one version of its definition.
type sharedView struct {
	def *change.Table
	ds  []*dest
}

// liveDests is Stage's set of live destinations of c's table in cluster
// mode: the cached set when it was read for this version of the table,
// else read in txn (whose snapshot holds the generation the write checked).
func (f *Feed) liveDests(txn storage.Txn, c *change.Change) ([]*dest, error) {
	def := c.Table.Def()
	f.sharedMu.Lock()
	v, ok := f.shared[def.ID]
	f.sharedMu.Unlock()
	if ok && v.def == def {
		return v.ds, nil
	}
	all, err := readDests(txn)
	if err != nil {
		return nil, err
	}
	var ds []*dest
	for _, d := range all {
		if d.TableID == def.ID && d.live() && !d.Removed {
			ds = append(ds, d)
		}
	}
	f.sharedMu.Lock()
	f.shared[def.ID] = sharedView{def: def, ds: ds}
	f.sharedMu.Unlock()
	return ds, nil
}

// drawShared is the next outbox number of destination id in txn.
func drawShared(txn storage.Txn, id uint64) (uint64, error) {
	var n uint64
	v, err := txn.Get(seqKey(id))
	switch {
	case err == nil && len(v) == 8:
		n = binary.BigEndian.Uint64(v)
	case err == nil:
		return 0, fmt.Errorf("kinesisdest: corrupt outbox number of destination %d", id)
	case errors.Is(err, storage.ErrNotFound):
		if n, err = lastOutboxSeq(txn, id); err != nil {
			return 0, err
		}
	default:
		return 0, err
	}
	n++
	return n, txn.Set(seqKey(id), binary.BigEndian.AppendUint64(nil, n))
}

// lastOutboxSeq is the highest number in destination id's outbox (0: empty).
func lastOutboxSeq(r storage.Reader, id uint64) (uint64, error) {
	it, err := r.NewIterator(storage.IterOptions{Lower: outboxKey(id, 0), Upper: outboxKey(id+1, 0), Reverse: true})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if it.Next() {
		_, seq, err := outboxID(it.Key())
		return seq, err
	}
	return 0, it.Err()
}

// readDests reads every destination.
func readDests(r storage.Reader) (map[uint64]*dest, error) {
	it, err := r.NewIterator(storage.IterOptions{Lower: []byte(destPrefix), Upper: prefixEnd(destPrefix)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	out := map[uint64]*dest{}
	for it.Next() {
		d := new(dest)
		if err := json.Unmarshal(it.Value(), d); err != nil {
			return nil, fmt.Errorf("kinesisdest: destination %x: %w", it.Key(), err)
		}
		out[d.ID] = d
	}
	return out, it.Err()
}

// reloadLocked replaces the destinations in memory with the store's
// (cluster mode; the caller holds mu).
func (f *Feed) reloadLocked() error {
	if !f.cfg.Cluster {
		return nil
	}
	snap, err := f.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	ds, err := readDests(snap)
	if err != nil {
		return err
	}
	f.dests = ds
	for id := range ds {
		f.nextDest = max(f.nextDest, id+1)
	}
	f.reindex()
	return nil
}

// saveShared writes d over old (nil: d is new) in cluster mode: refused
// with errChanged when the stored destination is not old any more, and
// with the table's record rewritten as its next generation.
func (f *Feed) saveShared(old, d *dest) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	txn, err := f.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	cur, err := txn.Get(destKey(d.ID))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		if old != nil {
			return errChanged
		}
	case err != nil:
		return err
	default:
		want, err := json.Marshal(old)
		if err != nil {
			return err
		}
		if old == nil || !bytes.Equal(cur, want) {
			return errChanged
		}
	}
	if err := txn.Set(destKey(d.ID), b); err != nil {
		return err
	}
	if f.cfg.Touch != nil {
		if err := f.cfg.Touch(txn, d.TableID, d.Table); err != nil {
			return err
		}
	}
	return txn.Commit(storage.CommitOptions{Sync: f.cfg.Sync})
}

// retryShared runs op again while it meets a conflict (cluster mode: the
// destinations are read from the store afresh each time), at most 20
// times.
func retryShared[T any](f *Feed, op func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		out, err := op()
		if !f.cfg.Cluster || !errors.Is(err, storage.ErrConflict) || attempt == 20 {
			return out, err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
}

// dropSeqs removes, at Open of a single server, the outbox numbers nodes
// in cluster mode kept: the server numbers in memory from the largest in
// the outbox, and a later start in cluster mode derives them again.
func (f *Feed) dropSeqs() error {
	snap, err := f.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte(seqPrefix), Upper: prefixEnd(seqPrefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	var keys [][]byte
	for it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
	}
	if err := it.Err(); err != nil {
		return err
	}
	return f.deleteKeys(keys)
}
