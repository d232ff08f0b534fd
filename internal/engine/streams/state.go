package streams

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/engine/change"
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

type streamKey struct {
	table uint64
	no    uint32
}

// streamState is one stream: its metadata and in-flight numbers.
type streamState struct {
	id    streamKey // immutable copies of meta fields read without mu
	view  string
	arn   string
	label string

	// turn (cluster mode) makes this node's writers of the stream take
	// turns, from Stage to the end of their transaction: they would
	// otherwise only conflict with one another on the stored position.
	turn sync.Mutex

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

// safe is the stream's watermark: every number at or below it is
// committed or abandoned. Callers hold s.mu.
func (s *streamState) safe(reg *Registry) uint64 {
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

// Store wraps the engine's store so that every transaction can carry the
// sequence numbers it allocated and release them when it ends. The engine
// begins every transaction through it.
type Store struct{ storage.Store }

// WrapStore wraps s.
func WrapStore(s storage.Store) Store { return Store{s} }

func (s Store) Begin() (storage.Txn, error) {
	t, err := s.Store.Begin()
	if err != nil {
		return nil, err
	}
	return &streamTxn{Txn: t}, nil
}

// BeginLazy is Begin with the snapshot taken at the first read when the
// store can (storage.LazyBeginner), else Begin.
func (s Store) BeginLazy() (storage.Txn, error) {
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

// BeginFor begins, through store, the transaction of a write to table t
// (Store.BeginLazy). In cluster mode it first takes the turn of t's
// enabled stream (takeTurn), so that this node's writers of the stream
// wait for each other instead of conflicting on its stored position: a
// transaction's conflict rule counts from its begin, so one that took the
// turn only when staging its record, after it began, would still conflict
// with the commit of the writer it waited for, and retry.
func (reg *Registry) BeginFor(store Store, t change.TableDef) (storage.Txn, error) {
	var s *streamState
	if reg.cfg.Cluster {
		s, _ = reg.streamFor(t.Def()) // an error is Stage's to report
	}
	if s == nil {
		return store.BeginLazy()
	}
	s.turn.Lock()
	txn, err := store.BeginLazy()
	if err != nil {
		s.turn.Unlock()
		return nil, err
	}
	st := txn.(*streamTxn)
	st.turns = append(st.turns, s)
	return st, nil
}

// streamTxn is a transaction that may hold in-flight sequence numbers.
type streamTxn struct {
	storage.Txn
	pending []pendingSeq
	turns   []*streamState // cluster mode: the streams whose turn it holds
}

// errTurn is a transaction's refusal to wait for a second stream's turn
// while it holds one (waiting could deadlock with a transaction taking
// them the other way round): a conflict, so it retries.
var errTurn = fmt.Errorf("%w: another transaction of this node is writing to the stream", storage.ErrConflict)

// takeTurn makes t hold s's turn until it ends: waiting for it when t
// holds none, else only when it is free at once.
func (t *streamTxn) takeTurn(s *streamState) error {
	if slices.Contains(t.turns, s) {
		return nil
	}
	if len(t.turns) == 0 {
		s.turn.Lock()
	} else if !s.turn.TryLock() {
		return errTurn
	}
	t.turns = append(t.turns, s)
	return nil
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
	for _, s := range t.turns {
		s.turn.Unlock()
	}
	t.turns = t.turns[:0]
}

// load restores the registry at Open: the MAC key, every stream's
// metadata and the sequence counter (the highest stored number, shard
// bound or persisted floor). In cluster mode it prepares the stored
// positions instead (openShared); a single server drops them.
func (reg *Registry) load() error {
	if err := reg.loadKey(); err != nil {
		return err
	}
	snap, err := reg.cfg.Store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	var top uint64
	if v, err := snap.Get(metaStreamSeqKey); err == nil && len(v) == 8 {
		top = binary.BigEndian.Uint64(v)
	}
	if v, err := snap.Get(metaStreamNextKey); err == nil && len(v) == 4 {
		reg.next = binary.BigEndian.Uint32(v)
	}
	metas, err := loadMetas(snap)
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
	if reg.cfg.Cluster {
		return reg.openShared(metas)
	}
	if top, err = dropPositions(reg.cfg.Store, top, reg.cfg.Sync); err != nil {
		return err
	}
	reg.seq.Store(top)
	return nil
}

// loadKey reads the shard-iterator MAC key, creating it on first use in a
// transaction that reads it first, so that nodes starting together on a
// new store agree on one key.
func (reg *Registry) loadKey() error {
	return retryShared(func() error {
		txn, err := reg.cfg.Store.Begin()
		if err != nil {
			return err
		}
		defer txn.Rollback()
		if reg.key, err = txn.Get(metaStreamHMACKey); err == nil {
			return nil
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		reg.key = make([]byte, 32)
		if _, err := rand.Read(reg.key); err != nil {
			return err
		}
		if err := txn.Set(metaStreamHMACKey, reg.key); err != nil {
			return err
		}
		return txn.Commit(storage.CommitOptions{Sync: true})
	})
}

// loadMetas reads every stream's metadata.
func loadMetas(r storage.Reader) ([]streamMeta, error) {
	upper := append(append([]byte(nil), metaStreamPrefix[:len(metaStreamPrefix)-1]...), '/'+1)
	it, err := r.NewIterator(storage.IterOptions{Lower: metaStreamPrefix, Upper: upper})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var metas []streamMeta
	for it.Next() {
		var m streamMeta
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			return nil, err
		}
		metas = append(metas, m)
	}
	return metas, it.Err()
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
func (reg *Registry) add(s *streamState) {
	s.id, s.view, s.arn, s.label = streamKey{s.meta.TableID, s.meta.No}, s.meta.ViewType, s.meta.ARN, s.meta.Label
	reg.byARN[s.meta.ARN] = s
	reg.byID[streamKey{s.meta.TableID, s.meta.No}] = s
	if cur, ok := reg.current[s.meta.TableID]; !ok || cur.meta.No < s.meta.No {
		reg.current[s.meta.TableID] = s
	}
	reg.fast.Store(s.meta.ARN, s)
}

// remove forgets a stream (callers hold reg.mu).
func (reg *Registry) remove(s *streamState) {
	delete(reg.byARN, s.meta.ARN)
	delete(reg.byID, streamKey{s.meta.TableID, s.meta.No})
	if reg.current[s.meta.TableID] == s {
		delete(reg.current, s.meta.TableID)
	}
	reg.fast.Delete(s.meta.ARN)
}

// list returns every retained stream in creation order.
func (reg *Registry) list() []*streamState {
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
func (reg *Registry) streamFor(t *change.Table) (*streamState, error) {
	if !t.Stream.Enabled || t.Stream.ARN == "" {
		return nil, nil
	}
	if v, ok := reg.fast.Load(t.Stream.ARN); ok {
		return v.(*streamState), nil
	}
	return reg.ensureStream(t)
}

// ensureStream creates (and persists) the stream t's description names,
// disabling the table's previous stream. It is idempotent.
func (reg *Registry) ensureStream(t *change.Table) (*streamState, error) {
	label := t.Stream.Label
	created, err := time.Parse("2006-01-02T15:04:05.000", label)
	if err != nil {
		created = reg.cfg.Clock.Now()
	}
	create := func(no uint32, p *position) streamMeta {
		m := streamMeta{TableID: t.ID, TableName: t.Name, No: no, ARN: t.Stream.ARN, Label: label,
			ViewType: t.Stream.ViewType, KeySchema: slices.Clone(t.Stream.KeySchema),
			Created: created.UTC()}
		start := p.reserve()
		m.Shards = []shardMeta{{No: 0, ID: shardID(created, t.ID, m.No, 0), Start: start, Created: created.UTC()}}
		m.NextShard = 1
		return m
	}
	if reg.cfg.Cluster {
		return reg.ensureShared(t.Stream.ARN, label, create, t.ID)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if s, ok := reg.byARN[t.Stream.ARN]; ok {
		return s, nil
	}
	if prev := reg.current[t.ID]; prev != nil {
		if err := reg.disableStream(prev); err != nil {
			return nil, err
		}
	}
	m := create(reg.next, &position{draw: func() uint64 { return reg.seq.Add(1) }})
	if err := reg.cfg.Commit(reg.cfg.Sync, func(txn storage.Txn) error {
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

// update applies f to a copy of a stream's metadata and write position
// and, when f reports a change, stores it and makes it the stream's. With
// one node the registry's copy is the truth, changed under the stream's
// lock; in cluster mode both are read from the store in the transaction
// that writes them (updateShared).
func (reg *Registry) update(s *streamState, sync bool, f func(m *streamMeta, p *position) bool) error {
	if reg.cfg.Cluster {
		return reg.updateShared(s, sync, f)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := cloneMeta(s.meta)
	p := position{last: s.last, disabled: !m.Disabled.IsZero(), draw: func() uint64 { return reg.seq.Add(1) }}
	if !f(&m, &p) {
		return nil
	}
	if err := reg.cfg.Commit(sync, func(txn storage.Txn) error { return putStreamMeta(txn, &m) }); err != nil {
		return err
	}
	s.meta, s.last = m, p.last
	return nil
}

// disableStream closes a stream's open shard and marks it DISABLED (it
// stays readable for the retention period).
func (reg *Registry) disableStream(s *streamState) error {
	now := reg.cfg.Clock.Now().UTC()
	return reg.update(s, reg.cfg.Sync, func(m *streamMeta, p *position) bool { return disable(m, p, now) })
}

// disable marks m disabled at now, closing its open shard at the last
// number drawn; false when it already was.
func disable(m *streamMeta, p *position, now time.Time) bool {
	if !m.Disabled.IsZero() {
		return false
	}
	m.Disabled, p.disabled = now, true
	if sh := &m.Shards[len(m.Shards)-1]; sh.open() {
		sh.End = max(p.last, sh.Start)
		sh.Closed = now
	}
	return true
}

// rollover closes a stream's open shard and opens its child, when the
// open shard (as the store has it in cluster mode) has outlived the
// period: nodes that decide on the same stale view roll over once.
func (reg *Registry) rollover(s *streamState) error {
	now := reg.cfg.Clock.Now().UTC()
	return reg.update(s, reg.cfg.Sync, func(m *streamMeta, p *position) bool {
		if p.disabled || len(m.Shards) == 0 || !m.Shards[len(m.Shards)-1].open() ||
			now.Before(m.Shards[len(m.Shards)-1].Created.Add(reg.shardPeriod())) {
			return false
		}
		parent := &m.Shards[len(m.Shards)-1]
		parent.End = max(p.last, parent.Start)
		parent.Closed = now
		start := p.reserve()
		child := shardMeta{No: m.NextShard, ID: shardID(now, m.TableID, m.No, m.NextShard),
			Parent: parent.ID, Start: start, Created: now}
		m.Shards = append(m.Shards, child)
		m.NextShard++
		p.shard = child.No
		return true
	})
}

func cloneMeta(m streamMeta) streamMeta {
	m.Shards = slices.Clone(m.Shards)
	return m
}

// Observe reconciles the streams with a new version of a table (the
// engine calls it after every catalog change): a newly enabled stream is
// created, a disabled one or one of a table being deleted is closed. It
// does nothing before Open.
func (reg *Registry) Observe(t *change.Table, deleting bool) {
	if !reg.opened.Load() {
		return
	}
	if !deleting && t.Stream.Enabled {
		reg.ensureStream(t) //nolint:errcheck // retried by the next write or Open
		return
	}
	reg.mu.Lock()
	cur := reg.current[t.ID]
	reg.mu.Unlock()
	// In cluster mode t may be older than a stream another node created
	// since (its label is later): that one stays.
	if cur != nil && (deleting || !reg.cfg.Cluster || cur.label <= t.Stream.Label) {
		reg.disableStream(cur) //nolint:errcheck // retried at the next Open, or by the upkeep in cluster mode
	}
}

// reconcile observes every table at Open, and disables the streams of
// tables that no longer exist.
func (reg *Registry) reconcile(tables []Observed) {
	ids := map[uint64]bool{}
	for _, t := range tables {
		ids[t.Table.ID] = true
		reg.Observe(t.Table, t.Deleting)
	}
	for _, s := range reg.list() {
		if !ids[s.meta.TableID] {
			reg.disableStream(s) //nolint:errcheck // retried at the next Open
		}
	}
}
