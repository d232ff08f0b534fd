package streams

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// Streams on a store several nodes share (Config.Cluster; doc.go).
//
// Each stream's position — its open shard, the last sequence number drawn
// in it, and whether the stream is disabled — is a key of the store,
// "mstreams/ctr/" + tableID(8) + streamNo(4), rather than a counter in
// one process's memory. A write that records into the stream reads it
// with Get inside the item's own transaction and writes it one higher
// (stageShared), so the store serialises the stream's writers, whichever
// node they run on: two transactions that drew the same number cannot
// both commit, a number is drawn by a transaction that commits or by none
// (no gaps, no reuse), and numbers commit in their order. Any snapshot
// therefore holds every record up to the position it shows and none
// beyond, which is the watermark readers need (no in-flight sets). Shard
// rollover, disabling and trimming change the stream's metadata and its
// position in one transaction that reads both with Get (update), so a
// record lands in the shard its number belongs to. Stream creation reads
// and writes "mstreams/tab/" + tableID(8), the table's newest stream, so
// nodes that see a table's new stream at once create it once.
//
// The cost: one Get and one Set more per recorded write, and the
// stream's writers commit one at a time (a writer that meets a concurrent
// commit of the position retries, as any conflict).

var (
	metaCounterPrefix = []byte("mstreams/ctr/")
	metaTablePrefix   = []byte("mstreams/tab/")
)

// errStreamMoved reports a write whose stream is not in the store as its
// table's definition names it (the definition is stale: another node
// changed it): a conflict, so the write retries with the reloaded one.
var errStreamMoved = fmt.Errorf("%w: the table's stream was changed by another node", storage.ErrConflict)

// maxSharedAttempts bounds the retries of a metadata change that meets a
// conflict.
const maxSharedAttempts = 50

// position is a stream's write position: the shard records go to, the
// last number drawn (the open shard's Start before its first record), and
// whether the stream is disabled. In cluster mode it is stored; with one
// node it is the registry's memory (draw is then the engine-wide counter).
type position struct {
	shard    uint32
	last     uint64
	disabled bool
	draw     func() uint64
}

// reserve draws the next number.
func (p *position) reserve() uint64 {
	if p.draw != nil {
		p.last = p.draw()
	} else {
		p.last++
	}
	return p.last
}

func counterKey(id streamKey) []byte {
	b := binary.BigEndian.AppendUint64(bytes.Clone(metaCounterPrefix), id.table)
	return binary.BigEndian.AppendUint32(b, id.no)
}

func tableKey(tableID uint64) []byte {
	return binary.BigEndian.AppendUint64(bytes.Clone(metaTablePrefix), tableID)
}

func encodePosition(p position) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 13), p.shard)
	b = binary.BigEndian.AppendUint64(b, p.last)
	if p.disabled {
		return append(b, 1)
	}
	return append(b, 0)
}

