package attr

// DecodeItemJSONAt is the fast path of DecodeItemJSON for a decoder that
// splits a larger document itself: it decodes the JSON object of attribute
// name → AttributeValue that starts at b[i] (after optional whitespace) and
// returns it with the offset just past its closing brace.
//
// It reports ok=false, and the caller must fall back to the full decoding
// path for the exact error, whenever the value is not a JSON object, is
// malformed, fails a request check, or uses anything that a strict JSON
// syntax check might reject (unknown AttributeValue members, numbers in
// BOOL or NULL). When ok is true the item is exactly what DecodeItemJSON
// returns for the bytes b[i:end].
func DecodeItemJSONAt(b []byte, i int) (it Item, end int, ok bool) {
	d := decoder{b: b, i: i}
	if d.peek() != '{' {
		return nil, i, false
	}
	m := d.object(0, 0, ctxMap)
	if d.serr != nil || d.verr != nil || d.loose {
		return nil, i, false
	}
	return Item(m), d.i, true
}

// DecodeJSONAt is DecodeItemJSONAt for one AttributeValue: it decodes the
// JSON object that starts at b[i] (after optional whitespace) and returns
// it with the offset just past it, declining (ok=false) in the same cases.
// A decoder that must bound a map as it is built (the request's
// ExpressionAttributeValues) reads the map itself and each value with it.
func DecodeJSONAt(b []byte, i int) (v Value, end int, ok bool) {
	d := decoder{b: b, i: i}
	if d.peek() != '{' {
		return Value{}, i, false
	}
	v = d.value(0, 0)
	if d.serr != nil || d.verr != nil || d.loose {
		return Value{}, i, false
	}
	return v, d.i, true
}
