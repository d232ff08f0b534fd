package attr

import (
	"bytes"
	"slices"
	"strings"
)

// Compare orders two values of the same scalar type: S bytewise by UTF-8,
// N numerically, B bytewise. ok is false when the values are not both S,
// both N or both B (DynamoDB's <, <=, >, >= and BETWEEN are then false).
func Compare(a, b Value) (c int, ok bool) {
	if a.T != b.T {
		return 0, false
	}
	switch a.T {
	case S:
		return strings.Compare(a.Str, b.Str), true
	case N:
		return CompareNumbers(a.Str, b.Str), true
	case B:
		return bytes.Compare(a.Bin, b.Bin), true
	}
	return 0, false
}

// Equal reports whether a and b are equal as DynamoDB's "=" sees them: same
// type and same value, numbers compared numerically, sets as sets
// (regardless of order), lists element by element, maps key by key.
func Equal(a, b Value) bool {
	if a.T != b.T {
		return false
	}
	switch a.T {
	case TypeNone, NULL:
		return true
	case S:
		return a.Str == b.Str
	case N:
		return a.Str == b.Str || CompareNumbers(a.Str, b.Str) == 0
	case B:
		return bytes.Equal(a.Bin, b.Bin)
	case BOOL:
		return a.Bool == b.Bool
	case SS:
		return sameStringSet(a.Strs, b.Strs, false)
	case NS:
		return sameStringSet(a.Strs, b.Strs, true)
	case BS:
		return sameBinarySet(a.Bins, b.Bins)
	case L:
		if len(a.List) != len(b.List) {
			return false
		}
		for i := range a.List {
			if !Equal(a.List[i], b.List[i]) {
				return false
			}
		}
		return true
	case M:
		if len(a.Map) != len(b.Map) {
			return false
		}
		for k, av := range a.Map {
			bv, ok := b.Map[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// ItemsEqual reports whether two items hold the same attributes with Equal
// values.
func ItemsEqual(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}

// canonOrSelf canonicalises a number text, leaving invalid text unchanged.
func canonOrSelf(s string) string {
	if c, err := CanonicalNumber(s); err == nil {
		return c
	}
	return s
}

// sameStringSet compares two sets (no duplicates within either) of strings
// or, when numeric, of number texts.
func sameStringSet(a, b []string, numeric bool) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) <= 8 {
		for _, x := range a {
			found := false
			for _, y := range b {
				if x == y || (numeric && CompareNumbers(x, y) == 0) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	set := make(map[string]struct{}, len(a))
	for _, x := range a {
		if numeric {
			x = canonOrSelf(x)
		}
		set[x] = struct{}{}
	}
	for _, y := range b {
		if numeric {
			y = canonOrSelf(y)
		}
		if _, ok := set[y]; !ok {
			return false
		}
	}
	return true
}

func sameBinarySet(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	set := make(map[string]struct{}, len(a))
	for _, x := range a {
		set[string(x)] = struct{}{}
	}
	for _, y := range b {
		if _, ok := set[string(y)]; !ok {
			return false
		}
	}
	return true
}

// SortSet puts a set's members in the order DynamoDB returns them: string
// and binary sets bytewise, number sets by value (GetItem in eu-west-2,
// 2026-10-09, as a public conformance suite records it; the empty string
// first). Other values are left alone.
func SortSet(v *Value) {
	switch v.T {
	case SS:
		slices.Sort(v.Strs)
	case NS:
		slices.SortFunc(v.Strs, CompareNumbers)
	case BS:
		slices.SortFunc(v.Bins, bytes.Compare)
	}
}
