package attr

import (
	"bytes"
	"testing"
)

// checkStoredJSON compares AppendStoredItemJSON with
// AppendItemJSON(DecodeItem(b)): same output, size and error outcome.
func checkStoredJSON(t *testing.T, b []byte) {
	t.Helper()
	prefix := []byte(`[1,`)
	got, size, err := AppendStoredItemJSON(bytes.Clone(prefix), b)
	it, derr := DecodeItem(b)
	if (err != nil) != (derr != nil) {
		t.Fatalf("error mismatch: %v vs %v", err, derr)
	}
	if derr != nil {
		if err.Error() != derr.Error() || !bytes.Equal(got, prefix) {
			t.Fatalf("error %v vs %v, dst %q", err, derr, got)
		}
		return
	}
	want := AppendItemJSON(bytes.Clone(prefix), it)
	if !bytes.Equal(got, want) {
		t.Fatalf("json\n got %s\nwant %s", got, want)
	}
	if size != ItemSize(it) {
		t.Fatalf("size %d, want %d", size, ItemSize(it))
	}
}

func TestAppendStoredItemJSON(t *testing.T) {
	items := []Item{
		sampleItem(), benchItem(), {},
		{"a": {T: S, Str: "quote\" back\\ ctl\x01 \u2028 bad\xff"}},
		{"m": {T: M, Map: map[string]Value{"x": {T: M, Map: map[string]Value{"y": {T: L, List: []Value{{T: NS, Strs: []string{"1E+3", "-0.5"}}}}}}}}},
		{"n": {T: N, Str: "123456789012345678901234567890.12345678"}, "z": {T: BS, Bins: [][]byte{{0xff, 0xfe}, {}}}},
	}
	for _, it := range items {
		checkStoredJSON(t, AppendItem(nil, it))
	}
	// Corrupt inputs: every truncation and single-byte change.
	enc := AppendItem(nil, sampleItem())
	for i := range enc {
		checkStoredJSON(t, enc[:i])
		for _, c := range []byte{0, 1, 0x7f, 0x80, 0xff} {
			mod := bytes.Clone(enc)
			mod[i] = c
			checkStoredJSON(t, mod)
		}
	}
	// Names out of order or repeated: the general path decides.
	checkStoredJSON(t, []byte{1, 2, 1, 'b', byte(NULL), 1, 'a', byte(NULL)})
	checkStoredJSON(t, []byte{1, 2, 1, 'a', byte(NULL), 1, 'a', byte(NULL)})
}

func TestStoredAttr(t *testing.T) {
	it := sampleItem()
	enc := AppendItem(nil, it)
	for name, want := range it {
		v, ok := StoredAttr(enc, name)
		if !ok || !Equal(v, want) {
			t.Fatalf("%q: %v %v", name, v, ok)
		}
	}
	if _, ok := StoredAttr(enc, "absent"); ok {
		t.Fatal("absent attribute found")
	}
	v, _ := StoredAttr(enc, "pk")
	for i := range enc {
		enc[i] = 0
	}
	if v.Str != "user#1" {
		t.Fatal("StoredAttr aliases its input")
	}
}

func TestStoredAttrEquals(t *testing.T) {
	it := sampleItem()
	enc := AppendItem(nil, it)
	for name, want := range it {
		if !StoredAttrEquals(enc, name, want) {
			t.Fatalf("%q: not equal to itself", name)
		}
	}
	if StoredAttrEquals(enc, "pk", Value{T: S, Str: "user#2"}) {
		t.Fatal("different value reported equal")
	}
	if StoredAttrEquals(enc, "absent", Value{T: S, Str: "user#1"}) {
		t.Fatal("absent attribute reported equal")
	}
	if StoredAttrEquals(enc[:len(enc)/2], "zzz", Value{T: S, Str: "x"}) {
		t.Fatal("truncated item reported equal")
	}
}

func FuzzAppendStoredItemJSON(f *testing.F) {
	f.Add(AppendItem(nil, sampleItem()))
	f.Add(AppendItem(nil, benchItem()))
	f.Add(AppendItem(nil, Item{}))
	f.Add([]byte{1, 2, 1, 'b', byte(NULL), 1, 'a', byte(NULL)})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkStoredJSON(t, b)
		if it, err := DecodeItem(b); err == nil {
			for name, want := range it {
				if v, ok := StoredAttr(b, name); !ok || !Equal(v, want) {
					t.Fatalf("StoredAttr %q: %v %v", name, v, ok)
				}
			}
		}
	})
}

func BenchmarkStoredItemJSON(b *testing.B) {
	enc := AppendItem(nil, benchItem())
	b.Run("transcode", func(b *testing.B) {
		var dst []byte
		for b.Loop() {
			dst, _, _ = AppendStoredItemJSON(dst[:0], enc)
		}
	})
	b.Run("decode+encode", func(b *testing.B) {
		var dst []byte
		for b.Loop() {
			it, _ := DecodeItem(enc)
			dst = AppendItemJSON(dst[:0], it)
			_ = ItemSize(it)
		}
	})
}
