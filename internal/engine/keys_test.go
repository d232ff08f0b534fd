package engine

import (
	"bytes"
	"slices"
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

// hashOrder sorts keys as a Scan returns them: by partition hash, then key.
func hashOrder(vals []attr.Value) []string {
	slices.SortStableFunc(vals, func(a, b attr.Value) int {
		return bytes.Compare(itemKey(1, a, attr.Value{}), itemKey(1, b, attr.Value{}))
	})
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v.Str
	}
	return out
}

// keyVals are string or number values.
func keyVals(t attr.Type, ss ...string) []attr.Value {
	out := make([]attr.Value, len(ss))
	for i, s := range ss {
		out[i] = attr.Value{T: t, Str: s}
	}
	return out
}

// TestScanOrderIsDynamoDBs checks the partition hash against the Scan
// orders observed on DynamoDB (keys.go names the sources).
func TestScanOrderIsDynamoDBs(t *testing.T) {
	strs := keyVals(attr.S, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "aardman", "hello", "zapf", "äáöü")
	wantS := []string{"2", "8", "9", "1", "6", "hello", "0", "5", "4", "äáöü", "aardman", "7", "3", "zapf"}
	if got := hashOrder(strs); !slices.Equal(got, wantS) {
		t.Errorf("string order %q, want %q", got, wantS)
	}
	nums := keyVals(attr.N, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-0.09", "999.9", "0.012345", "-999.9")
	wantN := []string{"7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1", "0", "0.012345", "5"}
	if got := hashOrder(nums); !slices.Equal(got, wantN) {
		t.Errorf("number order %q, want %q", got, wantN)
	}
	msgs := []attr.Value{{T: attr.S, Str: "msg2"}, {T: attr.S, Str: "msg1"}}
	if got := hashOrder(msgs); !slices.Equal(got, []string{"msg1", "msg2"}) {
		t.Errorf("msg order %q, want msg1 first", got)
	}
}