// readPosition reads a stream's stored position; found is false when it
// has none.
func readPosition(r storage.Reader, id streamKey) (p position, found bool, err error) {
	v, err := r.Get(counterKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	if len(v) != 13 {
		return p, false, fmt.Errorf("engine: corrupt stream position of table %d stream %d", id.table, id.no)
	}
	return position{shard: binary.BigEndian.Uint32(v), last: binary.BigEndian.Uint64(v[4:]), disabled: v[12] == 1}, true, nil
}

// readMeta reads one stream's metadata; found is false when it is gone.
func readMeta(r storage.Reader, id streamKey) (m streamMeta, found bool, err error) {
	v, err := r.Get(streamMetaKey(id.table, id.no))
	if errors.Is(err, storage.ErrNotFound) {
		return m, false, nil
	}
	if err != nil {
		return m, false, err
	}
	return m, true, json.Unmarshal(v, &m)
}

// readState reads a stream's metadata and its position (derived from
// its records when it has none stored); found is false when it is gone.
func readState(r storage.Reader, id streamKey) (m streamMeta, p position, found bool, err error) {
	if m, found, err = readMeta(r, id); err != nil || !found {
		return m, p, found, err
	}
	p, stored, err := readPosition(r, id)
	if err == nil && !stored {
		p, err = storedPosition(r, &m)
	}
	return m, p, err == nil, err
}

// storedPosition is the position of a stream whose metadata is m, as its
// records show it: the open (or last) shard, and the highest of its bounds,
// its trim point and its last record.
func storedPosition(r storage.Reader, m *streamMeta) (position, error) {
	p := position{disabled: !m.Disabled.IsZero()}
	if len(m.Shards) == 0 {
		return p, nil
	}
	sh := m.Shards[len(m.Shards)-1]
	last, err := lastSeqIn(r, shardPrefix(m.TableID, m.No, sh.No))
	if err != nil {
		return p, err
	}
	p.shard, p.last = sh.No, max(sh.Start, sh.End, sh.Trimmed, last)
	return p, nil
}

// stageShared appends a record to the stream in the item's transaction at
// the stream's stored position (cluster mode).
func (reg *Registry) stageShared(txn storage.Txn, s *streamState, value []byte) error {
	p, found, err := readPosition(txn, s.id)
	if err != nil {
		return err
	}
	if !found {
		return errStreamMoved // dropped, or not created yet as this version names it
	}
	if p.disabled {
		return nil // disabled: the write no longer records (as with one node)
	}
	n := p.reserve()
	if err := txn.Set(counterKey(s.id), encodePosition(p)); err != nil {
		return err
	}
	return txn.Set(streamRecordKey(s.id.table, s.id.no, p.shard, n), value)
}

// retryShared runs f until it does not meet a conflict (at most
// maxSharedAttempts times).
func retryShared(f func() error) error {
	for attempt := 1; ; attempt++ {
		err := f()
		if !errors.Is(err, storage.ErrConflict) || attempt == maxSharedAttempts {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
}

// updateShared is update in cluster mode: the metadata and position are
// read in the transaction that writes them back.
func (reg *Registry) updateShared(s *streamState, sync bool, f func(m *streamMeta, p *position) bool) error {
	return retryShared(func() error {
		txn, err := reg.cfg.Store.Begin()
		if err != nil {
			return err
		}
		defer txn.Rollback()
		m, p, found, err := readState(txn, s.id)
		if err != nil {
			return err
		}
		if !found {
			reg.forget(s)
			return nil
		}
		if !f(&m, &p) {
			reg.install(m)
			return nil
		}
		if err := putStreamMeta(txn, &m); err != nil {
			return err
		}
		if err := txn.Set(counterKey(s.id), encodePosition(p)); err != nil {
			return err
		}
		if err := txn.Commit(storage.CommitOptions{Sync: sync}); err != nil {
			return err
		}
		reg.install(m)
		return nil
	})
}

// install makes m the registry's copy of its stream's metadata, adding
// the stream when it is new here.
func (reg *Registry) install(m streamMeta) *streamState {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if s, ok := reg.byARN[m.ARN]; ok {
		s.mu.Lock()
		s.meta = m
		s.mu.Unlock()
		return s
	}
	s := &streamState{meta: m, inflight: map[uint64]struct{}{}}
	reg.add(s)
	return s
}

// forget drops a stream another node removed.
func (reg *Registry) forget(s *streamState) {
	reg.mu.Lock()
	if reg.byARN[s.arn] == s {
		reg.remove(s)
	}
	reg.mu.Unlock()
}

// refreshAll reads every stream's metadata from the store (cluster mode):
// streams other nodes created are added, those they removed forgotten.
func (reg *Registry) refreshAll() error {
	snap, err := reg.cfg.Store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	metas, err := loadMetas(snap)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(metas))
	for _, m := range metas {
		seen[m.ARN] = true
		reg.install(m)
	}
	for _, s := range reg.list() {
		if !seen[s.arn] {
			reg.forget(s)
		}
	}
	return nil
}

// ensureShared is ensureStream in cluster mode: the stream t's description
// names is found in the store or created there once, whichever nodes ask.
func (reg *Registry) ensureShared(arn, label string, create func(no uint32, p *position) streamMeta, tableID uint64) (*streamState, error) {
	var out *streamState
	err := retryShared(func() error {
		txn, err := reg.cfg.Store.Begin()
		if err != nil {
			return err
		}
		defer txn.Rollback()
		cur, hasCur, err := readTableStream(txn, tableID)
		if err != nil {
			return err
		}
		if hasCur && cur.ARN == arn {
			m, found, err := readMeta(txn, streamKey{tableID, cur.No})
			if err != nil || !found {
				return cmpErr(err, errStreamMoved)
			}
			out = reg.install(m)
			return nil
		}
		if hasCur && cur.Label > label {
			return errStreamMoved // the table has a newer stream: this definition is stale
		}
		var prev *streamMeta
		if hasCur {
			if prev, err = disableInTxn(txn, streamKey{tableID, cur.No}, reg.cfg.Clock.Now().UTC()); err != nil {
				return err
			}
		}
		no := uint32(0)
		if v, err := txn.Get(metaStreamNextKey); err == nil && len(v) == 4 {
			no = binary.BigEndian.Uint32(v)
		} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		var p position
		m := create(no, &p)
		if err := txn.Set(metaStreamNextKey, binary.BigEndian.AppendUint32(nil, no+1)); err != nil {
			return err
		}
		if err := putStreamMeta(txn, &m); err != nil {
			return err
		}
		if err := txn.Set(counterKey(streamKey{tableID, no}), encodePosition(p)); err != nil {
			return err
		}
		if err := putTableStream(txn, tableID, tableStream{No: no, ARN: arn, Label: label}); err != nil {
			return err
		}
		if err := txn.Commit(storage.CommitOptions{Sync: reg.cfg.Sync}); err != nil {
			return err
		}
		if prev != nil {
			reg.install(*prev)
		}
		out = reg.install(m)
		return nil
	})
	return out, err
}

// cmpErr is err, or def when err is nil.
func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// disableInTxn disables a stream inside txn (its previous one, when a
// table gets a new stream) and returns its metadata (nil: it is gone).
func disableInTxn(txn storage.Txn, id streamKey, now time.Time) (*streamMeta, error) {
	m, p, found, err := readState(txn, id)
	if err != nil || !found {
		return nil, err
	}
	if !disable(&m, &p, now) {
		return &m, nil
	}
	if err := putStreamMeta(txn, &m); err != nil {
		return nil, err
	}
	return &m, txn.Set(counterKey(id), encodePosition(p))
}

// tableStream is "mstreams/tab/": a table's newest stream.
type tableStream struct {
	No    uint32 `json:"no"`
	ARN   string `json:"arn"`
	Label string `json:"label"`
}

func readTableStream(r storage.Reader, tableID uint64) (ts tableStream, found bool, err error) {
	v, err := r.Get(tableKey(tableID))
	if errors.Is(err, storage.ErrNotFound) {
		return ts, false, nil
	}
	if err != nil {
		return ts, false, err
	}
	return ts, true, json.Unmarshal(v, &ts)
}

func putTableStream(txn storage.Txn, tableID uint64, ts tableStream) error {
	b, err := json.Marshal(ts)
	if err != nil {
		return err
	}
	return txn.Set(tableKey(tableID), b)
}

// openShared prepares, at Open in cluster mode, every loaded stream's
// stored position and its table's newest stream (a store a single server
// wrote has neither), each in a transaction that reads them first, so
// nodes starting together agree.
func (reg *Registry) openShared(metas []streamMeta) error {
	for i := range metas {
		m := &metas[i]
		id := streamKey{m.TableID, m.No}
		err := retryShared(func() error {
			txn, err := reg.cfg.Store.Begin()
			if err != nil {
				return err
			}
			defer txn.Rollback()
			_, hasPos, err := readPosition(txn, id)
			if err != nil {
				return err
			}
			cur, hasCur, err := readTableStream(txn, m.TableID)
			if err != nil {
				return err
			}
			if hasPos && hasCur && (cur.No >= m.No) {
				return nil
			}
			if !hasPos {
				p, err := storedPosition(txn, m)
				if err != nil {
					return err
				}
				if err := txn.Set(counterKey(id), encodePosition(p)); err != nil {
					return err
				}
			}
			if !hasCur || cur.No < m.No {
				if err := putTableStream(txn, m.TableID, tableStream{No: m.No, ARN: m.ARN, Label: m.Label}); err != nil {
					return err
				}
			}
			return txn.Commit(storage.CommitOptions{Sync: reg.cfg.Sync})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// dropPositions removes, at Open of a single server, the stored positions
// nodes in cluster mode kept (the server counts in memory; a later start in
// cluster mode derives them again from the records), after folding them
// into the sequence floor so numbers keep increasing. It returns the
// highest.
func dropPositions(store Store, floor uint64, sync bool) (uint64, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return 0, err
	}
	upper := bytes.Clone(metaCounterPrefix)
	upper[len(upper)-1]++
	it, err := snap.NewIterator(storage.IterOptions{Lower: metaCounterPrefix, Upper: upper})
	if err != nil {
		snap.Close()
		return 0, err
	}
	var keys [][]byte
	top := floor
	for it.Next() {
		if v := it.Value(); len(v) == 13 {
			top = max(top, binary.BigEndian.Uint64(v[4:]))
		}
		keys = append(keys, bytes.Clone(it.Key()))
	}
	err = it.Err()
	it.Close()
	snap.Close()
	if err != nil || len(keys) == 0 {
		return top, err
	}
	txn, err := store.Begin()
	if err != nil {
		return 0, err
	}
	defer txn.Rollback()
	if err := txn.Set(metaStreamSeqKey, binary.BigEndian.AppendUint64(nil, top)); err != nil {
		return 0, err
	}
	for _, k := range keys {
		if err := txn.Delete(k); err != nil {
			return 0, err
		}
	}
	return top, txn.Commit(storage.CommitOptions{Sync: sync})
}

// view is what a reader sees of a stream: its metadata, the highest
// number every record at or below which is readable (safe), and the
// highest drawn (top).
type view struct {
	meta      streamMeta
	safe, top uint64
}

// view reads a stream as a reader sees it: with one node from the
// registry (the watermark of numbers in flight), in cluster mode from r,
// the snapshot the reader reads the records from, where the stored
// position is both (shared.go). found is false when the stream is gone.
func (reg *Registry) view(s *streamState, r storage.Reader) (v view, found bool, err error) {
	if !reg.cfg.Cluster {
		s.mu.Lock()
		defer s.mu.Unlock()
		return view{meta: cloneMeta(s.meta), safe: s.safe(reg), top: reg.seq.Load()}, true, nil
	}
	m, p, found, err := readState(r, s.id)
	if err != nil || !found {
		if !found && err == nil {
			reg.forget(s)
		}
		return v, found, err
	}
	reg.install(m)
	return view{meta: cloneMeta(m), safe: p.last, top: p.last}, true, nil
}

// readView is view for a request that reads no records: in cluster mode
// through a snapshot of its own.
func (reg *Registry) readView(s *streamState) (view, bool, error) {
	if !reg.cfg.Cluster {
		return reg.view(s, nil)
	}
	snap, err := reg.cfg.Store.NewSnapshot()
	if err != nil {
		return view{}, false, err
	}
	defer snap.Close()
	return reg.view(s, snap)
}
