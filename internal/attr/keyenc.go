package attr

import (
	"bytes"
	"errors"
	"strings"
)

// Key encoding
//
// AppendKey writes a key attribute value so that bytes.Compare on two
// encodings of the same type agrees with Compare on the values, and so that
// an encoding is self-delimiting (encodings can be concatenated, as the
// engine does with partition and sort key, and decoded back).
//
//	S, B: the bytes with 0x00 escaped as 0x00 0xFF, then the terminator
//	      0x00 0x01. A proper prefix sorts first because the terminator is
//	      lower than any content byte or escape.
//	N:    0x02 for zero. Otherwise a sign tag (0x01 negative, 0x03 positive)
//	      and a body: one byte exp+129 (value = 0.D × 10^exp, exp in
//	      [-129, 126]), the significant digits in pairs (d1*10+d2+1, an odd
//	      last digit padded with 0), and a 0x00 terminator. Negative numbers
//	      store the bitwise complement of the body, which reverses its order.

// Number key tags.
const (
	numKeyNeg  = 0x01
	numKeyZero = 0x02
	numKeyPos  = 0x03
)

// ErrBadKey is returned by DecodeKey for bytes that are not a key encoding.
var ErrBadKey = errors.New("attr: malformed key encoding")

// AppendKey appends the order-preserving encoding of v, which must be an S,
// N or B value (other types append nothing). N values must be valid numbers.
func AppendKey(dst []byte, v Value) []byte {
	switch v.T {
	case S:
		return append(appendEscaped(dst, v.Str), 0x00, 0x01)
	case B:
		return append(appendEscapedBytes(dst, v.Bin), 0x00, 0x01)
	case N:
		return appendNumKey(dst, v.Str)
	}
	return dst
}

// PrefixKey returns the encoding shared by every S (or B) key value that
// begins with v: all keys k with begins_with(k, v) lie in
// [PrefixKey(v), PrefixEnd(PrefixKey(v))). v must be S or B; other types
// yield nil.
func PrefixKey(v Value) []byte {
	switch v.T {
	case S:
		return appendEscaped(nil, v.Str)
	case B:
		return appendEscapedBytes(nil, v.Bin)
	}
	return nil
}

// PrefixEnd returns the smallest byte string that sorts after every string
// with prefix p, or nil when there is none (p is empty or all 0xFF).
func PrefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0x00, 0xFF)
		s = s[i+1:]
	}
}

func appendEscapedBytes(dst []byte, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0x00, 0xFF)
		s = s[i+1:]
	}
}

func appendNumKey(dst []byte, s string) []byte {
	r, ok := scanNumber(s)
	if !ok || r.zero {
		return append(dst, numKeyZero)
	}
	tag := byte(numKeyPos)
	if r.neg {
		tag = numKeyNeg
	}
	dst = append(dst, tag)
	body := len(dst)
	e := min(max(r.exp, minExp), maxExp)
	dst = append(dst, byte(e-minExp))
	pending := -1
	for i := r.start; i < r.end; i++ {
		c := s[i]
		if c == '.' {
			continue
		}
		d := int(c - '0')
		if pending < 0 {
			pending = d
		} else {
			dst = append(dst, byte(pending*10+d+1))
			pending = -1
		}
	}
	if pending >= 0 {
		dst = append(dst, byte(pending*10+1))
	}
	dst = append(dst, 0x00)
	if r.neg {
		for i := body; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

// DecodeKey decodes one key value of type t (S, N or B) from the front of
// b and returns it with the remaining bytes.
func DecodeKey(b []byte, t Type) (v Value, rest []byte, err error) {
	switch t {
	case S, B:
		raw, rest, err := decodeEscaped(b)
		if err != nil {
			return Value{}, nil, err
		}
		if t == S {
			return Value{T: S, Str: string(raw)}, rest, nil
		}
		return Value{T: B, Bin: raw}, rest, nil
	case N:
		return decodeNumKey(b)
	}
	return Value{}, nil, ErrBadKey
}

func decodeEscaped(b []byte) (raw, rest []byte, err error) {
	raw = []byte{}
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 || i+1 >= len(b) {
			return nil, nil, ErrBadKey
		}
		raw = append(raw, b[:i]...)
		switch b[i+1] {
		case 0x01:
			return raw, b[i+2:], nil
		case 0xFF:
			raw = append(raw, 0)
			b = b[i+2:]
		default:
			return nil, nil, ErrBadKey
		}
	}
}

func decodeNumKey(b []byte) (Value, []byte, error) {
	if len(b) == 0 {
		return Value{}, nil, ErrBadKey
	}
	var flip byte
	switch b[0] {
	case numKeyZero:
		return Value{T: N, Str: "0"}, b[1:], nil
	case numKeyNeg:
		flip = 0xFF
	case numKeyPos:
	default:
		return Value{}, nil, ErrBadKey
	}
	if len(b) < 2 {
		return Value{}, nil, ErrBadKey
	}
	exp := int(b[1]^flip) + minExp
	var digits [2 * (MaxNumberDigits + 2)]byte
	nd := 0
	for i := 2; i < len(b); i++ {
		p := b[i] ^ flip
		if p == 0 {
			for nd > 0 && digits[nd-1] == '0' {
				nd--
			}
			if nd == 0 || digits[0] == '0' {
				return Value{}, nil, ErrBadKey
			}
			n := Number{neg: flip != 0, digits: string(digits[:nd]), exp: exp}
			return Value{T: N, Str: n.String()}, b[i+1:], nil
		}
		if p > 100 || nd+2 > len(digits) {
			return Value{}, nil, ErrBadKey
		}
		p--
		digits[nd], digits[nd+1] = '0'+p/10, '0'+p%10
		nd += 2
	}
	return Value{}, nil, ErrBadKey
}
