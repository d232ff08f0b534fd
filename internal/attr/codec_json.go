package attr

import (
	"encoding/base64"
	"unsafe"
)

// AppendStoredItemJSON appends the DynamoDB JSON of a stored item (the
// binary encoding written by AppendItem) to dst, exactly as
// AppendItemJSON(DecodeItem(stored)) would, and also returns the item's
// size (ItemSize). It walks the binary encoding once and builds no maps.
// When stored is malformed it returns DecodeItem's error and dst
// unchanged. stored is not retained.
func AppendStoredItemJSON(dst, stored []byte) ([]byte, int, error) {
	if len(stored) > 0 && stored[0] == codecVersion {
		// The strings made by the walk alias stored only while this call
		// runs; none of them is retained.
		w := storedWalker{r: codecReader{s: unsafe.String(unsafe.SliceData(stored[1:]), len(stored)-1)}}
		out, size := w.appendMap(dst, 0)
		if w.ok() && w.r.i == len(w.r.s) {
			return out, size, nil
		}
	}
	// Malformed, or a shape the walk does not take (names out of order):
	// the general path decides, so errors and output stay identical.
	it, err := DecodeItem(stored)
	if err != nil {
		return dst, 0, err
	}
	return AppendItemJSON(dst, it), ItemSize(it), nil
}

// StoredAttr decodes the top-level attribute name of a stored item without
// decoding the others. ok is false when the item has no such attribute or
// the encoding is malformed.
func StoredAttr(stored []byte, name string) (v Value, ok bool) {
	if v, ok = storedAttrView(stored, name); !ok {
		return Value{}, false
	}
	return cloneValue(v), true // detach the strings from stored
}

// StoredAttrEquals reports whether stored's top-level attribute name is
// present and equal to want, without copying it.
func StoredAttrEquals(stored []byte, name string, want Value) bool {
	v, ok := storedAttrView(stored, name)
	return ok && Equal(v, want)
}

// storedAttrView is StoredAttr with S and N strings still pointing into
// stored: valid only while stored is.
func storedAttrView(stored []byte, name string) (Value, bool) {
	if len(stored) == 0 || stored[0] != codecVersion {
		return Value{}, false
	}
	r := codecReader{s: unsafe.String(unsafe.SliceData(stored[1:]), len(stored)-1)}
	n := r.count(2)
	for k := 0; k < n && r.err == nil; k++ {
		if r.str() == name {
			v := r.readValue(0)
			if r.err != nil {
				return Value{}, false
			}
			return v, true
		}
		r.skipValue(0)
	}
	return Value{}, false
}

// cloneValue copies the strings of a key value (S, N or B) so that it no
// longer aliases the buffer it was read from; other types are returned as
// they are (StoredAttr is used for key attributes).
func cloneValue(v Value) Value {
	switch v.T {
	case S, N:
		v.Str = string(append([]byte(nil), v.Str...))
	}
	return v
}

// skipValue steps over one value, with readValue's checks.
func (r *codecReader) skipValue(depth int) {
	if r.err != nil {
		return
	}
	if depth > maxCodecDepth {
		r.fail("nesting too deep")
		return
	}
	if r.i >= len(r.s) {
		r.fail("truncated value")
		return
	}
	t := Type(r.s[r.i])
	r.i++
	switch t {
	case S, N, B:
		r.str()
	case BOOL:
		if r.i >= len(r.s) || r.s[r.i] > 1 {
			r.fail("bad bool")
			return
		}
		r.i++
	case NULL:
	case M:
		n := r.count(2)
		for k := 0; k < n && r.err == nil; k++ {
			r.str()
			r.skipValue(depth + 1)
		}
	case L:
		n := r.count(1)
		for k := 0; k < n && r.err == nil; k++ {
			r.skipValue(depth + 1)
		}
	case SS, NS, BS:
		n := r.count(1)
		for k := 0; k < n && r.err == nil; k++ {
			r.str()
		}
	default:
		r.fail("unknown type")
	}
}

// storedWalker transcodes the binary item encoding to JSON. It gives up
// (bad) on anything DecodeItem would refuse and on names that are not in
// strictly ascending order (AppendItem always sorts them; AppendItemJSON
// sorts them too, so ascending input is written in input order).
type storedWalker struct {
	r   codecReader
	bad bool
}

