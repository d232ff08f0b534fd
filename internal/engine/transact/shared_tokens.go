package transact

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
)

// Tokens shared by the nodes of a store (cluster mode, ShareTokens): a
// write transaction with a ClientRequestToken records the token in the
// store inside its own commit, so a repeat sent to any node within
// TokenTTL finds it, and two nodes racing with one token conflict in the
// store and only one commits.
//
// Key layout: TokenPrefix + the token → the record: the expiry (Unix
// nanoseconds on the clock of the node that committed it, 8 bytes
// big-endian) and the request's hash (32 bytes, requestHash). Only
// successes are recorded: a failed transaction commits nothing. An
// expired record is ignored by the lookups and overwritten by the next
// transaction with its token; SweepTokens deletes the expired ones.

// TokenPrefix is the key prefix of the shared token records.
const TokenPrefix = "mtxtok/"

// SweepEvery is how often the node holding the token sweep's lease deletes
// expired token records.
const SweepEvery = time.Minute

// sweepBatch bounds the records one sweep transaction deletes.
const sweepBatch = 256

// ShareTokens makes the ClientRequestTokens of this State shared with
// every other node on store (cluster mode). Open calls it before serving.
func (s *State) ShareTokens(store storage.Store) { s.store = store }

// Token is a ClientRequestToken a write transaction records in its
// commit (Run): nil unless tokens are shared.
type Token struct {
	key     []byte
	hash    [32]byte
	expires time.Time
}

// tokenRecord is a token record as stored.
type tokenRecord struct {
	expires time.Time
	hash    [32]byte
}

func tokenKey(token string) []byte { return append([]byte(TokenPrefix), token...) }

func (r tokenRecord) encode() []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 40), uint64(r.expires.UnixNano()))
	return append(b, r.hash[:]...)
}

func decodeRecord(v []byte) (tokenRecord, bool) {
	if len(v) != 40 {
		return tokenRecord{}, false
	}
	r := tokenRecord{expires: time.Unix(0, int64(binary.BigEndian.Uint64(v)))}
	copy(r.hash[:], v[8:])
	return r, true
}

func (r tokenRecord) live(now time.Time) bool { return now.Before(r.expires) }

// errElsewhere is the outcome of a repeat whose first request committed
// through another node: replay it without its first output.
var errElsewhere = errors.New("transact: the token's request was applied through another node")

// outcome is what a request with hash h gets when r, live, holds its
// token: a replay of the same request, or DynamoDB's mismatch.
func (r tokenRecord) outcome(h [32]byte) error {
	if r.hash != h {
		return ddberr.IdempotentParameterMismatch(MsgTokenMismatch)
	}
	return errElsewhere
}

// takenError is Token.stage's finding that another node committed the
// token since the lookup.
type takenError struct{ rec tokenRecord }

func (e *takenError) Error() string { return "transact: token committed meanwhile" }

// first runs the first request with token on this node. With shared
// tokens it looks the token up in the store first: a live record answers
// (errElsewhere, or the mismatch) without running f; otherwise f runs with
// the Token to record in its commit, and a record another node committed
// meanwhile (found by Token.stage) answers the same way.
func (s *State) first(token string, h [32]byte, f func(*Token) (any, error)) (any, error) {
	if s.store == nil {
		return f(nil)
	}
	key := tokenKey(token)
	rec, ok, err := s.lookupToken(key)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	if ok && rec.live(now) {
		return nil, rec.outcome(h)
	}
	out, err := f(&Token{key: key, hash: h, expires: now.Add(TokenTTL)})
	var taken *takenError
	if errors.As(err, &taken) {
		return nil, taken.rec.outcome(h)
	}
	return out, err
}

// lookupToken reads the record at key from the store's latest committed
// state.
func (s *State) lookupToken(key []byte) (tokenRecord, bool, error) {
	var v []byte
	var err error
	if p, ok := s.store.(storage.PointReader); ok {
		v, err = p.Get(key)
	} else {
		var snap storage.Snapshot
		if snap, err = s.store.NewSnapshot(); err != nil {
			return tokenRecord{}, false, err
		}
		v, err = snap.Get(key)
		snap.Close()
	}
	if errors.Is(err, storage.ErrNotFound) {
		return tokenRecord{}, false, nil
	}
	if err != nil {
		return tokenRecord{}, false, err
	}
	rec, ok := decodeRecord(v)
	return rec, ok, nil
}

// stage records t in txn, an attempt's transaction, before the attempt
// stages its actions: it reads the record with Get (so another node
// committing the token before this commit makes it conflict) and, when a
// live one is there, fails with takenError instead.
func (t *Token) stage(txn storage.Txn, now time.Time) error {
	v, err := txn.Get(t.key)
	switch {
	case err == nil:
		if rec, ok := decodeRecord(v); ok && rec.live(now) {
			return &takenError{rec}
		}
	case !errors.Is(err, storage.ErrNotFound):
		return err
	}
	return txn.Set(t.key, tokenRecord{expires: t.expires, hash: t.hash}.encode())
}

// SweepTokens deletes the shared token records that expired, a batch per
// transaction; each transaction reads what it deletes, so a record a
// transaction rewrote meanwhile makes it conflict and stay (the next
// sweep looks again). A no-op unless tokens are shared.
func (s *State) SweepTokens() error {
	if s.store == nil {
		return nil
	}
	lower := []byte(TokenPrefix)
	upper := append([]byte(TokenPrefix[:len(TokenPrefix)-1]), TokenPrefix[len(TokenPrefix)-1]+1)
	for {
		expired, next, err := s.expiredTokens(lower, upper)
		if err != nil {
			return err
		}
		if err := s.deleteExpired(expired); err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
		if next == nil {
			return nil
		}
		lower = next
	}
}

// expiredTokens lists up to sweepBatch expired records from lower, and
// the key to go on from (nil at the end).
func (s *State) expiredTokens(lower, upper []byte) (keys [][]byte, next []byte, err error) {
	snap, err := s.store.NewSnapshot()
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	now := s.clock.Now()
	for it.Next() {
		if len(keys) == sweepBatch {
			return keys, bytes.Clone(it.Key()), it.Err()
		}
		if rec, ok := decodeRecord(it.Value()); !ok || !rec.live(now) {
			keys = append(keys, bytes.Clone(it.Key()))
		}
	}
	return keys, nil, it.Err()
}

// deleteExpired deletes the records at keys that are still expired, in
// one transaction.
func (s *State) deleteExpired(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	txn, err := s.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	now := s.clock.Now()
	for _, k := range keys {
		v, err := txn.Get(k)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if rec, ok := decodeRecord(v); ok && rec.live(now) {
			continue
		}
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return txn.Commit(storage.CommitOptions{})
}
