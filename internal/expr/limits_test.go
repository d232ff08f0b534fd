package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

// The placeholders of a request may total 2 MB (keys, names and values
// together): exactly that is accepted, one byte more refused.
func TestSubstitutionLimit(t *testing.T) {
	const tooLarge = "error: 1 validation error detected: ExpressionAttributeNames and ExpressionAttributeValues size has exceeded the maximum allowed size"
	// ":v" (2) + a string of n bytes, and "#n" (2) + "name" (4).
	at := func(extra int) (map[string]string, attr.Item) {
		n := MaxSubstitutionSize - 2 - 6 + extra
		return map[string]string{"#n": "name"}, attr.Item{":v": {T: attr.S, Str: strings.Repeat("x", n)}}
	}
	names, values := at(0)
	if err := ValidateParams(names, values, true, true); err != nil {
		t.Errorf("2 MB of placeholders: %v", err)
	}
	names, values = at(1)
	if got := errText(ValidateParams(names, values, true, true)); got != tooLarge {
		t.Errorf("2 MB + 1 byte of placeholders: %s", got)
	}
	// Many small values count too, and the check comes first.
	many := attr.Item{}
	for i := range MaxSubstitutionSize / 8 {
		many[fmt.Sprintf(":%07d", i)] = attr.Value{T: attr.BOOL, Bool: true}
	}
	if got := errText(ValidateParams(nil, many, false, false)); got != tooLarge {
		t.Errorf("%d values of 9 bytes: %s", len(many), got)
	}
}

// An "unused in expressions" error names at most 100 placeholders, the
// first in sorted order, then "...".
func TestUnusedKeysCut(t *testing.T) {
	values := attr.Item{}
	var want []string
	for i := range 5000 {
		k := fmt.Sprintf(":v%04d", i)
		values[k] = attr.Value{T: attr.BOOL, Bool: true}
		if i < 100 {
			want = append(want, k)
		}
	}
	got := errText(NewParams(nil, values).CheckUnused())
	exp := "error: 1 validation error detected: Value provided in ExpressionAttributeValues unused in expressions: keys: {" + strings.Join(want, ", ") + ", ...}"
	if got != exp {
		t.Errorf("5,000 unused values: %.300s (%d bytes)", got, len(got))
	}
	names := map[string]string{"#a": "a", "#b": "b"}
	if got := errText(NewParams(names, nil).CheckUnused()); got != "error: 1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}" {
		t.Errorf("two unused names: %s", got)
	}
}
