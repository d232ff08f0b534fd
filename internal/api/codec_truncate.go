package api

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"

	"github.com/kura-db/kura/internal/wire"
)

// Each fractional integer costs one more decode of the body (the refused
// path only), so a request may carry at most maxTruncations of them and
// the bodies decoded again may total at most truncationBudget bytes: a
// hostile body cannot multiply its decoding cost. Requests with integer
// members (table control, Query, Scan, ...) are small.
const (
	maxTruncations   = 32
	truncationBudget = 8 << 20
)

// mayTruncate reports whether the n+1th decode of a body of size bytes is
// within the limits above.
func mayTruncate(n, size int) bool {
	return n < maxTruncations && (n+1)*size <= truncationBudget
}

// truncateFraction returns body with the number that err refused rewritten
// as its integer part, when err is a fractional (or exponent-written) number
// given for an integer member of in and that integer part fits the member.
// DynamoDB's deserialiser reads numbers as truncating big numbers: a
// CreateTable Dimensions of 6.7 is taken as 6 (ScyllaDB's Alternator tests,
// run against DynamoDB), and dynalite 4.0.0's type tests, re-checked
// against AWS, list no fractional value among the refused Integer and Long
// inputs. SearchVectors is read by a stricter deserialiser that refuses a
// fractional TopK (the same Alternator tests), so its input is left alone.
func truncateFraction(err error, body []byte, in any) ([]byte, bool) {
	if _, strict := in.(*wire.SearchVectorsInput); strict {
		return nil, false
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil || !strings.HasPrefix(te.Value, "number") {
		return nil, false
	}
	var bits int
	switch k := deref(te.Type).Kind(); k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits = deref(te.Type).Bits()
	default:
		return nil, false
	}
	end := int(te.Offset)
	if end <= 0 || end > len(body) {
		return nil, false
	}
	start := end
	for start > 0 && strings.IndexByte("+-0123456789.eE", body[start-1]) >= 0 {
		start--
	}
	n, ok := integerPart(string(body[start:end]), bits)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(body))
	out = append(out, body[:start]...)
	out = n.Append(out, 10)
	return append(out, body[end:]...), true
}

// integerPart is lit's value truncated toward zero, when it fits a signed
// integer of the given bits. Parsing rounds toward zero too, so a literal
// with more digits than the precision never rounds up to the next integer.
func integerPart(lit string, bits int) (*big.Int, bool) {
	f, _, err := big.ParseFloat(lit, 10, 256, big.ToZero)
	if err != nil || f.IsInf() {
		return nil, false
	}
	n, _ := f.Int(nil)
	limit := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	if n.Cmp(limit) >= 0 || n.Cmp(limit.Neg(limit)) < 0 {
		return nil, false
	}
	return n, true
}
