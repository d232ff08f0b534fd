package jobs

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
)

// Record is the stored record of a background job (an export, an import,
// a bulk operation): named by its ARN, started at a time, maybe with a
// ClientToken.
type Record interface {
	JobARN() string
	JobStart() time.Time
	JobToken() string
}

// Log keeps the records of one kind of job by ARN, in the order they
// started, each stored as JSON under prefix+ARN. T is the record type, P
// its pointer. The zero Log is empty; Load gives it its store.
type Log[T any, P interface {
	*T
	Record
}] struct {
	store  storage.Store
	prefix string
	mu     sync.Mutex
	byID   map[string]P
	all    []string // ARNs, oldest first
	runs   *Runs    // fences the saves of the jobs running here (nil: none)
	// shared: other nodes save records too (cluster mode), so the
	// answers (Find, Page, WithToken) read the records again first.
	shared bool
	// saving is held shared by each Save and exclusively by Reload, so
	// that Reload never puts back a record older than one saved meanwhile.
	saving sync.RWMutex
}

// LoadRuns is Load for a log whose jobs run under claims: runs claims
// each run with claim (nil: none) and then checks that the job's stored
// record still asks for a run (live), and every Save of a running job's
// record is fenced by its claim (FenceWith).
func (l *Log[T, P]) LoadRuns(store storage.Store, prefix string, runs *Runs, claim Claimer, live func(P) bool) ([]P, error) {
	runs.SetClaimer(claim, func(arn string) bool {
		r, ok := l.Stored(arn)
		return ok && live(r)
	})
	l.FenceWith(runs)
	return l.Load(store, prefix)
}

// Share says that other nodes save records to the same store: Find,
// Page and WithToken read the records again before they answer.
func (l *Log[T, P]) Share() { l.shared = true }

// refresh reads the records again when they are shared.
func (l *Log[T, P]) refresh() error {
	if !l.shared {
		return nil
	}
	_, err := l.Reload()
	return err
}

// FenceWith makes every Save of a record whose job runs here (in runs)
// check the job's claim in the same transaction, so that a node that lost
// a job to another cannot overwrite its record.
func (l *Log[T, P]) FenceWith(runs *Runs) { l.runs = runs }

// Reload reads the records from the store again (another node may have
// started or changed some) and returns them, oldest first; the copies in
// memory of jobs not running here are replaced.
func (l *Log[T, P]) Reload() ([]P, error) {
	l.saving.Lock()
	defer l.saving.Unlock()
	recs, err := l.read(l.store, l.prefix)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range recs {
		arn := r.JobARN()
		if _, known := l.byID[arn]; !known {
			l.all = append(l.all, arn)
		} else if l.runs != nil && l.runs.Running(arn) {
			continue
		}
		l.byID[arn] = r
	}
	slices.SortStableFunc(l.all, func(a, b string) int { return l.byID[a].JobStart().Compare(l.byID[b].JobStart()) })
	return recs, nil
}

// Load reads the records stored under prefix in store (at Open) and
// returns them, oldest first; later Saves go to store under prefix.
func (l *Log[T, P]) Load(store storage.Store, prefix string) ([]P, error) {
	l.store, l.prefix = store, prefix
	recs, err := l.read(store, prefix)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byID = map[string]P{}
	for _, r := range recs {
		l.byID[r.JobARN()] = r
		l.all = append(l.all, r.JobARN())
	}
	return recs, nil
}

