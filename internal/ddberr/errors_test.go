package ddberr

import (
	"errors"
	"testing"
)

func TestMessageKey(t *testing.T) {
	cases := []struct {
		e    *Error
		want string
	}{
		{Serialization("x"), "Message"},
		{Serialization(""), "Message"},
		{Validation("x"), "message"},
		{TransactionCanceled("Transaction cancelled", []string{"None"}), "Message"},
		{ConditionalCheckFailed(), "message"},
		{&Error{Namespace: nsDynamo, Type: "ConditionalCheckFailedException", Item: map[string]any{}}, "message"},
		{IdempotentParameterMismatch("x"), "Message"},
		{TransactionConflict("x"), "message"},
		{UnknownOperation(), "message"},
		{ResourceNotFound("x"), "message"},
		{Internal("x"), "message"},
		// Only coral's own SerializationException is spelt differently.
		{&Error{Namespace: nsDynamo, Type: "SerializationException"}, "message"},
	}
	for _, c := range cases {
		if got := c.e.MessageKey(); got != c.want {
			t.Errorf("%s: %q, want %q", c.e.FullType(), got, c.want)
		}
	}
}

func TestRequestTooLargeHasNoType(t *testing.T) {
	var e *Error
	if errors.As(ErrRequestTooLarge, &e) {
		t.Fatalf("ErrRequestTooLarge is an *Error (%s); DynamoDB sends 413 with no __type", e.FullType())
	}
}
