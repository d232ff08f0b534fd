package postgres

import (
	"bytes"
	"errors"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

const beginTxnSQL = "BEGIN ISOLATION LEVEL REPEATABLE READ"

// Begin implements storage.Store: a REPEATABLE READ transaction whose
// snapshot is taken now; writes wait in memory for Commit.
func (s *Store) Begin() (storage.Txn, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	x := s.newTxn()
	if err := x.start(); err != nil {
		x.o.Rollback()
		return nil, err
	}
	return x, nil
}

// BeginLazy implements storage.LazyBeginner: the PostgreSQL transaction
// begins at the first read, or, for a transaction that never reads, in
// the round trip of its commit. The conflict rule counts from the call
// through the store's local oracle (doc.go, "Lazy transactions").
func (s *Store) BeginLazy() (storage.Txn, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	return s.newTxn(), nil
}

func (s *Store) newTxn() *txn {
	// The oracle's start comes first: the snapshot must be taken after it.
	return &txn{reader: reader{s: s}, o: s.oracle.Begin(), began: now(), writes: map[string][]byte{}, reads: map[string]bool{}}
}

// txn is a REPEATABLE READ transaction whose writes wait in memory; Commit
// sends them, and the conflict checks, in one statement (commit.go).
type txn struct {
	reader // conn nil until the transaction begins in PostgreSQL
	o      *occ.Txn
	began  monoTime
	writes map[string][]byte // by key without namespace; nil value: delete
	reads  map[string]bool   // keys read with Get: whether the snapshot showed a row (a tombstone too)
	done   bool
}

// start begins the transaction in PostgreSQL, its snapshot taken now.
func (x *txn) start() error {
	c, err := x.s.begin(beginTxnSQL + "; SELECT 1")
	if err != nil {
		return err
	}
	x.conn = c
	return nil
}

// ensureStarted begins a lazy transaction at its first read.
func (x *txn) ensureStarted() error {
	if x.conn != nil || x.done {
		return nil
	}
	return x.start()
}

// Get reads the transaction's own writes, then its snapshot, and notes the
// key for Commit's conflict check.
func (x *txn) Get(k []byte) ([]byte, error) {
	if x.s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	if v, ok := x.writes[string(k)]; ok {
		if v == nil {
			return nil, storage.ErrNotFound
		}
		return bytes.Clone(v), nil
	}
	if err := x.ensureStarted(); err != nil {
		return nil, err
	}
	v, row, err := x.get(k)
	if err == nil || errors.Is(err, storage.ErrNotFound) {
		x.reads[string(k)] = row
		x.o.NoteRead(k)
	}
	return v, err
}

func (x *txn) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if x.s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	if err := x.ensureStarted(); err != nil {
		return nil, err
	}
	return x.reader.NewIterator(opts)
}

func (x *txn) Set(k, v []byte) error {
	if x.s.closed.Closed() {
		return storage.ErrClosed
	}
	x.writes[string(k)] = append(make([]byte, 0, len(v)), v...) // never nil: nil is a delete
	// The oracle needs the written keys only (its conflict check and
	// history), not the values, which commit.go sends from x.writes.
	return x.o.Delete(k)
}

func (x *txn) Delete(k []byte) error {
	if x.s.closed.Closed() {
		return storage.ErrClosed
	}
	x.writes[string(k)] = nil
	return x.o.Delete(k)
}

func (x *txn) Rollback() {
	if !x.done {
		x.done = true
		x.o.Rollback()
		x.end()
	}
}
