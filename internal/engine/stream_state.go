package engine

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// Stream defaults (DynamoDB: shards roll over about every four hours,
// records are kept 24 hours, iterators live 15 minutes).
const (
	defaultShardPeriod   = 4 * time.Hour
	defaultRetention     = 24 * time.Hour
	iteratorLifetime     = 15 * time.Minute
	streamMaintenanceDur = time.Second
)

// streamRegistry is the in-memory state of every retained stream.
//
// Sequence numbers: one engine-wide counter (seq). A writer allocates its
// number and registers it as in flight under its stream's lock, and
// releases it when its transaction commits or rolls back (streamTxn). A
// reader reads a stream only up to its safe watermark — the highest
// number below which nothing is in flight — so a record that commits
// after a later-numbered one is never skipped.
type streamRegistry struct {
	seq atomic.Uint64 // last allocated sequence number
	key []byte        // shard-iterator MAC key

	mu      sync.Mutex // guards the maps, next and changes of which stream is current
	byARN   map[string]*streamState
	byID    map[streamKey]*streamState
	current map[uint64]*streamState // the newest stream of each table ID
	next    uint32                  // next stream number
	fast    sync.Map                // ARN → *streamState, read by the write path
}

type streamKey struct {
	table uint64
	no    uint32
}

// streamState is one stream: its metadata and in-flight numbers.
type streamState struct {
	id   streamKey // immutable copies of meta fields read without mu
	view string
	arn  string

	mu       sync.Mutex
	meta     streamMeta
	inflight map[uint64]struct{}
	last     uint64 // highest number allocated in the open shard
}

// activeShard returns the open shard, or nil once the stream is disabled.
func (s *streamState) activeShard() *shardMeta {
	if n := len(s.meta.Shards); n > 0 && s.meta.Shards[n-1].open() {
		return &s.meta.Shards[n-1]
	}
	return nil
}

// shard returns the shard with the given ID.
func (s *streamState) shard(id string) *shardMeta {
	for i := range s.meta.Shards {
		if s.meta.Shards[i].ID == id {
			return &s.meta.Shards[i]
		}
	}
	return nil
}

// safe is the stream's watermark: every number at or below it is
// committed or abandoned. Callers hold s.mu.
func (s *streamState) safe(reg *streamRegistry) uint64 {
	if len(s.inflight) == 0 {
		return reg.seq.Load()
	}
	low := uint64(math.MaxUint64)
	for n := range s.inflight {
		low = min(low, n)
	}
	return low - 1
}

// release marks a number resolved.
func (s *streamState) release(n uint64) {
	s.mu.Lock()
	delete(s.inflight, n)
	s.mu.Unlock()
}

// streamStore wraps the engine's store so that every transaction can carry
// the sequence numbers it allocated and release them when it ends.
type streamStore struct{ storage.Store }

func (s streamStore) Begin() (storage.Txn, error) {
	t, err := s.Store.Begin()
	if err != nil {
		return nil, err
	}
	return &streamTxn{Txn: t}, nil
}

// BeginLazy is Begin with the snapshot taken at the first read when the
// store can (storage.LazyBeginner), else Begin.
func (s streamStore) BeginLazy() (storage.Txn, error) {
	lb, ok := s.Store.(storage.LazyBeginner)
	if !ok {
		return s.Begin()
	}
	t, err := lb.BeginLazy()
	if err != nil {
		return nil, err
	}
	return &streamTxn{Txn: t}, nil
}

// streamTxn is a transaction that may hold in-flight sequence numbers.
type streamTxn struct {
	storage.Txn
	pending []pendingSeq
}

type pendingSeq struct {
	s *streamState
	n uint64
}

// Commit commits, then releases the numbers: a committed record is now
// visible to new snapshots, an aborted one will never exist.
func (t *streamTxn) Commit(opts storage.CommitOptions) error {
	err := t.Txn.Commit(opts)
	t.releaseAll()
	return err
}

// Rollback discards the transaction and releases its numbers.
func (t *streamTxn) Rollback() {
	t.Txn.Rollback()
	t.releaseAll()
}

func (t *streamTxn) releaseAll() {
	for _, p := range t.pending {
		p.s.release(p.n)
	}
	t.pending = t.pending[:0]
}

