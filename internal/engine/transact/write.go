package transact

import (
	"context"
	"errors"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
)

// Transaction limits: actions (or Gets) per transaction, and the bytes of
// items they may carry (DynamoDB's 4 MB).
const (
	MaxItems = 100
	MaxBytes = 4 << 20
)

// Transaction messages.
//
// MsgTooLarge: ScyllaDB's Alternator tests, which are run against
// DynamoDB, match DynamoDB's answer to a 5 MB TransactWriteItems with
// "ValidationException.*size cannot exceed" and note that DynamoDB's
// messages call what is measured the "transaction payload" (a 5 MB
// Delete-only transaction, small as a request, is accepted). No recorded
// answer gives the whole text; this one holds both fragments.
const (
	MsgDuplicate = "Transaction request cannot include multiple operations on one item"
	MsgTooLarge  = "Transaction payload size cannot exceed 4 MB"
)

// Clock tells the time (the engine's, injectable).
type Clock interface{ Now() time.Time }

// State is the engine's transaction bookkeeping: the items in-flight
// write transactions hold (held.go) and the ClientRequestTokens of recent
// requests (tokens.go).
type State struct {
	clock  Clock
	held   held
	tokens tokens
	store  storage.Store // the store tokens are shared through (ShareTokens), or nil
}

// New is an empty State whose tokens expire by clock.
func New(clock Clock) *State { return &State{clock: clock} }

// Actions are a write transaction's actions as the core validates them,
// in request order.
type Actions interface {
	Len() int
	// Check runs the request-phase checks of action i, touching no table:
	// exactly one of Put, Update, Delete and ConditionCheck, its
	// expressions parsed and resolved.
	Check(i int) error
	// Resolve looks up action i's table and validates its key and values,
	// returning the storage key of its item and the bytes it carries (its
	// item or key). A failure made with Invalid is the action's
	// cancellation reason rather than the request's error.
	Resolve(i int) (key []byte, size int, err error)
}

// invalid is a validation failure DynamoDB reports as an action's
// cancellation reason (ValidationError) rather than as a
// ValidationException: a table or index key attribute of the wrong type
// (measured against DynamoDB by a public conformance suite, 2026).
type invalid struct{ msg string }

func (e *invalid) Error() string { return e.msg }

// Invalid makes err, a DynamoDB validation error, an action's
// cancellation reason (Actions.Resolve).
func Invalid(err error) error { return &invalid{msg: ddberr.As(err).Message} }

// Prepare validates a write transaction in DynamoDB's order: every
// action's request-phase checks first, then each action's table and key;
// two actions on one item and more than MaxBytes of items refuse the
// request; and only then does a key of the wrong type cancel the
// transaction (reason ValidationError on the first such action, None on
// the others; ScyllaDB's Alternator tests, which are run against
// DynamoDB). It returns the items' storage keys.
func Prepare(acts Actions) ([][]byte, error) {
	n := acts.Len()
	for i := range n {
		if err := acts.Check(i); err != nil {
			return nil, err
		}
	}
	keys := make([][]byte, n)
	var invalidMsgs []string
	seen := make(map[string]struct{}, n)
	dup, size := false, 0
	for i := range n {
		key, bytes, err := acts.Resolve(i)
		var bad *invalid
		switch {
		case errors.As(err, &bad):
			if invalidMsgs == nil {
				invalidMsgs = make([]string, n)
				invalidMsgs[i] = bad.msg
			}
			continue
		case err != nil:
			return nil, err
		}
		keys[i] = key
		if _, ok := seen[string(key)]; ok {
			dup = true
		}
		seen[string(key)] = struct{}{}
		size += bytes
	}
	if dup {
		return nil, ddberr.Validation(MsgDuplicate)
	}
	if size > MaxBytes {
		return nil, ddberr.Validation(MsgTooLarge)
	}
	if invalidMsgs != nil {
		return nil, ValidationCancel(invalidMsgs)
	}
	return keys, nil
}

// Write is one prepared write transaction as the core runs it: the core
// locks its items, stages its actions through its write path and
// commits.
type Write interface {
	// Lock locks the items at keys against the core's other writers, in
	// the core's one global order (so transactions never deadlock with
	// each other nor with single-item writers), and returns the unlock.
	Lock(keys [][]byte) (unlock func())
	// Begin starts one attempt inside one storage transaction.
	Begin() (Attempt, error)
	// Conflict is called when attempt number attempt failed on a storage
	// conflict: nil to try again, or the error that ends the transaction.
	Conflict(ctx context.Context, attempt int) error
}

// Attempt is one attempt at a write transaction.
type Attempt interface {
	// Stage reads action i's item through the attempt (so it joins the
	// attempt's conflict set), checks its condition and stages its write
	// and everything derived from it. An error that is the action's fault
	// is a DynamoDB error (its cancellation reason, Reason); any other
	// fails the transaction as it is.
	Stage(i int) error
	// Commit commits everything staged, once. It is called with the
	// items still locked (Write.Lock), so the core records what committed
	// there, before another writer of the items may run.
	Commit() error
	Rollback()
	// Txn is the attempt's storage transaction (Run records a shared
	// Token in it).
	Txn() storage.Txn
}

// Run executes a prepared write transaction whose items are at keys, all
// or nothing: it registers the items as held (a concurrent transaction on
// any of them cancels this one with TransactionConflict), locks them,
// stages every action in one attempt, evaluating every condition against
// that attempt's snapshot, and commits once. Any failed action cancels
// the whole transaction with TransactionCanceledException, reasons in
// request order. A storage conflict tries again, as w.Conflict allows.
// A non-nil tok (Idempotent's, with shared tokens) is recorded in the
// attempt's transaction before its actions are staged.
func (s *State) Run(ctx context.Context, w Write, keys [][]byte, tok *Token) error {
	if conflicts, ok := s.Hold(keys); !ok {
		return ConflictCancel(conflicts)
	}
	defer s.Release(keys)
	defer w.Lock(keys)()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			s.SetCommitting(keys, false) // preparing again
		}
		err := s.try(w, keys, tok)
		if !errors.Is(err, storage.ErrConflict) {
			return err
		}
		if err := w.Conflict(ctx, attempt); err != nil {
			return err
		}
	}
}

// try is one attempt of Run.
func (s *State) try(w Write, keys [][]byte, tok *Token) error {
	a, err := w.Begin()
	if err != nil {
		return err
	}
	defer a.Rollback()
	if tok != nil {
		if err := tok.stage(a.Txn(), s.clock.Now()); err != nil {
			return err
		}
	}
	reasons := NewReasons(len(keys))
	for i := range keys {
		err := a.Stage(i)
		if err == nil {
			continue
		}
		r, ok := Reason(err)
		if !ok {
			return err
		}
		reasons.Set(i, r)
	}
	if err := reasons.Err(); err != nil {
		return err
	}
	s.SetCommitting(keys, true)
	return a.Commit()
}
