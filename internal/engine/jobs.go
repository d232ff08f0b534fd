package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
)

// jobRecord is the stored record of a background job (an export, an
// import): named by its ARN, started at a time, maybe with a ClientToken.
type jobRecord interface {
	jobARN() string
	jobStart() time.Time
	jobToken() string
}

// jobLog keeps the records of one kind of job by ARN, in the order they
// started, each stored as JSON under prefix+ARN in the engine's metadata
// ("m" keys). T is the record type, P its pointer.
type jobLog[T any, P interface {
	*T
	jobRecord
}] struct {
	prefix string
	mu     sync.Mutex
	byID   map[string]P
	all    []string // ARNs, oldest first
}

// save stores rec durably, then keeps a copy of it (rec may share
// pointers with a request, or go on changing in a running job).
func (l *jobLog[T, P]) save(e *Engine, rec P) error {
	v, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	arn := rec.jobARN()
	if err := e.commit(true, func(txn storage.Txn) error { return txn.Set([]byte(l.prefix+arn), v) }); err != nil {
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

// load reads the stored records (at Open) and returns them, oldest first.
func (l *jobLog[T, P]) load(e *Engine) ([]P, error) {
	var recs []P
	err := e.loadMeta([]byte(l.prefix), func(v []byte) error {
		r := P(new(T))
		if err := json.Unmarshal(v, r); err != nil {
			return err
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("engine: %s records: %w", l.prefix, err)
	}
	slices.SortFunc(recs, func(a, b P) int { return a.jobStart().Compare(b.jobStart()) })
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byID = map[string]P{}
	for _, r := range recs {
		l.byID[r.jobARN()] = r
		l.all = append(l.all, r.jobARN())
	}
	return recs, nil
}

// get is the record of arn (not to be changed: save a copy instead).
func (l *jobLog[T, P]) get(arn string) (P, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.byID[arn]
	return r, ok
}

// withToken is the first record started with this ClientToken (of those
// live accepts, when it is not nil: a token may name a job for a while
// only).
func (l *jobLog[T, P]) withToken(token string, live func(P) bool) (P, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, arn := range l.all {
		if r := l.byID[arn]; r.jobToken() == token && (live == nil || live(r)) {
			return r, true
		}
	}
	return nil, false
}

// page is up to limit records that keep accepts, after the record whose
// ARN is next ("": from the first); the returned token is the last ARN
// of the page when more may follow.
func (l *jobLog[T, P]) page(next string, limit int, keep func(P) bool) ([]P, string, error) {
	return l.pageIn(false, next, limit, keep)
}

// pageIn is page, newest first when newestFirst.
func (l *jobLog[T, P]) pageIn(newestFirst bool, next string, limit int, keep func(P) bool) ([]P, string, error) {
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
			return out, out[limit-1].jobARN(), nil
		}
		out = append(out, r)
	}
	return out, "", nil
}

// loadMeta hands fn the value of every key under prefix.
func (e *Engine) loadMeta(prefix []byte, fn func(v []byte) error) error {
	snap, err := e.store.NewSnapshot()
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

// jobContext is the context of a background job's S3 requests: cancelled
// when the engine closes (the job runs again at the next start).
func (e *Engine) jobContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-e.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// jobFailure is the FailureCode and FailureMessage of a job that could
// not read or write its S3 objects: S3's error code with "S3" before it,
// and S3's text with where it came from, as DynamoDB reports them (its
// developer guide's S3NoSuchBucket example; moto's AWS-verified
// test_import_from_missing_s3_table).
func jobFailure(err error) (code, msg string) {
	msg = err.Error()
	var se *objstore.Error
	if errors.As(err, &se) {
		msg = se.Describe()
	}
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket):
		code = "S3NoSuchBucket"
		if se == nil {
			msg = objstore.ErrNoSuchBucket.Error()
		}
	case errors.Is(err, objstore.ErrAccessDenied):
		code = "S3AccessDenied"
		if se == nil {
			msg = objstore.ErrAccessDenied.Error()
		}
	case errors.Is(err, objstore.ErrInvalidKey):
		code = "S3InvalidKey"
	default:
		code = "UNKNOWN"
	}
	return code, msg
}
