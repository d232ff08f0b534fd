package api

import (
	"unicode/utf8"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// The hottest operations' inputs are decoded by hand instead of through
// encoding/json's reflection. The fast decoder accepts only the common,
// unambiguous form of a request: strict JSON, members spelt exactly as in
// the API, each at most once, no nulls, no escapes in plain string members,
// none of the legacy conditional members. Anything else, and any error at
// all, makes it decline; the request is then decoded again by decode, so
// every error (SerializationException texts included) and every unusual
// form keeps encoding/json's behaviour exactly.

// fastDecode decodes body into in when in is one of the hot inputs and the
// body has the common form. It reports whether it did; on false in is
// untouched.
func fastDecode(body []byte, in any) (bool, error) {
	var d fdec
	ok := fastDecodeInto(&d, body, in)
	return ok, d.err
}

func fastDecodeInto(d *fdec, body []byte, in any) bool {
	switch v := in.(type) {
	case *wire.GetItemInput:
		var x wire.GetItemInput
		if decodeFast(d, body, (*getIn)(&x).member) {
			*v = x
			return true
		}
	case *wire.PutItemInput:
		var x wire.PutItemInput
		if decodeFast(d, body, (*putIn)(&x).member) {
			*v = x
			return true
		}
	case *wire.DeleteItemInput:
		var x wire.DeleteItemInput
		if decodeFast(d, body, (*deleteIn)(&x).member) {
			*v = x
			return true
		}
	case *wire.UpdateItemInput:
		var x wire.UpdateItemInput
		if decodeFast(d, body, (*updateIn)(&x).member) {
			*v = x
			return true
		}
	case *wire.QueryInput:
		var x wire.QueryInput
		if decodeFast(d, body, (*queryIn)(&x).member) {
			*v = x
			return true
		}
	case *wire.ScanInput:
		var x wire.ScanInput
		if decodeFast(d, body, (*scanIn)(&x).member) {
			*v = x
			return true
		}
	case *wire.BatchWriteItemInput:
		var x wire.BatchWriteItemInput
		if decodeFast(d, body, (*batchWriteIn)(&x).member) {
			*v = x
			return true
		}
	}
	return false
}

// fdec is a strict JSON reader over a request body. Its methods return
// false to decline.
type fdec struct {
	b    []byte
	i    int
	seen uint64 // members already decoded, by the member function's bit
	// subst is the length of the placeholders read so far, as
	// expr.MaxSubstitutionSize counts it; past that limit err is set and
	// the decoder stops, so that a body of millions of placeholders is
	// refused after 2 MB of them rather than decoded whole.
	subst int
	err   error
}

// decodeFast reads body as one JSON object whose members member decodes.
func decodeFast(d *fdec, body []byte, member func(d *fdec, key []byte) bool) bool {
	*d = fdec{b: body}
	if !d.object(func(key []byte) bool { return member(d, key) }) {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

func (d *fdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte (0 at the end).
func (d *fdec) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// once records member bit n, declining a repeated member.
func (d *fdec) once(n uint) bool {
	if d.seen&(1<<n) != 0 {
		return false
	}
	d.seen |= 1 << n
	return true
}

// object reads {"key": value, …}, calling member with d positioned at each
// value; member must consume the value.
func (d *fdec) object(member func(key []byte) bool) bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		key, ok := d.rawString()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		d.ws()
		if !member(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// rawString reads a string without escapes or control characters and
// returns its bytes (valid UTF-8).
func (d *fdec) rawString() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	d.i++
	start := d.i
	ascii := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return nil, false
}

func (d *fdec) str(dst *string) bool {
	s, ok := d.rawString()
	if ok {
		*dst = string(s)
	}
	return ok
}

func (d *fdec) strPtr(dst **string) bool {
	s, ok := d.rawString()
	if ok {
		v := string(s)
		*dst = &v
	}
	return ok
}

func (d *fdec) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

func (d *fdec) boolPtr(dst **bool) bool {
	var v bool
	switch {
	case d.lit("true"):
		v = true
	case d.lit("false"):
	default:
		return false
	}
	*dst = &v
	return true
}

// int32Ptr reads an integer without fraction or exponent that fits an int32.
func (d *fdec) int32Ptr(dst **int32) bool {
	neg := false
	if d.i < len(d.b) && d.b[d.i] == '-' {
		neg = true
		d.i++
	}
	start := d.i
	var n int64
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = n*10 + int64(d.b[d.i]-'0')
		d.i++
		if d.i-start > 10 {
			return false
		}
	}
	digits := d.i - start
	if digits == 0 || (digits > 1 && d.b[start] == '0') {
		return false
	}
	if d.i < len(d.b) {
		if c := d.b[d.i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	if neg {
		n = -n
	}
	if n < -1<<31 || n > 1<<31-1 {
		return false
	}
	v := int32(n)
	*dst = &v
	return true
}

func (d *fdec) item(dst *attr.Item) bool {
	it, end, ok := attr.DecodeItemJSONAt(d.b, d.i)
	if ok {
		*dst = it
		d.i = end
	}
	return ok
}

func (d *fdec) names(dst *map[string]string) bool {
	m := make(map[string]string)
	ok := d.object(func(key []byte) bool {
		v, ok := d.rawString()
		if ok {
			m[string(key)] = string(v)
			ok = d.charge(len(key) + len(v))
		}
		return ok
	})
	*dst = m
	return ok
}

// values reads ExpressionAttributeValues entry by entry, charging each to
// the placeholders' budget; a repeated, empty or over-long key declines
// (encoding/json's path decides what it means).
func (d *fdec) values(dst *attr.Item) bool {
	m := make(attr.Item)
	ok := d.object(func(key []byte) bool {
		if _, dup := m[string(key)]; dup || len(key) == 0 || len(key) > attr.MaxNameSize {
			return false // encoding/json's path refuses these names in DynamoDB's words
		}
		v, end, ok := attr.DecodeJSONAt(d.b, d.i)
		if ok {
			m[string(key)] = v
			d.i = end
			ok = d.charge(len(key) + attr.ValueSize(v))
		}
		return ok
	})
	*dst = m
	return ok
}

// charge adds n bytes of placeholders, stopping the decoder with DynamoDB's
// error once they pass expr.MaxSubstitutionSize.
func (d *fdec) charge(n int) bool {
	d.subst += n
	if d.subst > expr.MaxSubstitutionSize {
		d.err = expr.SubstitutionTooLarge()
		return false
	}
	return true
}

func (d *fdec) strList(dst *[]string) bool {
	if d.peek() != '[' {
		return false
	}
	d.i++
	l := []string{}
	if d.peek() == ']' {
		d.i++
		*dst = l
		return true
	}
	for {
		s, ok := d.rawString()
		if !ok {
			return false
		}
		l = append(l, string(s))
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			*dst = l
			return true
		default:
			return false
		}
	}
}

// single reads an object whose only member is name, an item.
func (d *fdec) single(name string, dst *attr.Item) bool {
	seen := false
	return d.object(func(key []byte) bool {
		if seen || string(key) != name {
			return false
		}
		seen = true
		return d.item(dst)
	})
}
