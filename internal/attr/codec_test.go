package attr

import (
	"bytes"
	"errors"
	"testing"
)

func sampleItem() Item {
	return Item{
		"pk":   {T: S, Str: "user#1"},
		"sk":   {T: N, Str: "42.5"},
		"bin":  {T: B, Bin: []byte{0, 1, 2}},
		"eb":   {T: B, Bin: []byte{}},
		"ok":   {T: BOOL, Bool: true},
		"no":   {T: BOOL},
		"nil":  {T: NULL},
		"tags": {T: SS, Strs: []string{"b", "a"}},
		"nums": {T: NS, Strs: []string{"1", "-2.5"}},
		"bs":   {T: BS, Bins: [][]byte{{1}, {}}},
		"list": {T: L, List: []Value{{T: S, Str: ""}, {T: L, List: []Value{}}, {T: M, Map: map[string]Value{}}}},
		"map":  {T: M, Map: map[string]Value{"z": {T: N, Str: "0"}, "a": {T: S, Str: "é"}}},
		"":     {T: S, Str: "empty name"},
	}
}

func TestCodecRoundTrip(t *testing.T) {
	it := sampleItem()
	enc := AppendItem(nil, it)
	got, err := DecodeItem(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !ItemsEqual(it, got) {
		t.Fatalf("round trip: %v", got)
	}
	// Exact: set order and number text are preserved; encoding deterministic.
	if got["tags"].Strs[0] != "b" || got["nums"].Strs[1] != "-2.5" {
		t.Error("order or text changed")
	}
	for i := 0; i < 20; i++ {
		if !bytes.Equal(AppendItem(nil, it), enc) {
			t.Fatal("not deterministic")
		}
	}
	if !bytes.Equal(AppendItem(nil, got), enc) {
		t.Fatal("re-encoding differs")
	}
	// Decoded values do not alias the input.
	enc2 := bytes.Clone(enc)
	got2, _ := DecodeItem(enc2)
	for i := range enc2 {
		enc2[i] = 0
	}
	if !ItemsEqual(got2, it) {
		t.Fatal("decoded item aliases input")
	}
	v, err := DecodeValue(EncodeValue(nil, it["map"]))
	if err != nil || !Equal(v, it["map"]) {
		t.Fatalf("value round trip %v %v", v, err)
	}
	empty, err := DecodeItem(AppendItem(nil, Item{}))
	if err != nil || len(empty) != 0 {
		t.Fatal("empty item")
	}
}

func TestCodecCorrupt(t *testing.T) {
	enc := AppendItem(nil, sampleItem())
	for i := 0; i < len(enc); i++ {
		if _, err := DecodeItem(enc[:i]); err == nil {
			t.Fatalf("truncated at %d accepted", i)
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
	}
	bad := [][]byte{
		{2, 0},
		{1, 1, 1, 'a', 99},
		{1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F},
		{1, 2, 1, 'a', byte(NULL), 1, 'a', byte(NULL)},
		{1, 1, 1, 'a', byte(BOOL), 2},
		{1, 1, 1, 'a', byte(L), 100},
		append([]byte{1, 0}, 0),
	}
	deep := []byte{1, 1, 1, 'a'}
	for i := 0; i < 100; i++ {
		deep = append(deep, byte(L), 1)
	}
	bad = append(bad, append(deep, byte(NULL)))
	for _, b := range bad {
		if _, err := DecodeItem(b); err == nil {
			t.Errorf("DecodeItem(%x) accepted", b)
		}
	}
	if _, err := DecodeValue([]byte{byte(NULL), 0}); err == nil {
		t.Error("trailing bytes accepted")
	}
}

// DecodeItemOnly keeps the chosen top-level attributes, skips the rest
// (nested ones included) and still notices corruption in what it skips.
func TestDecodeItemOnly(t *testing.T) {
	vec := make([]Value, 1024)
	for i := range vec {
		vec[i] = Value{T: N, Str: "0.125"}
	}
	it := Item{"pk": {T: S, Str: "doc#1"}, "emb": {T: L, List: vec}, "meta": {T: M, Map: map[string]Value{"a": {T: SS, Strs: []string{"x"}}}},
		"on": {T: BOOL, Bool: true}, "blob": {T: B, Bin: []byte{1, 2}}}
	enc := AppendItem(nil, it)
	got, err := DecodeItemOnly(enc, func(n string) bool { return n == "pk" || n == "on" })
	if err != nil {
		t.Fatal(err)
	}
	if !ItemsEqual(got, Item{"pk": it["pk"], "on": it["on"]}) {
		t.Fatalf("got %v", got)
	}
	all, err := DecodeItemOnly(enc, func(string) bool { return true })
	if err != nil || !ItemsEqual(all, it) {
		t.Fatalf("keep all: %v %v", all, err)
	}
	if _, err := DecodeItemOnly(enc[:len(enc)-3], func(n string) bool { return n == "pk" }); err == nil {
		t.Fatal("truncated item accepted")
	}
	if allocs := testing.AllocsPerRun(20, func() {
		DecodeItemOnly(enc, func(n string) bool { return n == "pk" })
	}); allocs > 3 {
		t.Fatalf("%v allocations skipping a 1,024-number list", allocs)
	}
}
