package expr

import (
	"github.com/kura-db/kura/internal/ddberr"
)

// Kind names the request parameter an expression came from; it appears in
// every error message ("Invalid <Kind>: ...").
type Kind uint8

// The five expression kinds.
const (
	KindCondition Kind = iota
	KindFilter
	KindKeyCondition
	KindProjection
	KindUpdate
)

// String returns the request parameter name, e.g. "ConditionExpression".
func (k Kind) String() string {
	switch k {
	case KindCondition:
		return "ConditionExpression"
	case KindFilter:
		return "FilterExpression"
	case KindKeyCondition:
		return "KeyConditionExpression"
	case KindProjection:
		return "ProjectionExpression"
	case KindUpdate:
		return "UpdateExpression"
	}
	return "Expression"
}

// Limits DynamoDB places on expressions.
const (
	// MaxExpressionBytes is the longest expression string accepted.
	MaxExpressionBytes = 4096
	// MaxDepth caps parser recursion (parentheses, NOT, nested function
	// calls). An expression of MaxExpressionBytes cannot nest deeper than
	// half its length, so this only bounds the parser's own work; what
	// DynamoDB refuses in deep expressions is their operators (a condition
	// nested 149 deep with 299 operators is accepted; MaxOperators).
	MaxDepth = MaxExpressionBytes / 2
	// MaxOperators is the most comparators, BETWEEN, IN, AND, OR and NOT
	// a condition may hold ("operator count: 301" beyond it); parentheses
	// and function calls do not count.
	MaxOperators = 300
	// MaxPathElems caps the number of elements of one document path
	// (DynamoDB's documented nesting limit is 32 levels).
	MaxPathElems = 32
	// MaxInOperands is the most operands the IN comparator accepts.
	MaxInOperands = 100
)

// requestErr is a request-phase error about an expression of kind k.
func requestErr(k Kind, format string, args ...any) *ddberr.Error {
	return ddberr.RequestInvalidf("Invalid "+k.String()+": "+format, args...)
}