// loadStreams restores the registry at Open: the MAC key, every stream's
// metadata and the sequence counter (the highest stored number, shard
// bound or persisted floor).
func (e *Engine) loadStreams() error {
	reg := &streamRegistry{byARN: map[string]*streamState{}, byID: map[streamKey]*streamState{},
		current: map[uint64]*streamState{}}
	e.streams = reg
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	if reg.key, err = snap.Get(metaStreamHMACKey); err != nil {
		reg.key = make([]byte, 32)
		if _, err := rand.Read(reg.key); err != nil {
			return err
		}
		if err := e.commit(true, func(txn storage.Txn) error { return txn.Set(metaStreamHMACKey, reg.key) }); err != nil {
			return err
		}
	}
	var top uint64
	if v, err := snap.Get(metaStreamSeqKey); err == nil && len(v) == 8 {
		top = binary.BigEndian.Uint64(v)
	}
	if v, err := snap.Get(metaStreamNextKey); err == nil && len(v) == 4 {
		reg.next = binary.BigEndian.Uint32(v)
	}
	upper := append(append([]byte(nil), metaStreamPrefix[:len(metaStreamPrefix)-1]...), '/'+1)
	it, err := snap.NewIterator(storage.IterOptions{Lower: metaStreamPrefix, Upper: upper})
	if err != nil {
		return err
	}
	var metas []streamMeta
	for it.Next() {
		var m streamMeta
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			it.Close()
			return err
		}
		metas = append(metas, m)
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return err
	}
	for _, m := range metas {
		s := &streamState{meta: m, inflight: map[uint64]struct{}{}}
		for _, sh := range m.Shards {
			top = max(top, sh.Start, sh.End)
			last, err := lastSeqIn(snap, shardPrefix(m.TableID, m.No, sh.No))
			if err != nil {
				return err
			}
			top = max(top, last)
			if sh.open() {
				s.last = last
			}
		}
		reg.next = max(reg.next, m.No+1)
		reg.add(s)
	}
	reg.seq.Store(top)
	return nil
}

// lastSeqIn returns the highest record number under a shard prefix (0 if none).
func lastSeqIn(r storage.Reader, prefix []byte) (uint64, error) {
	upper := binary.BigEndian.AppendUint64(append([]byte(nil), prefix...), math.MaxUint64)
	it, err := r.NewIterator(storage.IterOptions{Lower: prefix, Upper: upper, Reverse: true})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if it.Next() {
		k := it.Key()
		if len(k) == len(prefix)+8 {
			return binary.BigEndian.Uint64(k[len(prefix):]), nil
		}
	}
	return 0, it.Err()
}

// add indexes a stream (callers hold reg.mu or are in Open).
func (reg *streamRegistry) add(s *streamState) {
	s.id, s.view, s.arn = streamKey{s.meta.TableID, s.meta.No}, s.meta.ViewType, s.meta.ARN
	reg.byARN[s.meta.ARN] = s
	reg.byID[streamKey{s.meta.TableID, s.meta.No}] = s
	if cur, ok := reg.current[s.meta.TableID]; !ok || cur.meta.No < s.meta.No {
		reg.current[s.meta.TableID] = s
	}
	reg.fast.Store(s.meta.ARN, s)
}

// remove forgets a stream (callers hold reg.mu).
func (reg *streamRegistry) remove(s *streamState) {
	delete(reg.byARN, s.meta.ARN)
	delete(reg.byID, streamKey{s.meta.TableID, s.meta.No})
	if reg.current[s.meta.TableID] == s {
		delete(reg.current, s.meta.TableID)
	}
	reg.fast.Delete(s.meta.ARN)
}

// list returns every retained stream in creation order.
func (reg *streamRegistry) list() []*streamState {
	reg.mu.Lock()
	out := make([]*streamState, 0, len(reg.byARN))
	for _, s := range reg.byARN {
		out = append(out, s)
	}
	reg.mu.Unlock()
	slices.SortFunc(out, func(a, b *streamState) int {
		if c := a.meta.Created.Compare(b.meta.Created); c != 0 {
			return c
		}
		if c := cmp.Compare(a.meta.TableID, b.meta.TableID); c != 0 {
			return c
		}
		return cmp.Compare(a.meta.No, b.meta.No)
	})
	return out
}

// streamFor returns the stream a write to t records into, creating it on
// first use; nil when t has no enabled stream.
func (e *Engine) streamFor(t *Table) (*streamState, error) {
	spec := t.Desc.StreamSpecification
	if spec == nil || !cpDeref(spec.StreamEnabled) || t.Desc.LatestStreamArn == nil {
		return nil, nil
	}
	if v, ok := e.streams.fast.Load(*t.Desc.LatestStreamArn); ok {
		return v.(*streamState), nil
	}
	return e.ensureStream(t)
}

