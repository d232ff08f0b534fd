package attr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Binary item encoding for storage
//
//	item   = version(0x01) uvarint(count) { name value }   names sorted
//	name   = uvarint(len) bytes
//	value  = type byte, then by type:
//	         S, N, B    uvarint(len) bytes   (N as its canonical text)
//	         BOOL       0x00 | 0x01
//	         NULL       nothing
//	         M          uvarint(count) { name value }     names sorted
//	         L          uvarint(count) { value }
//	         SS, NS, BS uvarint(count) { uvarint(len) bytes }
//
// The encoding is deterministic: equal items (with sets in the same element
// order) encode to equal bytes.

const codecVersion = 0x01

// maxCodecDepth bounds recursion when decoding untrusted bytes; valid items
// nest at most MaxDepth+1 levels.
const maxCodecDepth = 64

// ErrCorrupt is returned (wrapped) by DecodeItem for malformed input.
var ErrCorrupt = errors.New("attr: corrupt item encoding")

// AppendItem appends the binary encoding of it to dst.
func AppendItem(dst []byte, it Item) []byte {
	dst = append(dst, codecVersion)
	return appendMap(dst, it)
}

// EncodeValue appends the binary encoding of a single value to dst.
func EncodeValue(dst []byte, v Value) []byte { return appendValue(dst, v) }

func appendMap(dst []byte, m map[string]Value) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(m)))
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = appendBytes(dst, k)
		dst = appendValue(dst, m[k])
	}
	return dst
}

func appendBytes[T string | []byte](dst []byte, s T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendValue(dst []byte, v Value) []byte {
	dst = append(dst, byte(v.T))
	switch v.T {
	case S, N:
		dst = appendBytes(dst, v.Str)
	case B:
		dst = appendBytes(dst, v.Bin)
	case BOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case M:
		dst = appendMap(dst, v.Map)
	case L:
		dst = binary.AppendUvarint(dst, uint64(len(v.List)))
		for _, e := range v.List {
			dst = appendValue(dst, e)
		}
	case SS, NS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Strs)))
		for _, s := range v.Strs {
			dst = appendBytes(dst, s)
		}
	case BS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Bins)))
		for _, b := range v.Bins {
			dst = appendBytes(dst, b)
		}
	}
	return dst
}

// DecodeItem decodes an item written by AppendItem. Strings share one copy
// of b; binaries are copied. b is not retained. Malformed input yields an
// error wrapping ErrCorrupt, never a panic.
func DecodeItem(b []byte) (Item, error) {
	r, err := itemReader(b)
	if err != nil {
		return nil, err
	}
	m := r.readMap(0)
	if err := r.done(); err != nil {
		return nil, err
	}
	return Item(m), nil
}

// itemReader checks the codec version of a stored item and returns a reader
// of the rest.
func itemReader(b []byte) (codecReader, error) {
	if len(b) == 0 || b[0] != codecVersion {
		return codecReader{}, fmt.Errorf("%w: bad version", ErrCorrupt)
	}
	return codecReader{s: string(b[1:])}, nil
}

// done is the reader's error, or a trailing-bytes error if input is left.
func (r *codecReader) done() error {
	if r.err == nil && r.i != len(r.s) {
		r.fail("trailing bytes")
	}
	return r.err
}

// DecodeItemOnly is DecodeItem keeping only the top-level attributes for
// which keep returns true; the others are checked and skipped without being
// built (a 1,024-number vector costs nothing when it is not wanted).
func DecodeItemOnly(b []byte, keep func(name string) bool) (Item, error) {
	r, err := itemReader(b)
	if err != nil {
		return nil, err
	}
	n := r.count(2)
	m := make(Item, min(n, 8))
	seen := 0
	for k := 0; k < n && r.err == nil; k++ {
		name := r.str()
		if keep(name) {
			m[name] = r.readValue(0)
			seen++
			if len(m) != seen {
				r.fail("duplicate name")
			}
		} else {
			r.skipValue(0)
		}
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeValue decodes a single value written by EncodeValue.
func DecodeValue(b []byte) (Value, error) {
	r := codecReader{s: string(b)}
	v := r.readValue(0)
	if err := r.done(); err != nil {
		return Value{}, err
	}
	return v, nil
}

type codecReader struct {
	s   string
	i   int
	err error
}

func (r *codecReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at offset %d", ErrCorrupt, what, r.i)
	}
}

func (r *codecReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	var x uint64
	var shift uint
	for k := 0; k < binary.MaxVarintLen64; k++ {
		if r.i >= len(r.s) {
			break
		}
		c := r.s[r.i]
		r.i++
		if c < 0x80 {
			x |= uint64(c) << shift
			if x > uint64(len(r.s)) {
				r.fail("length out of range")
				return 0
			}
			return int(x)
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	r.fail("bad varint")
	return 0
}

// count reads an element count; every element takes at least min bytes.
func (r *codecReader) count(min int) int {
	n := r.uvarint()
	if r.err == nil && n*min > len(r.s)-r.i {
		r.fail("count exceeds input")
		return 0
	}
	return n
}

func (r *codecReader) str() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > len(r.s)-r.i {
		r.fail("string exceeds input")
		return ""
	}
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

func (r *codecReader) readMap(depth int) map[string]Value {
	n := r.count(2)
	if r.err != nil {
		return nil
	}
	m := make(map[string]Value, n)
	for k := 0; k < n && r.err == nil; k++ {
		name := r.str()
		m[name] = r.readValue(depth)
	}
	if r.err == nil && len(m) != n {
		r.fail("duplicate name")
	}
	return m
}

func (r *codecReader) readValue(depth int) Value {
	if r.err != nil {
		return Value{}
	}
	if depth > maxCodecDepth {
		r.fail("nesting too deep")
		return Value{}
	}
	if r.i >= len(r.s) {
		r.fail("truncated value")
		return Value{}
	}
	v := Value{T: Type(r.s[r.i])}
	r.i++
	switch v.T {
	case S, N:
		v.Str = r.str()
	case B:
		v.Bin = []byte(r.str())
	case BOOL:
		if r.i >= len(r.s) || r.s[r.i] > 1 {
			r.fail("bad bool")
			return Value{}
		}
		v.Bool = r.s[r.i] == 1
		r.i++
	case NULL:
	case M:
		v.Map = r.readMap(depth + 1)
	case L:
		n := r.count(1)
		v.List = make([]Value, 0, n)
		for k := 0; k < n && r.err == nil; k++ {
			v.List = append(v.List, r.readValue(depth+1))
		}
	case SS, NS:
		n := r.count(1)
		v.Strs = make([]string, 0, n)
		for k := 0; k < n && r.err == nil; k++ {
			v.Strs = append(v.Strs, r.str())
		}
	case BS:
		n := r.count(1)
		v.Bins = make([][]byte, 0, n)
		for k := 0; k < n && r.err == nil; k++ {
			v.Bins = append(v.Bins, []byte(r.str()))
		}
	default:
		r.fail("unknown type")
		return Value{}
	}
	return v
}
