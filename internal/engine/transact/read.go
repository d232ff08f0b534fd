package transact

import (
	"errors"

	"github.com/kura-db/kura/internal/ddberr"
)

// Gets are a read transaction's Gets as the core validates them, in
// request order.
type Gets interface {
	Len() int
	// Check runs the request-phase checks of Get i, touching no table:
	// there is a Get, and its projection parses.
	Check(i int) error
	// Resolve looks up Get i's table and validates its key and projection,
	// returning the storage key of its item. A key that does not match the
	// schema, made with Invalid, cancels the transaction rather than
	// failing the request.
	Resolve(i int) ([]byte, error)
}

// PrepareGets validates a read transaction in DynamoDB's order: every
// Get's request-phase checks first, then each Get's table and key, in
// request order, refusing an item read twice as soon as it is seen; and
// only then do keys that do not match their schema cancel the transaction
// (reason ValidationError on each such Get, None on the others). It
// returns the items' storage keys.
func PrepareGets(gets Gets) ([][]byte, error) {
	n := gets.Len()
	for i := range n {
		if err := gets.Check(i); err != nil {
			return nil, err
		}
	}
	keys := make([][]byte, n)
	seen := make(map[string]struct{}, n)
	var invalidMsgs []string
	for i := range n {
		key, err := gets.Resolve(i)
		var bad *invalid
		if errors.As(err, &bad) {
			if invalidMsgs == nil {
				invalidMsgs = make([]string, n)
			}
			invalidMsgs[i] = bad.msg
			continue
		}
		if err != nil {
			return nil, err
		}
		if _, dup := seen[string(key)]; dup {
			return nil, ddberr.Validation(MsgDuplicate)
		}
		seen[string(key)] = struct{}{}
		keys[i] = key
	}
	if invalidMsgs != nil {
		return nil, ValidationCancel(invalidMsgs)
	}
	return keys, nil
}

// CheckReadSize refuses a read transaction whose items add up to more
// than MaxBytes, as DynamoDB does ("The aggregate size of the items in the
// transaction cannot exceed 4 MB", TransactGetItems API reference): size
// is the items' measured whole, as stored, before any projection. The
// text is the write transactions' (MsgTooLarge); no DynamoDB answer
// recording the read side's text was found.
func CheckReadSize(size int) error {
	if size > MaxBytes {
		return ddberr.Validation(MsgTooLarge)
	}
	return nil
}

// CheckReads cancels a read transaction of the items at keys when a
// write transaction holds any of them and is still preparing after
// ReadWait (Preparing): reason TransactionConflict on those items.
func (s *State) CheckReads(keys [][]byte) error {
	if held, any := s.Preparing(keys); any {
		return ConflictCancel(held)
	}
	return nil
}
