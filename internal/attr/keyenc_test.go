package attr

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

func randKeyValue(rng *rand.Rand, t Type) Value {
	switch t {
	case N:
		if rng.Intn(8) == 0 {
			return Value{T: N, Str: "0"}
		}
		return Value{T: N, Str: randNumber(rng)}
	case S, B:
		alpha := []byte{0, 1, 'a', 'b', 0xFF, 0x7F}
		n := rng.Intn(6)
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		if t == S {
			return Value{T: S, Str: string(b)}
		}
		return Value{T: B, Bin: b}
	}
	return Value{}
}

func TestKeyOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, ty := range []Type{S, N, B} {
		for i := 0; i < 5000; i++ {
			a, b := randKeyValue(rng, ty), randKeyValue(rng, ty)
			ea, eb := AppendKey(nil, a), AppendKey(nil, b)
			want, _ := Compare(a, b)
			if got := bytes.Compare(ea, eb); got != want {
				t.Fatalf("%v vs %v: bytes.Compare = %d, Compare = %d (%x %x)", a, b, got, want, ea, eb)
			}
			// Concatenations decode back and keep order on the first part.
			cat := AppendKey(append([]byte(nil), ea...), b)
			da, rest, err := DecodeKey(cat, ty)
			if err != nil || !Equal(da, a) {
				t.Fatalf("decode %v: %v %v", a, da, err)
			}
			db, rest, err := DecodeKey(rest, ty)
			if err != nil || !Equal(db, b) || len(rest) != 0 {
				t.Fatalf("decode second %v: %v %v %d", b, db, err, len(rest))
			}
			if ty == N && (da.Str != a.Str) {
				t.Fatalf("N not canonical after decode: %q vs %q", da.Str, a.Str)
			}
		}
	}
}

func TestKeyNumberExtremes(t *testing.T) {
	vals := []string{"-9.9999999999999999999999999999999999999E+125", "-1e125", "-1", "-1E-130", "0",
		"1E-130", "1.0000000000000000000000000000000000001e-130", "0.5", "1", "10", "1e125",
		"9.9999999999999999999999999999999999999E+125"}
	var prev []byte
	for i, s := range vals {
		c, err := CanonicalNumber(s)
		if err != nil {
			t.Fatal(err)
		}
		e := AppendKey(nil, Value{T: N, Str: c})
		if i > 0 && bytes.Compare(prev, e) >= 0 {
			t.Errorf("%s does not sort after %s", s, vals[i-1])
		}
		d, rest, err := DecodeKey(e, N)
		if err != nil || d.Str != c || len(rest) != 0 {
			t.Errorf("decode %s: %v %v", s, d, err)
		}
		prev = e
	}
}

func TestPrefixKey(t *testing.T) {
	p := PrefixKey(Value{T: S, Str: "ab"})
	end := PrefixEnd(p)
	for _, s := range []string{"ab", "abc", "ab\x00", "ab\xff\xff"} {
		e := AppendKey(nil, Value{T: S, Str: s})
		if !bytes.HasPrefix(e, p) || bytes.Compare(e, end) >= 0 {
			t.Errorf("%q outside prefix range", s)
		}
	}
	for _, s := range []string{"a", "aa", "ac", "b", "a\x00b"} {
		e := AppendKey(nil, Value{T: S, Str: s})
		if bytes.HasPrefix(e, p) {
			t.Errorf("%q inside prefix range", s)
		}
		if bytes.Compare(e, p) >= 0 && bytes.Compare(e, end) < 0 {
			t.Errorf("%q inside [p, end)", s)
		}
	}
	if PrefixEnd([]byte{0xFF, 0xFF}) != nil || PrefixEnd(nil) != nil {
		t.Error("PrefixEnd unbounded")
	}
	if got := PrefixEnd([]byte{1, 0xFF}); !bytes.Equal(got, []byte{2}) {
		t.Errorf("PrefixEnd = %x", got)
	}
	if PrefixKey(Value{T: N, Str: "1"}) != nil || len(PrefixKey(Value{T: B})) != 0 {
		t.Error("PrefixKey of N/empty B")
	}
	bp := PrefixKey(Value{T: B, Bin: []byte{0, 1}})
	if !bytes.HasPrefix(AppendKey(nil, Value{T: B, Bin: []byte{0, 1, 2}}), bp) {
		t.Error("binary prefix")
	}
}

func TestDecodeKeyErrors(t *testing.T) {
	bad := []struct {
		b []byte
		t Type
	}{
		{nil, S}, {[]byte("abc"), S}, {[]byte{'a', 0, 7}, B}, {[]byte{0}, S},
		{nil, N}, {[]byte{9}, N}, {[]byte{numKeyPos}, N}, {[]byte{numKeyPos, 100, 5}, N},
		{[]byte{numKeyPos, 100, 200, 0}, N}, {[]byte{numKeyPos, 100, 1, 0}, N},
		{[]byte{numKeyPos, 100, 0}, N}, {[]byte{1}, BOOL},
		{append([]byte{numKeyPos, 100}, bytes.Repeat([]byte{50}, 30)...), N},
	}
	for _, c := range bad {
		if _, _, err := DecodeKey(c.b, c.t); err == nil {
			t.Errorf("DecodeKey(%x, %v) accepted", c.b, c.t)
		}
	}
	if got := AppendKey([]byte("x"), Value{T: M}); string(got) != "x" {
		t.Error("AppendKey of M")
	}
	if s := strings.Repeat("\x00", 3); true {
		v, _, err := DecodeKey(AppendKey(nil, Value{T: S, Str: s}), S)
		if err != nil || v.Str != s {
			t.Error("zeros round trip")
		}
	}
}
