package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// DynamoDB validates an enum member sent as "" like any other value that is
// not in its set ("Value ” at 'billingMode' failed to satisfy constraint:
// Member must satisfy enum value set: [...]"; live probes, October 2026),
// while the decoded request cannot tell "" from an absent member: the wire
// types hold enums as plain strings. So, for the rare body that contains
// an empty string at all, markEmptyEnums finds the enum members (the
// request's string-kind fields; every other string member is a pointer)
// that the JSON sets to "", and gives them explicitEmpty until validation
// has run. The validator reports explicitEmpty as ”; a member no check
// looks at is set back to "" before the backend sees the request.
const explicitEmpty = "\x00"

var emptyJSONString = []byte(`""`)

// hasEmptyMember reports whether body may give some member other than an
// attribute value's "S" the value "": only then is the walk worth its cost
// (empty strings in items are common and are data). It looks at the key
// before each "" that follows a colon; a string value containing `":""`
// can make it answer true for nothing, which only costs the walk.
func hasEmptyMember(body []byte) bool {
	for i := 0; ; {
		j := bytes.Index(body[i:], emptyJSONString)
		if j < 0 {
			return false
		}
		at := i + j
		i = at + 2
		k := at - 1
		for k >= 0 && isJSONSpace(body[k]) {
			k--
		}
		if k < 0 || body[k] != ':' {
			continue // a key, an array element, or inside a string
		}
		for k--; k >= 0 && isJSONSpace(body[k]); k-- {
		}
		if k >= 2 && body[k] == '"' && body[k-1] == 'S' && body[k-2] == '"' {
			continue // {"S":""}
		}
		return true
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// markEmptyEnums sets the enum members body gives as "" to explicitEmpty
// and returns them, for unmarkEmptyEnums.
func markEmptyEnums(body []byte, in any) []reflect.Value {
	if !hasEmptyMember(body) {
		return nil
	}
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return nil
	}
	var marked []reflect.Value
	markEmpty(reflect.ValueOf(in), doc, &marked)
	return marked
}

func unmarkEmptyEnums(marked []reflect.Value) {
	for _, v := range marked {
		v.SetString("")
	}
}

// markEmpty walks a decoded value and its JSON side by side: structs and
// the objects they came from, slices and their arrays. Maps (items, keys,
// expression values) are not walked: their strings are data.
func markEmpty(v reflect.Value, doc any, marked *[]reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			markEmpty(v.Elem(), doc, marked)
		}
	case reflect.Struct:
		obj, ok := doc.(map[string]any)
		if !ok {
			return
		}
		t := v.Type()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			jv, present := obj[name]
			if !present || name == "" || !t.Field(i).IsExported() {
				continue
			}
			f := v.Field(i)
			if f.Kind() == reflect.String {
				if s, ok := jv.(string); ok && s == "" && f.CanSet() {
					f.SetString(explicitEmpty)
					*marked = append(*marked, f)
				}
				continue
			}
			markEmpty(f, jv, marked)
		}
	case reflect.Slice:
		arr, ok := doc.([]any)
		if !ok {
			return
		}
		for i := 0; i < v.Len() && i < len(arr); i++ {
			markEmpty(v.Index(i), arr[i], marked)
		}
	}
}