// ensureStream creates (and persists) the stream t's description names,
// disabling the table's previous stream. It is idempotent.
func (e *Engine) ensureStream(t *Table) (*streamState, error) {
	reg := e.streams
	reg.mu.Lock()
	defer reg.mu.Unlock()
	arn := cpDeref(t.Desc.LatestStreamArn)
	if s, ok := reg.byARN[arn]; ok {
		return s, nil
	}
	if prev := reg.current[t.ID]; prev != nil {
		if err := e.disableStream(prev); err != nil {
			return nil, err
		}
	}
	label := cpDeref(t.Desc.LatestStreamLabel)
	created, err := time.Parse("2006-01-02T15:04:05.000", label)
	if err != nil {
		created = e.clock.Now()
	}
	m := streamMeta{TableID: t.ID, TableName: t.Name, No: reg.next, ARN: arn, Label: label,
		ViewType: t.Desc.StreamSpecification.StreamViewType, KeySchema: slices.Clone(t.Desc.KeySchema),
		Created: created.UTC()}
	start := reg.seq.Add(1)
	m.Shards = []shardMeta{{No: 0, ID: shardID(created, t.ID, m.No, 0), Start: start, Created: created.UTC()}}
	m.NextShard = 1
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error {
		if err := txn.Set(metaStreamNextKey, binary.BigEndian.AppendUint32(nil, m.No+1)); err != nil {
			return err
		}
		return putStreamMeta(txn, &m)
	}); err != nil {
		return nil, err
	}
	reg.next++
	s := &streamState{meta: m, inflight: map[uint64]struct{}{}}
	reg.add(s)
	return s, nil
}

// disableStream closes a stream's open shard and marks it DISABLED (it
// stays readable for the retention period).
func (e *Engine) disableStream(s *streamState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.meta.Disabled.IsZero() {
		return nil
	}
	m := cloneMeta(s.meta)
	now := e.clock.Now().UTC()
	m.Disabled = now
	if sh := &m.Shards[len(m.Shards)-1]; sh.open() {
		sh.End = max(s.last, sh.Start)
		sh.Closed = now
	}
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return putStreamMeta(txn, &m) }); err != nil {
		return err
	}
	s.meta = m
	return nil
}

// rollover closes a stream's open shard and opens its child.
func (e *Engine) rollover(s *streamState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.activeShard() == nil {
		return nil
	}
	m := cloneMeta(s.meta)
	now := e.clock.Now().UTC()
	parent := &m.Shards[len(m.Shards)-1]
	parent.End = max(s.last, parent.Start)
	parent.Closed = now
	start := e.streams.seq.Add(1)
	child := shardMeta{No: m.NextShard, ID: shardID(now, m.TableID, m.No, m.NextShard),
		Parent: parent.ID, Start: start, Created: now}
	m.Shards = append(m.Shards, child)
	m.NextShard++
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return putStreamMeta(txn, &m) }); err != nil {
		return err
	}
	s.meta = m
	s.last = 0
	return nil
}

func cloneMeta(m streamMeta) streamMeta {
	m.Shards = slices.Clone(m.Shards)
	return m
}

// observeStreams reconciles the streams with a new version of a table
// (installTable calls it after every catalog change): a newly enabled
// stream is created, a disabled one or one of a deleted table is closed.
func (e *Engine) observeStreams(t *Table) {
	if e.streams == nil {
		return
	}
	spec := t.Desc.StreamSpecification
	if t.Status != StatusDeleting && spec != nil && cpDeref(spec.StreamEnabled) {
		e.ensureStream(t) //nolint:errcheck // retried by the next write or Open
		return
	}
	e.streams.mu.Lock()
	cur := e.streams.current[t.ID]
	e.streams.mu.Unlock()
	if cur != nil {
		e.disableStream(cur) //nolint:errcheck // retried at the next Open
	}
}

// reconcileStreams runs observeStreams for every table at Open, and
// disables the streams of tables that no longer exist.
func (e *Engine) reconcileStreams() {
	e.mu.RLock()
	ids := map[uint64]*Table{}
	for _, t := range e.tables {
		ids[t.ID] = t
	}
	e.mu.RUnlock()
	for _, t := range ids {
		e.observeStreams(t)
	}
	for _, s := range e.streams.list() {
		if _, ok := ids[s.meta.TableID]; !ok {
			e.disableStream(s) //nolint:errcheck // retried at the next Open
		}
	}
}
