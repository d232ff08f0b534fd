package wire

import "github.com/kura-db/kura/internal/attr"

// CancellationReason is one entry of a TransactionCanceledException's
// CancellationReasons list (an error shape, so not in types_gen.go): Code
// "None" for an action that did not cause the cancellation, otherwise
// ConditionalCheckFailed, TransactionConflict, ValidationError, ... with
// DynamoDB's Message, and the item when ReturnValuesOnConditionCheckFailure
// is ALL_OLD.
type CancellationReason struct {
	Code    string    `json:"Code,omitempty"`
	Item    attr.Item `json:"Item,omitempty"`
	Message *string   `json:"Message,omitempty"`
}