func (w *storedWalker) ok() bool { return !w.bad && w.r.err == nil }

// appendMap writes a map's entries as a JSON object and returns the sum,
// over entries, of the name's length plus the value's size.
func (w *storedWalker) appendMap(dst []byte, depth int) ([]byte, int) {
	r := &w.r
	n := r.count(2)
	if r.err != nil {
		return dst, 0
	}
	dst = append(dst, '{')
	size := 0
	prev := ""
	for k := 0; k < n && w.ok(); k++ {
		name := r.str()
		if k > 0 {
			if name <= prev {
				w.bad = true
				return dst, 0
			}
			dst = append(dst, ',')
		}
		prev = name
		dst = appendJSONString(dst, name)
		dst = append(dst, ':')
		var vs int
		dst, vs = w.appendValue(dst, depth)
		size += len(name) + vs
	}
	return append(dst, '}'), size
}

// appendValue writes one value as an AttributeValue and returns its
// ValueSize.
func (w *storedWalker) appendValue(dst []byte, depth int) ([]byte, int) {
	r := &w.r
	if r.err != nil {
		return dst, 0
	}
	if depth > maxCodecDepth {
		r.fail("nesting too deep")
		return dst, 0
	}
	if r.i >= len(r.s) {
		r.fail("truncated value")
		return dst, 0
	}
	t := Type(r.s[r.i])
	r.i++
	size := 0
	switch t {
	case S:
		s := r.str()
		dst = append(dst, `{"S":`...)
		dst = appendJSONString(dst, s)
		size = len(s)
	case N:
		s := r.str()
		dst = append(dst, `{"N":`...)
		dst = appendJSONString(dst, s)
		size = NumberSize(s)
	case B:
		s := r.str()
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, unsafe.Slice(unsafe.StringData(s), len(s)))
		dst = append(dst, '"')
		size = len(s)
	case BOOL:
		if r.i >= len(r.s) || r.s[r.i] > 1 {
			r.fail("bad bool")
			return dst, 0
		}
		if r.s[r.i] == 1 {
			dst = append(dst, `{"BOOL":true`...)
		} else {
			dst = append(dst, `{"BOOL":false`...)
		}
		r.i++
		size = 1
	case NULL:
		dst = append(dst, `{"NULL":true`...)
		size = 1
	case M:
		dst = append(dst, `{"M":`...)
		var ms int
		dst, ms = w.appendMapSized(dst, depth+1)
		size = ms
	case L:
		n := r.count(1)
		dst = append(dst, `{"L":[`...)
		size = 3
		for k := 0; k < n && w.ok(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			var es int
			dst, es = w.appendValue(dst, depth+1)
			size += 1 + es
		}
		dst = append(dst, ']')
	case SS, NS, BS:
		n := r.count(1)
		switch t {
		case SS:
			dst = append(dst, `{"SS":[`...)
		case NS:
			dst = append(dst, `{"NS":[`...)
		default:
			dst = append(dst, `{"BS":[`...)
		}
		for k := 0; k < n && r.err == nil; k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			s := r.str()
			switch t {
			case SS:
				dst = appendJSONString(dst, s)
				size += len(s)
			case NS:
				dst = appendJSONString(dst, s)
				size += NumberSize(s)
			default:
				dst = append(dst, '"')
				dst = base64.StdEncoding.AppendEncode(dst, unsafe.Slice(unsafe.StringData(s), len(s)))
				dst = append(dst, '"')
				size += len(s)
			}
		}
		dst = append(dst, ']')
	default:
		r.fail("unknown type")
		return dst, 0
	}
	return append(dst, '}'), size
}

// appendMapSized writes a nested map (an M value) and returns its
// ValueSize: 3 + for each entry the name's length + 1 + the value's size.
func (w *storedWalker) appendMapSized(dst []byte, depth int) ([]byte, int) {
	start := w.r.i
	dst, sum := w.appendMap(dst, depth)
	if !w.ok() {
		return dst, 0
	}
	// Count the entries again from the header to add 1 per entry.
	r := codecReader{s: w.r.s, i: start}
	n := r.uvarint()
	return dst, 3 + sum + n
}
