package expr

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/kura-db/kura/internal/attr"
)

// typeName is the short DynamoDB type name ("S", "NS", ...).
func typeName(t attr.Type) string { return t.String() }

// longTypeName is the name DynamoDB uses for ADD/DELETE operand types.
func longTypeName(t attr.Type) string {
	switch t {
	case attr.S:
		return "STRING"
	case attr.N:
		return "NUMBER"
	case attr.B:
		return "BINARY"
	case attr.NULL:
		return "NULL"
	case attr.BOOL:
		return "BOOLEAN"
	case attr.L:
		return "LIST"
	case attr.M:
		return "MAP"
	}
	return t.String()
}

// formatValue prints v the way DynamoDB does inside messages, e.g. {N:5}.
func formatValue(v attr.Value) string {
	return "{" + v.T.String() + ":" + valueText(v) + "}"
}

func valueText(v attr.Value) string {
	switch v.T {
	case attr.S, attr.N:
		return v.Str
	case attr.B:
		return base64.StdEncoding.EncodeToString(v.Bin)
	case attr.BOOL:
		if v.Bool {
			return "true"
		}
		return "false"
	case attr.NULL:
		return "true"
	case attr.SS, attr.NS:
		return "[" + strings.Join(v.Strs, ", ") + "]"
	case attr.BS:
		parts := make([]string, len(v.Bins))
		for i, b := range v.Bins {
			parts[i] = base64.StdEncoding.EncodeToString(b)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case attr.L:
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case attr.M:
		keys := sortedKeys(v.Map)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + formatValue(v.Map[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// compareValues orders two S, N or B values of the same type.
func compareValues(a, b attr.Value) (int, bool) { return attr.Compare(a, b) }

// getPath returns the value at path in item.
func getPath(item attr.Item, path Path) (attr.Value, bool) {
	if len(path) == 0 || path[0].IsIndex {
		return attr.Value{}, false
	}
	v, ok := item[path[0].Name]
	if !ok {
		return attr.Value{}, false
	}
	for _, e := range path[1:] {
		switch {
		case e.IsIndex && v.T == attr.L:
			if e.Index >= len(v.List) {
				return attr.Value{}, false
			}
			v = v.List[e.Index]
		case !e.IsIndex && v.T == attr.M:
			if v, ok = v.Map[e.Name]; !ok {
				return attr.Value{}, false
			}
		default:
			return attr.Value{}, false
		}
	}
	return v, true
}

// setContains reports whether the set s contains the scalar e.
func setContains(s, e attr.Value) bool {
	switch {
	case s.T == attr.SS && e.T == attr.S:
		for _, x := range s.Strs {
			if x == e.Str {
				return true
			}
		}
	case s.T == attr.NS && e.T == attr.N:
		for _, x := range s.Strs {
			if attr.CompareNumbers(x, e.Str) == 0 {
				return true
			}
		}
	case s.T == attr.BS && e.T == attr.B:
		for _, x := range s.Bins {
			if bytes.Equal(x, e.Bin) {
				return true
			}
		}
	}
	return false
}
