package attr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func FuzzUnmarshalValue(f *testing.F) {
	for _, s := range []string{`{"S":"x"}`, `{"N":"-1.50e3"}`, `{"M":{"a":{"L":[{"NULL":true},{"BS":["AA=="]}]}}}`,
		`{"SS":["a","b"]}`, `{"NS":["1","2"]}`, `{"S":"\ud83d\ude00\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeJSON(b)
		if err != nil {
			return
		}
		enc := AppendJSON(nil, v)
		if v.T != TypeNone && !json.Valid(enc) {
			t.Fatalf("invalid JSON %s", enc)
		}
		v2, err := DecodeJSON(enc)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		if !Equal(v, v2) {
			t.Fatalf("not equal after round trip: %s", enc)
		}
		if enc2 := AppendJSON(nil, v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("unstable encoding %s vs %s", enc, enc2)
		}
		_ = ValueSize(v)
		if err := Validate(v); v.T != TypeNone && err != nil {
			t.Fatalf("decoded value fails Validate: %v", err)
		}
	})
}

func FuzzDecodeItem(f *testing.F) {
	f.Add(AppendItem(nil, sampleItem()))
	f.Add(AppendItem(nil, Item{}))
	f.Add(AppendItem(nil, Item{"a": {T: L, List: []Value{{T: NULL}}}}))
	f.Add([]byte{1, 1, 1, 'a', byte(BOOL), 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		keep := func(name string) bool { return len(name)%2 == 1 }
		part, perr := DecodeItemOnly(b, keep) // must not panic, whatever b is
		it, err := DecodeItem(b)
		if err != nil {
			return
		}
		if perr != nil {
			t.Fatalf("DecodeItem accepts what DecodeItemOnly refuses: %v", perr)
		}
		want := Item{}
		for k, v := range it {
			if keep(k) {
				want[k] = v
			}
		}
		if !ItemsEqual(part, want) {
			t.Fatalf("DecodeItemOnly = %v, want %v", part, want)
		}
		enc := AppendItem(nil, it)
		it2, err := DecodeItem(enc)
		if err != nil || !ItemsEqual(it, it2) {
			t.Fatalf("round trip: %v", err)
		}
		if !bytes.Equal(AppendItem(nil, it2), enc) {
			t.Fatal("unstable encoding")
		}
	})
}

// benchItem is an item of about 1 KB of the usual shapes.
func benchItem() Item {
	it := Item{
		"pk":      {T: S, Str: "customer#0000012345"},
		"sk":      {T: S, Str: "order#2026-08-12T13:21:51.577Z"},
		"amount":  {T: N, Str: "1234.56"},
		"count":   {T: N, Str: "17"},
		"active":  {T: BOOL, Bool: true},
		"tags":    {T: SS, Strs: []string{"alpha", "beta", "gamma", "delta"}},
		"scores":  {T: NS, Strs: []string{"1", "2.5", "-3", "1000000"}},
		"payload": {T: B, Bin: bytes.Repeat([]byte{1, 2, 3, 4}, 32)},
		"note":    {T: S, Str: strings.Repeat("lorem ipsum ", 20)},
	}
	lines := make([]Value, 5)
	for i := range lines {
		lines[i] = Value{T: M, Map: map[string]Value{
			"sku":   {T: S, Str: fmt.Sprintf("SKU-%05d", i)},
			"qty":   {T: N, Str: fmt.Sprint(i + 1)},
			"price": {T: N, Str: "19.99"},
			"gift":  {T: BOOL},
		}}
	}
	it["lines"] = Value{T: L, List: lines}
	it["addr"] = Value{T: M, Map: map[string]Value{
		"street": {T: S, Str: "1 Main Street"}, "city": {T: S, Str: "Springfield"},
		"zip": {T: S, Str: "12345"}, "geo": {T: NULL},
	}}
	return it
}

func BenchmarkItemJSONDecode(b *testing.B) {
	data := AppendItemJSON(nil, benchItem())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeItemJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkItemJSONEncode(b *testing.B) {
	it := benchItem()
	buf := AppendItemJSON(nil, it)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItemJSON(buf[:0], it)
	}
}

func BenchmarkItemCodec(b *testing.B) {
	it := benchItem()
	buf := AppendItem(nil, it)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItem(buf[:0], it)
		if _, err := DecodeItem(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendKey(b *testing.B) {
	vals := []Value{{T: S, Str: "customer#0000012345"}, {T: N, Str: "1234.5678"}, {T: N, Str: "-42"},
		{T: B, Bin: []byte{0, 1, 2, 3, 0, 5}}}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range vals {
			buf = AppendKey(buf[:0], v)
		}
	}
}

func BenchmarkCanonicalNumber(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = CanonicalNumber("12345")
		_, _ = CanonicalNumber("1.50")
	}
}
