package occ

import "errors"

// ErrTxnDone is returned when a transaction is used after Commit or
// Rollback.
var ErrTxnDone = errors.New("storage: transaction already committed or rolled back")

// Write is one buffered write: a value, or a deletion.
type Write struct {
	Value  []byte
	Delete bool
}

// Txn is the backend-independent state of a read-write transaction: its
// start timestamp, the keys it read with Get and its buffered writes. A
// backend pairs it with a snapshot taken right after Begin. A Txn is not
// safe for concurrent use.
type Txn struct {
	oracle *Oracle
	start  uint64
	reads  map[string]struct{}
	writes map[string]Write
	done   bool
}

// Begin starts a transaction. The backend must take the transaction's
// snapshot after Begin returns, and must end the transaction with Commit or
// Rollback.
func (o *Oracle) Begin() *Txn {
	return &Txn{oracle: o, start: o.begin()}
}

// Start returns the transaction's start timestamp.
func (t *Txn) Start() uint64 { return t.start }

// Done reports whether the transaction was committed or rolled back.
func (t *Txn) Done() bool { return t.done }

// Buffered looks key up in the write buffer. ok reports whether the
// transaction wrote key; then deleted tells whether the write was a delete,
// and value is a copy of the written value otherwise.
func (t *Txn) Buffered(key []byte) (value []byte, deleted, ok bool) {
	w, ok := t.writes[string(key)]
	if !ok {
		return nil, false, false
	}
	if w.Delete {
		return nil, true, true
	}
	return append([]byte{}, w.Value...), false, true
}

// NoteRead records that key was read with Get, so that Commit checks it for
// conflicts.
func (t *Txn) NoteRead(key []byte) {
	if t.reads == nil {
		t.reads = make(map[string]struct{})
	}
	t.reads[string(key)] = struct{}{}
}

// Set buffers a write of value to key. Both are copied.
func (t *Txn) Set(key, value []byte) error {
	if t.done {
		return ErrTxnDone
	}
	t.put(key, Write{Value: append([]byte{}, value...)})
	return nil
}

// Delete buffers a deletion of key.
func (t *Txn) Delete(key []byte) error {
	if t.done {
		return ErrTxnDone
	}
	t.put(key, Write{Delete: true})
	return nil
}

func (t *Txn) put(key []byte, w Write) {
	if t.writes == nil {
		t.writes = make(map[string]Write)
	}
	t.writes[string(key)] = w
}

// Commit runs the commit protocol: the conflict check, then apply (outside
// the oracle's mutex) with the buffered writes, keyed by key, when there are
// any. apply must make all writes visible atomically. Commit returns
// storage.ErrConflict on conflict, or apply's error. The transaction is
// finished either way.
func (t *Txn) Commit(apply func(writes map[string]Write) error) error {
	if t.done {
		return ErrTxnDone
	}
	t.done = true
	ts, err := t.oracle.commit(t.start, t.reads, t.writes)
	writes := t.writes
	t.reads, t.writes = nil, nil
	// finish runs even if apply panics, so the watermark never sticks.
	defer t.oracle.finish(t.start, ts)
	if err != nil || ts == 0 {
		return err
	}
	return apply(writes)
}

// Rollback discards the transaction. It is a no-op when the transaction is
// already finished.
func (t *Txn) Rollback() {
	if t.done {
		return
	}
	t.done = true
	t.oracle.finish(t.start, 0)
	t.reads, t.writes = nil, nil
}
