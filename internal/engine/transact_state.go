package engine

import (
	"crypto/sha256"
	"encoding/json"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// tokenTTL is how long a ClientRequestToken stays bound to its request.
const tokenTTL = 10 * time.Minute

// txState is the engine's transaction bookkeeping.
//
// DynamoDB rejects, rather than queues, an item-level request on an item
// that an ongoing TransactWriteItems holds: a single-item write fails with
// TransactionConflictException, another transaction (write or read) is
// cancelled with reason TransactionConflict. Kura models "holds" with the
// held set: a write transaction registers the storage keys of all its
// items before it takes their stripe locks and removes them after its
// commit. Conflicting writes therefore fail fast; writers that do not
// conflict serialise on the stripe locks as usual.
//
// Readers (TransactGetItems) are not cancelled by a write transaction that
// is committing: once its writes are staged and its commit (one atomic
// storage batch) has begun, a snapshot shows all of it or none of it, so
// a read of the items is consistent either way and serialises before or
// after the write. Only a writer still preparing (reading its items and
// evaluating its conditions) is a conflict for a reader, and a reader
// waits up to txReadWait for such a writer to reach its commit before it
// gives up. Without this, on a durable store, where a commit holds its
// items through an fsync, nine readers in ten were cancelled under steady
// writes to their items (BENCHMARKS.md, "TransactGetItems under write
// contention").
type txState struct {
	inflight atomic.Int64 // write transactions holding items; 0 skips the map
	mu       sync.Mutex
	held     map[string]bool // storage key → its writer is committing
	// changed is closed (and replaced) when an entry of held leaves the
	// preparing phase: readers waiting for one select on it.
	changed chan struct{}

	tokMu  sync.Mutex
	tokens map[string]*tokenEntry
	expiry []tokenExpiry // finished entries in expiry order
}

// txHeld reports whether an in-flight transaction holds the item.
func (e *Engine) txHeld(key []byte) bool {
	if e.tx.inflight.Load() == 0 {
		return false
	}
	e.tx.mu.Lock()
	_, ok := e.tx.held[string(key)]
	e.tx.mu.Unlock()
	return ok
}

// txHeldAny returns, per key, whether an in-flight transaction holds it,
// and whether any is held.
func (e *Engine) txHeldAny(keys [][]byte) ([]bool, bool) {
	if e.tx.inflight.Load() == 0 {
		return nil, false
	}
	e.tx.mu.Lock()
	defer e.tx.mu.Unlock()
	return e.heldLocked(keys)
}

func (e *Engine) heldLocked(keys [][]byte) ([]bool, bool) {
	return e.heldWhere(keys, true)
}

// heldWhere reports, per key, whether a write transaction holds it (with
// committing false: holds it and is still preparing). The caller holds
// e.tx.mu.
func (e *Engine) heldWhere(keys [][]byte, committing bool) ([]bool, bool) {
	var held []bool
	for i, k := range keys {
		if c, ok := e.tx.held[string(k)]; ok && (committing || !c) {
			if held == nil {
				held = make([]bool, len(keys))
			}
			held[i] = true
		}
	}
	return held, held != nil
}

// txAcquire registers keys as held by one transaction, all or none: when
// another transaction holds any of them it returns which ones.
func (e *Engine) txAcquire(keys [][]byte) (conflicts []bool, ok bool) {
	e.tx.mu.Lock()
	defer e.tx.mu.Unlock()
	if held, any := e.heldLocked(keys); any {
		return held, false
	}
	if e.tx.held == nil {
		e.tx.held = make(map[string]bool)
	}
	for _, k := range keys {
		e.tx.held[string(k)] = false
	}
	e.tx.inflight.Add(1)
	return nil, true
}

// txPhase moves the items of one transaction (all held by it) to the
// committing phase, or back to preparing for another attempt.
func (e *Engine) txPhase(keys [][]byte, committing bool) {
	e.tx.mu.Lock()
	for _, k := range keys {
		e.tx.held[string(k)] = committing
	}
	if committing {
		e.txChangedLocked()
	}
	e.tx.mu.Unlock()
}

// txRelease ends what txAcquire started.
func (e *Engine) txRelease(keys [][]byte) {
	e.tx.mu.Lock()
	for _, k := range keys {
		delete(e.tx.held, string(k))
	}
	e.tx.inflight.Add(-1)
	e.txChangedLocked()
	e.tx.mu.Unlock()
}

// txChangedLocked wakes the readers waiting for a held item. The caller
// holds e.tx.mu.
func (e *Engine) txChangedLocked() {
	if e.tx.changed != nil {
		close(e.tx.changed)
		e.tx.changed = nil
	}
}

// txReadWait bounds how long a reader waits for the write transactions
// preparing on its items to reach their commits.
const txReadWait = 5 * time.Millisecond

// txPreparingAny returns, per key, whether a write transaction holds it
// and is still preparing, after waiting up to txReadWait for such writers
// to commit or finish; and whether any still is.
func (e *Engine) txPreparingAny(keys [][]byte) ([]bool, bool) {
	if e.tx.inflight.Load() == 0 {
		return nil, false
	}
	var timeout <-chan time.Time
	for {
		e.tx.mu.Lock()
		held, any := e.heldWhere(keys, false)
		if !any {
			e.tx.mu.Unlock()
			return nil, false
		}
		if e.tx.changed == nil {
			e.tx.changed = make(chan struct{})
		}
		changed := e.tx.changed
		e.tx.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(txReadWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-changed:
		case <-timeout:
			return held, true
		}
	}
}

// lockStripes locks the stripe locks of keys in one global order (sorted,
// de-duplicated stripe indexes), so that transactions never deadlock with
// each other or with single-item writers; it returns the unlock function.
func (e *Engine) lockStripes(keys [][]byte) func() {
	idx := make([]int, 0, len(keys))
	for _, k := range keys {
		idx = append(idx, e.stripeOf(k))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		e.locks[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			e.locks[idx[j]].Unlock()
		}
	}
}

// stripeOf is the index in e.locks of a key's stripe (see lockFor).
func (e *Engine) stripeOf(key []byte) int {
	h := fnv.New32a()
	h.Write(key)
	return int(h.Sum32() % uint32(len(e.locks)))
}

// tokenEntry is one ClientRequestToken: the hash of the request it was
// first used with and, once finished, that request's output.
type tokenEntry struct {
	hash [32]byte
	done chan struct{}
	out  any
	err  error
}

type tokenExpiry struct {
	token string
	at    time.Time
}

// requestHash is the identity of a request for idempotency: its canonical
// JSON form.
func requestHash(in any) [32]byte {
	b, err := json.Marshal(in)
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(b)
}

// idempotent runs f once per ClientRequestToken within tokenTTL: a repeat
// of the same request gets replay(first outcome) without re-applying it, a
// different request with the same token gets
// IdempotentParameterMismatchException. Concurrent repeats wait for the
// first. Only successes are remembered; a failed request may be retried
// with its token.
func (e *Engine) idempotent(token *string, in any, f func() (any, error), replay func(first any) (any, error)) (any, error) {
	if token == nil {
		return f()
	}
	h := requestHash(in)
	for {
		e.tx.tokMu.Lock()
		e.pruneTokensLocked()
		ent, ok := e.tx.tokens[*token]
		if !ok {
			ent = &tokenEntry{hash: h, done: make(chan struct{})}
			if e.tx.tokens == nil {
				e.tx.tokens = make(map[string]*tokenEntry)
			}
			e.tx.tokens[*token] = ent
			e.tx.tokMu.Unlock()
			ent.out, ent.err = f()
			e.tx.tokMu.Lock()
			if ent.err != nil {
				delete(e.tx.tokens, *token)
			} else {
				e.tx.expiry = append(e.tx.expiry, tokenExpiry{*token, e.clock.Now().Add(tokenTTL)})
			}
			close(ent.done)
			e.tx.tokMu.Unlock()
			return ent.out, ent.err
		}
		e.tx.tokMu.Unlock()
		if ent.hash != h {
			return nil, ddberr.IdempotentParameterMismatch(msgTokenMismatch)
		}
		<-ent.done
		if ent.err == nil {
			return replay(ent.out)
		}
		// The first attempt failed and was forgotten: run again.
	}
}

// msgTokenMismatch is DynamoDB's IdempotentParameterMismatchException text.
const msgTokenMismatch = "Request parameters do not match the parameters of the original request with the same client token"

// pruneTokensLocked forgets tokens whose window has passed.
func (e *Engine) pruneTokensLocked() {
	now := e.clock.Now()
	n := 0
	for n < len(e.tx.expiry) && !now.Before(e.tx.expiry[n].at) {
		x := e.tx.expiry[n]
		if ent, ok := e.tx.tokens[x.token]; ok && isClosed(ent.done) {
			delete(e.tx.tokens, x.token)
		}
		n++
	}
	if n > 0 {
		e.tx.expiry = slices.Delete(e.tx.expiry, 0, n)
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
