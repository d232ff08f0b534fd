package transact

import (
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Cancellation reason codes (CancellationReason.Code).
const (
	ReasonNone       = "None"
	ReasonCondFailed = "ConditionalCheckFailed"
	ReasonConflict   = "TransactionConflict"
	ReasonValidation = "ValidationError"
	ReasonCollection = "ItemCollectionSizeLimitExceeded"
	ReasonDuplicate  = "DuplicateItem" // a PartiQL INSERT's key exists
)

// MsgConflict is DynamoDB's text when an item is held by an ongoing
// transaction (TransactionConflictException, and the TransactionConflict
// cancellation reason).
const MsgConflict = "Transaction is ongoing for the item"

// Canceled is TransactionCanceledException with DynamoDB's message
// listing the reason codes in request order.
func Canceled(reasons []wire.CancellationReason) error {
	var b strings.Builder
	b.WriteString("Transaction cancelled, please refer cancellation reasons for specific reasons [")
	for i, r := range reasons {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Code)
	}
	b.WriteByte(']')
	return ddberr.TransactionCanceled(b.String(), reasons)
}

// Reasons collects the cancellation reasons of a transaction's n actions:
// an action not Set is None. The zero Reasons has no reason yet.
type Reasons struct {
	n       int
	reasons []wire.CancellationReason
}

// NewReasons is Reasons for n actions.
func NewReasons(n int) Reasons { return Reasons{n: n} }

// Set gives action i its reason.
func (r *Reasons) Set(i int, reason wire.CancellationReason) {
	if r.reasons == nil {
		r.reasons = make([]wire.CancellationReason, r.n)
		for j := range r.reasons {
			r.reasons[j].Code = ReasonNone
		}
	}
	r.reasons[i] = reason
}

// Err is the cancellation, or nil when no action has a reason.
func (r *Reasons) Err() error {
	if r.reasons == nil {
		return nil
	}
	return Canceled(r.reasons)
}

// ActionsCancel cancels a transaction: reason code with msgs[i] for the
// actions that have a message, None for the others.
func ActionsCancel(code string, msgs []string) error {
	reasons := make([]wire.CancellationReason, len(msgs))
	for i, m := range msgs {
		reasons[i].Code = ReasonNone
		if m != "" {
			reasons[i] = wire.CancellationReason{Code: code, Message: &m}
		}
	}
	return Canceled(reasons)
}

// ValidationCancel is the cancellation for actions that failed a check
// DynamoDB reports as a reason rather than as a ValidationException
// (msgs[i] non-empty); the others are None.
func ValidationCancel(msgs []string) error {
	return ActionsCancel(ReasonValidation, msgs)
}

// ConflictCancel is the cancellation of a transaction whose items (those
// marked) another transaction holds.
func ConflictCancel(held []bool) error {
	msgs := make([]string, len(held))
	for i, h := range held {
		if h {
			msgs[i] = MsgConflict
		}
	}
	return ActionsCancel(ReasonConflict, msgs)
}

// Reason turns an action's failure into its cancellation reason; ok is
// false for errors that are not the action's fault (storage errors), which
// fail the request as they are.
func Reason(err error) (wire.CancellationReason, bool) {
	var de *ddberr.Error
	if !errors.As(err, &de) {
		return wire.CancellationReason{}, false
	}
	msg := de.Message
	switch de.Type {
	case "ConditionalCheckFailedException":
		r := wire.CancellationReason{Code: ReasonCondFailed, Message: &msg}
		if it, ok := de.Item.(attr.Item); ok {
			r.Item = it
		}
		return r, true
	case "ValidationException":
		msg = strings.TrimPrefix(msg, ddberr.Detected1)
		return wire.CancellationReason{Code: ReasonValidation, Message: &msg}, true
	case "TransactionConflictException":
		return wire.CancellationReason{Code: ReasonConflict, Message: &msg}, true
	case "ItemCollectionSizeLimitExceededException":
		return wire.CancellationReason{Code: ReasonCollection, Message: &msg}, true
	}
	return wire.CancellationReason{}, false
}

// Rewrite replaces, in a TransactionCanceledException, the reasons of the
// actions f rewrites (f returns the new reason and true), and rewords the
// message to match; any other error comes back as it is.
func Rewrite(err error, f func(i int, r wire.CancellationReason) (wire.CancellationReason, bool)) error {
	var de *ddberr.Error
	if !errors.As(err, &de) {
		return err
	}
	reasons, ok := de.CancellationReasons.([]wire.CancellationReason)
	if !ok {
		return err
	}
	for i, r := range reasons {
		if n, ok := f(i, r); ok {
			reasons[i] = n
		}
	}
	return Canceled(reasons)
}
