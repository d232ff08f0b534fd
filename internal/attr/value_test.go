package attr

import (
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
)

func TestValidateKeyValue(t *testing.T) {
	cases := []struct {
		v      Value
		want   Type
		isHash bool
		msg    string // "" = valid
	}{
		{Value{T: S, Str: "a"}, S, true, ""},
		{Value{T: N, Str: "5"}, S, true, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{Value{T: L}, S, true, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: L"},
		{Value{T: S}, S, true, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{Value{T: B}, B, false, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: pk"},
		{Value{T: S, Str: strings.Repeat("a", 2048)}, S, true, ""},
		{Value{T: S, Str: strings.Repeat("a", 2049)}, S, true, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{Value{T: B, Bin: make([]byte, 1024)}, B, false, ""},
		{Value{T: S, Str: strings.Repeat("a", 1025)}, S, false, "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
		{Value{T: N, Str: "1" + zeros(125)}, N, false, ""},
	}
	for i, c := range cases {
		err := ValidateKeyValue("pk", c.v, c.want, c.isHash)
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%d: unexpected %v", i, err)
		case c.msg != "":
			de, ok := err.(*ddberr.Error)
			if !ok || de.Message != c.msg {
				t.Errorf("%d: got %v want %q", i, err, c.msg)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	p := ddberr.Detected1 + "One or more parameter values were invalid: "
	cases := []struct {
		v   Value
		msg string
	}{
		{Value{T: S}, ""},
		{Value{}, ddberr.Detected1 + msgEmptyValue},
		{Value{T: N, Str: "x"}, ddberr.Detected1 + "The parameter cannot be converted to a numeric value: x"},
		{Value{T: SS}, p + "An string set  may not be empty"},
		{Value{T: NS, Strs: []string{"1", "1.00"}}, ddberr.Detected1 + "One or more parameter values were invalid: Input collection contains duplicates."},
		{Value{T: BS, Bins: [][]byte{{1}, {1}}}, p + `Input collection ["AQ==","AQ=="]of type BS contains duplicates.`},
		{Value{T: M, Map: map[string]Value{"a": {T: SS, Strs: []string{"x", "x"}}}}, p + `Input collection ["x", "x"] contains duplicates.`},
	}
	for i, c := range cases {
		err := Validate(c.v)
		if (err == nil) != (c.msg == "") || (err != nil && err.(*ddberr.Error).Message != c.msg) {
			t.Errorf("%d: got %v want %q", i, err, c.msg)
		}
	}
	ns := []string{"1.0", "2"}
	if err := Validate(Value{T: NS, Strs: ns}); err != nil || ns[0] != "1.0" {
		t.Errorf("Validate modified its input or failed: %v %v", ns, err)
	}
	if err := ValidateItem(Item{"a": {T: S}, "b": {T: NULL}}); err != nil {
		t.Error(err)
	}
	big := make([]string, 20)
	for i := range big {
		big[i] = strings.Repeat("x", i%19+1)
	}
	if err := Validate(Value{T: SS, Strs: big}); err == nil {
		t.Error("duplicate in large set not found")
	}
}

func TestCompareEqual(t *testing.T) {
	n := func(s string) Value { return Value{T: N, Str: s} }
	s := func(x string) Value { return Value{T: S, Str: x} }
	b := func(x ...byte) Value { return Value{T: B, Bin: x} }
	cmp := []struct {
		a, b Value
		c    int
		ok   bool
	}{
		{s("a"), s("b"), -1, true}, {s("b"), s("a"), 1, true}, {s("é"), s("z"), 1, true},
		{n("10"), n("9"), 1, true}, {n("-1"), n("0.5"), -1, true}, {n("1.0"), n("1"), 0, true},
		{b(1), b(1, 0), -1, true}, {b(2), b(1, 9), 1, true},
		{s("1"), n("1"), 0, false}, {Value{T: BOOL}, Value{T: BOOL}, 0, false},
	}
	for _, c := range cmp {
		got, ok := Compare(c.a, c.b)
		if got != c.c || ok != c.ok {
			t.Errorf("Compare(%v,%v) = %d,%v", c.a, c.b, got, ok)
		}
	}
	eq := []struct {
		a, b Value
		eq   bool
	}{
		{n("1"), n("1.00"), true},
		{Value{T: SS, Strs: []string{"a", "b"}}, Value{T: SS, Strs: []string{"b", "a"}}, true},
		{Value{T: SS, Strs: []string{"a", "b"}}, Value{T: SS, Strs: []string{"a", "c"}}, false},
		{Value{T: NS, Strs: []string{"1", "2.0"}}, Value{T: NS, Strs: []string{"2", "1"}}, true},
		{Value{T: BS, Bins: [][]byte{{1}, {2}}}, Value{T: BS, Bins: [][]byte{{2}, {1}}}, true},
		{Value{T: L, List: []Value{s("a"), n("1")}}, Value{T: L, List: []Value{s("a"), n("1.0")}}, true},
		{Value{T: L, List: []Value{s("a"), n("1")}}, Value{T: L, List: []Value{n("1"), s("a")}}, false},
		{Value{T: M, Map: map[string]Value{"x": n("1")}}, Value{T: M, Map: map[string]Value{"x": n("1")}}, true},
		{Value{T: M, Map: map[string]Value{"x": n("1")}}, Value{T: M, Map: map[string]Value{"y": n("1")}}, false},
		{Value{T: NULL}, Value{T: NULL}, true},
		{Value{T: BOOL, Bool: true}, Value{T: BOOL}, false},
		{s(""), Value{T: B}, false},
	}
	for _, c := range eq {
		if got := Equal(c.a, c.b); got != c.eq {
			t.Errorf("Equal(%v,%v) = %v", c.a, c.b, got)
		}
	}
	many := func(k int) Value {
		v := Value{T: NS}
		for i := 0; i < 12; i++ {
			v.Strs = append(v.Strs, NumberFromInt(int64((i+k)%12)).String())
		}
		return v
	}
	if !Equal(many(0), many(5)) {
		t.Error("large NS not equal")
	}
	if !ItemsEqual(Item{"a": n("1")}, Item{"a": n("1.0")}) || ItemsEqual(Item{"a": n("1")}, Item{"b": n("1")}) {
		t.Error("ItemsEqual")
	}
}

func TestItemSize(t *testing.T) {
	it := Item{
		"id":   {T: S, Str: "abc"},                                  // 2 + 3
		"n":    {T: N, Str: "12345"},                                // 1 + 4
		"flag": {T: BOOL, Bool: true},                               // 4 + 1
		"l":    {T: L, List: []Value{{T: S, Str: "xy"}}},            // 1 + 3 + 1 + 2
		"m":    {T: M, Map: map[string]Value{"k": {T: NULL}}},       // 1 + 3 + 1 + 1 + 1
		"ss":   {T: SS, Strs: []string{"a", "bc"}},                  // 2 + 3
		"ns":   {T: NS, Strs: []string{"1", "-1.5"}},                // 2 + 2 + 4
		"bs":   {T: BS, Bins: [][]byte{{1, 2}, {3}}},                // 2 + 3
		"é":    {T: B, Bin: []byte{1, 2, 3}},                        // 2 + 3
		"e":    {T: M, Map: map[string]Value{}},                     // 1 + 3
		"el":   {T: L},                                              // 2 + 3
		"nul":  {T: NULL},                                           // 3 + 1
		"z":    {T: N, Str: "0"},                                    // 1 + 1
		"neg":  {T: N, Str: "-" + "1" + zeros(124) + ".0000000001"}, // 3 + ...
	}
	want := 5 + 5 + 5 + 7 + 7 + 5 + 8 + 5 + 5 + 4 + 5 + 4 + 2 + 3 + NumberSize(it["neg"].Str)
	if got := ItemSize(it); got != want {
		t.Errorf("ItemSize = %d want %d", got, want)
	}
	if MaxItemSize != 409600 {
		t.Error("MaxItemSize")
	}
}

func TestTypeNames(t *testing.T) {
	for ty := S; ty <= BS; ty++ {
		if TypeFromString(ty.String()) != ty {
			t.Errorf("%d round trip", ty)
		}
	}
	if Type(99).String() != "" || TypeFromString("X") != TypeNone || TypeFromString("") != TypeNone {
		t.Error("unknown types")
	}
	if !SS.IsSet() || S.IsSet() || !B.IsScalar() || M.IsScalar() {
		t.Error("predicates")
	}
}