// read reads the records stored under prefix, oldest first.
func (l *Log[T, P]) read(store storage.Store, prefix string) ([]P, error) {
	var recs []P
	err := ReadAll(store, []byte(prefix), func(v []byte) error {
		r := P(new(T))
		if err := json.Unmarshal(v, r); err != nil {
			return err
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("engine: %s records: %w", prefix, err)
	}
	slices.SortFunc(recs, func(a, b P) int { return a.JobStart().Compare(b.JobStart()) })
	return recs, nil
}

// Save stores rec durably, then keeps a copy of it (rec may share
// pointers with a request, or go on changing in a running job).
func (l *Log[T, P]) Save(rec P) error { return l.SaveWith(rec, nil) }

// SaveWith is Save that first hands merge (nil: none) the record as
// stored now, inside the transaction that stores rec: merge may change
// rec (another node may have saved the record meanwhile: a
// cancellation), or refuse the save with an error. A conflict with
// another node's save runs it again.
func (l *Log[T, P]) SaveWith(rec P, merge func(stored P) error) error {
	arn := rec.JobARN()
	l.saving.RLock()
	defer l.saving.RUnlock()
	var v []byte
	err := commitRetry(l.store, func(txn storage.Txn) error {
		if l.runs != nil {
			if err := l.runs.fence(arn, txn); err != nil {
				return err
			}
		}
		if merge != nil {
			if err := mergeStored(txn, []byte(l.prefix+arn), merge); err != nil {
				return err
			}
		}
		var err error
		if v, err = json.Marshal(rec); err != nil {
			return err
		}
		return txn.Set([]byte(l.prefix+arn), v)
	})
	if err != nil {
		return err
	}
	c := P(new(T))
	if err := json.Unmarshal(v, c); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byID == nil {
		l.byID = map[string]P{}
	}
	if _, known := l.byID[arn]; !known {
		l.all = append(l.all, arn)
	}
	l.byID[arn] = c
	return nil
}

// mergeStored hands merge the record stored under key in txn, if any.
func mergeStored[T any, P interface {
	*T
	Record
}](txn storage.Txn, key []byte, merge func(P) error) error {
	old, err := txn.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	stored := P(new(T))
	if err := json.Unmarshal(old, stored); err != nil {
		return err
	}
	return merge(stored)
}

// commitRetry runs f in a durable transaction of store, again (a few
// times) when it conflicts with another writer.
func commitRetry(store storage.Store, f func(storage.Txn) error) error {
	var err error
	for range 5 {
		if err = commitOnce(store, f); !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return err
}

func commitOnce(store storage.Store, f func(storage.Txn) error) error {
	txn, err := store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := f(txn); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
}

// Set sets key to v in one durable transaction.
func Set(store storage.Store, key, v []byte) error {
	return commitOnce(store, func(txn storage.Txn) error { return txn.Set(key, v) })
}

// Stored is the record of arn as the store holds it now (another node
// may have saved it); false when there is none or it cannot be read.
func (l *Log[T, P]) Stored(arn string) (P, bool) {
	snap, err := l.store.NewSnapshot()
	if err != nil {
		return nil, false
	}
	defer snap.Close()
	v, err := snap.Get([]byte(l.prefix + arn))
	if err != nil {
		return nil, false
	}
	r := P(new(T))
	if json.Unmarshal(v, r) != nil {
		return nil, false
	}
	return r, true
}

// Get is the record of arn (not to be changed: save a copy instead).
func (l *Log[T, P]) Get(arn string) (P, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.byID[arn]
	return r, ok
}

// WithToken is the first record started with this ClientToken (of those
// live accepts, when it is not nil: a token may name a job for a while
// only).
func (l *Log[T, P]) WithToken(token string, live func(P) bool) (P, bool) {
	_ = l.refresh() // on failure: the records as last read
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, arn := range l.all {
		if r := l.byID[arn]; r.JobToken() == token && (live == nil || live(r)) {
			return r, true
		}
	}
	return nil, false
}

// Page is up to limit records that keep accepts, after the record whose
// ARN is next ("": from the first), oldest first or, with newestFirst,
// newest first; the returned token is the last ARN of the page when more
// may follow. An unknown next is DynamoDB's "Invalid NextToken".
func (l *Log[T, P]) Page(newestFirst bool, next string, limit int, keep func(P) bool) ([]P, string, error) {
	if err := l.refresh(); err != nil {
		return nil, "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	all := l.all
	if newestFirst {
		all = slices.Clone(all)
		slices.Reverse(all)
	}
	start := 0
	if next != "" {
		i := slices.Index(all, next)
		if i < 0 {
			return nil, "", ddberr.Validation("Invalid NextToken")
		}
		start = i + 1
	}
	var out []P
	for _, arn := range all[start:] {
		r := l.byID[arn]
		if !keep(r) {
			continue
		}
		if len(out) == limit {
			return out, out[limit-1].JobARN(), nil
		}
		out = append(out, r)
	}
	return out, "", nil
}

// ReadAll hands fn the value of every key under prefix, as one snapshot
// of store holds them.
func ReadAll(store storage.Store, prefix []byte, fn func(v []byte) error) error {
	snap, err := store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: prefix, Upper: append(prefix[:len(prefix):len(prefix)], 0xff)})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		if err := fn(it.Value()); err != nil {
			return fmt.Errorf("%q: %w", it.Key(), err)
		}
	}
	return it.Err()
}

// Find is the record of arn, or notFound(arn) when there is none (each
// kind of job names a missing one in its own words).
func (l *Log[T, P]) Find(arn string, notFound func(arn string) error) (P, error) {
	if err := l.refresh(); err != nil {
		return nil, err
	}
	if r, ok := l.Get(arn); ok {
		return r, nil
	}
	return nil, notFound(arn)
}

// NewARN names a new job of kind ("export", "import", "bulk-operation")
// on table, started at `at`, as DynamoDB shapes them: the table's ARN,
// "/<kind>/", the start in milliseconds (14 digits) and eight random hex
// digits.
func NewARN(region, account, table, kind string, at time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/%s/%014d-%x", region, account, table, kind, at.UnixMilli(), r)
}
