package membership

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// Heartbeat is how often a node renews its record, and TTL how old a
// heartbeat may be before the node counts as gone. Variables, so that
// tests can shorten them.
var (
	Heartbeat = 3 * time.Second
	TTL       = 10 * time.Second
)

// Clock is the time source (injected so that tests can move it).
type Clock interface{ Now() time.Time }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// prefix is the key prefix of the node records.
const prefix = "mnode/"

// Node is one node's record.
type Node struct {
	ID        string    `json:"id"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
	Address   string    `json:"address"` // where it serves the API, as configured
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
}

// Member is this node's registration in a store.
type Member struct {
	store storage.Store
	clock Clock
	mu    sync.Mutex
	me    Node
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// Join registers a new node (a random ID) serving at address in store,
// sweeps the records of nodes that are gone, and renews the record every
// Heartbeat until Leave. clock nil is the system clock.
func Join(store storage.Store, address string, clock Clock) (*Member, error) {
	if clock == nil {
		clock = systemClock{}
	}
	n, now := lease.Me(), clock.Now()
	m := &Member{store: store, clock: clock, stop: make(chan struct{}), done: make(chan struct{}),
		me: Node{ID: n.ID, Host: n.Host, PID: n.PID, Address: address, Started: now, Heartbeat: now}}
	if err := m.write(true); err != nil {
		return nil, fmt.Errorf("membership: joining: %w", err)
	}
	go m.renew()
	return m, nil
}

// ID is this node's ID.
func (m *Member) ID() string { return m.me.ID }

// write stores this node's record with a fresh heartbeat; sweep also
// deletes the records of nodes gone for over TTL.
func (m *Member) write(sweep bool) error {
	m.mu.Lock()
	m.me.Heartbeat = m.clock.Now()
	b, _ := json.Marshal(m.me)
	now := m.me.Heartbeat
	m.mu.Unlock()
	var gone [][]byte
	if sweep {
		all, err := read(m.store)
		if err != nil {
			return err
		}
		for _, n := range all {
			if !live(n, now) {
				gone = append(gone, key(n.ID))
			}
		}
	}
	txn, err := m.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	for _, k := range gone {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	if err := txn.Set(key(m.me.ID), b); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{})
}

func (m *Member) renew() {
	defer close(m.done)
	t := time.NewTicker(Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		if err := m.write(false); err != nil && !errors.Is(err, storage.ErrClosed) {
			slog.Warn("renewing this node's cluster membership", "node", m.me.ID, "err", err)
		}
	}
}

// Leave stops the heartbeat and deletes this node's record (before the
// store closes). Safe to call more than once.
func (m *Member) Leave() error {
	var err error
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		var txn storage.Txn
		if txn, err = m.store.Begin(); err != nil {
			return
		}
		defer txn.Rollback()
		if err = txn.Delete(key(m.me.ID)); err == nil {
			err = txn.Commit(storage.CommitOptions{})
		}
	})
	return err
}

// List returns the live nodes of store (heartbeat within TTL of now), by
// start time then ID.
func List(store storage.Store, now time.Time) ([]Node, error) {
	all, err := read(store)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, n := range all {
		if live(n, now) {
			out = append(out, n)
		}
	}
	return out, nil
}

func live(n Node, now time.Time) bool { return now.Sub(n.Heartbeat) < TTL }

func key(id string) []byte { return []byte(prefix + id) }

// read returns every node record of store, live or not.
func read(store storage.Store) ([]Node, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	upper := []byte(prefix)
	upper[len(upper)-1]++
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte(prefix), Upper: upper})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []Node
	for it.Next() {
		var n Node
		if err := json.Unmarshal(it.Value(), &n); err != nil {
			return nil, fmt.Errorf("membership: node record %q: %w", bytes.TrimPrefix(it.Key(), []byte(prefix)), err)
		}
		out = append(out, n)
	}
	return out, it.Err()
}
