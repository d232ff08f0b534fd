package attr

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"
)

// AppendJSON appends the DynamoDB JSON form of v ({"S":"x"}, {"N":"1"},
// {"M":{…}}, …) to dst. Map keys are written in sorted order. The zero
// Value is written as null.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.T {
	case S:
		dst = append(dst, `{"S":`...)
		dst = appendJSONString(dst, v.Str)
	case N:
		dst = append(dst, `{"N":`...)
		dst = appendJSONString(dst, v.Str)
	case B:
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, v.Bin)
		dst = append(dst, '"')
	case BOOL:
		if v.Bool {
			return append(dst, `{"BOOL":true}`...)
		}
		return append(dst, `{"BOOL":false}`...)
	case NULL:
		return append(dst, `{"NULL":true}`...)
	case M:
		dst = append(dst, `{"M":`...)
		dst = appendMapJSON(dst, v.Map)
	case L:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.List {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, e)
		}
		dst = append(dst, ']')
	case SS, NS:
		if v.T == SS {
			dst = append(dst, `{"SS":[`...)
		} else {
			dst = append(dst, `{"NS":[`...)
		}
		for i, s := range v.Strs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, s)
		}
		dst = append(dst, ']')
	case BS:
		dst = append(dst, `{"BS":[`...)
		for i, b := range v.Bins {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, b)
			dst = append(dst, '"')
		}
		dst = append(dst, ']')
	default:
		return append(dst, "null"...)
	}
	return append(dst, '}')
}

// AppendItemJSON appends an item as a JSON object of attribute name →
// AttributeValue, names in sorted order. A nil item is written as null.
func AppendItemJSON(dst []byte, it Item) []byte {
	if it == nil {
		return append(dst, "null"...)
	}
	return appendMapJSON(dst, it)
}

func appendMapJSON(dst []byte, m map[string]Value) []byte {
	dst = append(dst, '{')
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		dst = AppendJSON(dst, m[k])
	}
	return append(dst, '}')
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (v Value) MarshalJSON() ([]byte, error) { return AppendJSON(nil, v), nil }

// MarshalJSON implements json.Marshaler with AppendItemJSON.
func (it Item) MarshalJSON() ([]byte, error) { return AppendItemJSON(nil, it), nil }

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string. Invalid UTF-8 is written as
// U+FFFD, like encoding/json; U+2028 and U+2029 are escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = skipPlainString(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
