package attr

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
)

func TestJSONRoundTrip(t *testing.T) {
	cases := []struct{ in, out string }{
		{`{"S":"x"}`, `{"S":"x"}`},
		{`{"S":""}`, `{"S":""}`},
		{`{"S":"a\"b\\c\n\u0001\u00e9\ud83d\ude00"}`, `{"S":"a\"b\\c\n\u0001é😀"}`},
		{`{"N":"1.50"}`, `{"N":"1.5"}`},
		{`{"N":"-0"}`, `{"N":"0"}`},
		{`{"B":"AAEC"}`, `{"B":"AAEC"}`},
		{`{"B":""}`, `{"B":""}`},
		{`{"BOOL":true}`, `{"BOOL":true}`},
		{`{"BOOL":false}`, `{"BOOL":false}`},
		{`{"NULL":true}`, `{"NULL":true}`},
		{` { "M" : { "b" : {"N":"2"}, "a":{"S":"1"} } } `, `{"M":{"a":{"S":"1"},"b":{"N":"2"}}}`},
		{`{"M":{}}`, `{"M":{}}`},
		{`{"L":[]}`, `{"L":[]}`},
		{`{"L":[{"S":"a"},{"L":[{"NULL":true}]}]}`, `{"L":[{"S":"a"},{"L":[{"NULL":true}]}]}`},
		// Sets come back in DynamoDB's order (bytewise, by value).
		{`{"SS":["b","a",""]}`, `{"SS":["","a","b"]}`},
		{`{"NS":["10","2","-1.5"]}`, `{"NS":["-1.5","2","10"]}`},
		{`{"NS":["1.0","2e1"]}`, `{"NS":["1","20"]}`},
		{`{"BS":["AA==","AQ=="]}`, `{"BS":["AA==","AQ=="]}`},
		{`{"S":"x","N":null}`, `{"S":"x"}`},
		{`{"S":"x","Unknown":{"deep":[1,2,{"a":null}]}}`, `{"S":"x"}`},
	}
	for _, c := range cases {
		v, err := DecodeJSON([]byte(c.in))
		if err != nil {
			t.Errorf("DecodeJSON(%s): %v", c.in, err)
			continue
		}
		if got := string(AppendJSON(nil, v)); got != c.out {
			t.Errorf("DecodeJSON(%s) re-encodes as %s, want %s", c.in, got, c.out)
		}
	}
}

func TestJSONErrors(t *testing.T) {
	p := ddberr.Detected1
	cases := []struct{ in, want string }{
		{`{}`, p + "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{`{"S":null}`, p + "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{`{"S":"a","N":"1"}`, p + "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{`{"S":"a","N":"b"}`, p + "The parameter cannot be converted to a numeric value: b"},
		{`{"NULL":false}`, p + "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{`{"SS":[]}`, p + "One or more parameter values were invalid: An string set  may not be empty"},
		{`{"NS":[]}`, p + "One or more parameter values were invalid: An number set  may not be empty"},
		{`{"BS":[]}`, p + "One or more parameter values were invalid: Binary sets should not be empty"},
		{`{"SS":["a","a"]}`, p + `One or more parameter values were invalid: Input collection ["a", "a"] contains duplicates.`},
		{`{"SS":["",""]}`, p + `One or more parameter values were invalid: Input collection ["", ""] contains duplicates.`},
		{`{"BS":["",""]}`, p + `One or more parameter values were invalid: Input collection ["",""]of type BS contains duplicates.`},
		{`{"NS":[""]}`, p + "The parameter cannot be converted to a numeric value: "},
		{`{"NS":["1","b"]}`, p + "The parameter cannot be converted to a numeric value: b"},
		{`{"NS":["1","1.0"]}`, p + "One or more parameter values were invalid: Input collection contains duplicates."},
		{`{"N":"1e126"}`, p + "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{`{"L":[{"N":"x"},{"N":"1e-131"}]}`, p + "The parameter cannot be converted to a numeric value: x"},
		{`{"M":{"a":{}}}`, p + "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{`{"L":[null]}`, p + "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
	}
	for _, c := range cases {
		_, err := DecodeJSON([]byte(c.in))
		var de *ddberr.Error
		if !errors.As(err, &de) || de.Message != c.want || de.Type != "ValidationException" {
			t.Errorf("DecodeJSON(%s) = %v\n want %s", c.in, err, c.want)
		}
	}
}

func TestJSONSerializationErrors(t *testing.T) {
	// DynamoDB's texts as re-checked against AWS by dynalite 4.0.0.
	const (
		startMap   = "Start of structure or map found where not expected"
		fieldType  = "Unexpected field type"
		valueType  = "Unexpected value type in payload"
		avArray    = "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"
		itemArray  = "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"
		notBase64  = "only base-64-encoded strings are convertible to bytes"
		badBase64  = "Invalid last non-pad Base64 character dectected"
		badBoolStr = "Unexpected token received from parser"
	)
	cases := []struct{ in, want string }{
		// String (S, N, SS and NS elements).
		{`{"S":5}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"S":100000}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"S":-1.0}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"S":1e2}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"S":1.5}`, "DECIMAL_VALUE cannot be converted to String"},
		{`{"S":-2.5e-3}`, "DECIMAL_VALUE cannot be converted to String"},
		{`{"S":1e400}`, "DECIMAL_VALUE cannot be converted to String"},
		{`{"S":true}`, "TRUE_VALUE cannot be converted to String"},
		{`{"S":false}`, "FALSE_VALUE cannot be converted to String"},
		{`{"S":{}}`, startMap},
		{`{"S":[]}`, "Unrecognized collection type class java.lang.String"},
		{`{"N":1}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"N":true}`, "TRUE_VALUE cannot be converted to String"},
		{`{"SS":[1]}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"NS":["1",2.5]}`, "DECIMAL_VALUE cannot be converted to String"},
		{`{"SS":[["a"]]}`, "Unrecognized collection type class java.lang.String"},
		{`{"SS":[{}]}`, startMap},
		// Blob (B, BS elements).
		{`{"B":5}`, notBase64},
		{`{"B":1.5}`, notBase64},
		{`{"B":true}`, notBase64},
		{`{"B":[]}`, "Unrecognized collection type class java.nio.ByteBuffer"},
		{`{"B":{}}`, startMap},
		{`{"BS":[false]}`, notBase64},
		{`{"BS":[[]]}`, "Unrecognized collection type class java.nio.ByteBuffer"},
		{`{"B":"abc"}`, "Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
		{`{"B":"ab*d"}`, badBase64},
		{`{"B":"AB=="}`, badBase64},
		{`{"B":"AA=A"}`, badBase64},
		{`{"B":"AAAA\n\n\n\n"}`, badBase64},
		// Boolean (BOOL, NULL).
		{`{"BOOL":1}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{`{"BOOL":0}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{`{"BOOL":1.5}`, "DECIMAL_VALUE cannot be converted to Boolean"},
		{`{"NULL":1}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{`{"BOOL":"maybe"}`, badBoolStr},
		{`{"BOOL":""}`, badBoolStr},
		{`{"NULL":"y"}`, badBoolStr},
		{`{"BOOL":[]}`, "Unrecognized collection type class java.lang.Boolean"},
		{`{"BOOL":{}}`, startMap},
		// Lists (L, SS, NS, BS).
		{`{"L":"x"}`, fieldType},
		{`{"L":5}`, fieldType},
		{`{"SS":true}`, fieldType},
		{`{"NS":"1"}`, fieldType},
		{`{"BS":"AA=="}`, fieldType},
		{`{"L":{}}`, startMap},
		{`{"SS":{"a":"b"}}`, startMap},
		// Map (M).
		{`{"M":"x"}`, fieldType},
		{`{"M":1}`, fieldType},
		{`{"M":false}`, fieldType},
		{`{"M":[]}`, itemArray},
		// AttributeValue positions (elements of L and M, the value itself).
		{`{"L":["x"]}`, valueType},
		{`{"L":[1]}`, valueType},
		{`{"L":[true]}`, valueType},
		{`{"L":[[]]}`, avArray},
		{`{"M":{"a":"x"}}`, valueType},
		{`{"M":{"a":[{"S":"x"}]}}`, avArray},
		{`"x"`, valueType},
		{`5`, valueType},
		{`[]`, avArray},
		// A serialization problem wins over an earlier validation problem.
		{`{"L":[{"N":"bad"},{"S":5}]}`, "NUMBER_VALUE cannot be converted to String"},
	}
	for _, c := range cases {
		_, err := DecodeJSON([]byte(c.in))
		var se *SerializationError
		if !errors.As(err, &se) || se.Msg != c.want {
			t.Errorf("DecodeJSON(%s) = %v\n want serialization %q", c.in, err, c.want)
		}
		if se != nil && se.DDB().MessageKey() != "Message" {
			t.Errorf("DecodeJSON(%s): message key %q", c.in, se.DDB().MessageKey())
		}
	}
	items := []struct{ in, want string }{
		{`"x"`, fieldType},
		{`7`, fieldType},
		{`true`, fieldType},
		{`[]`, itemArray},
		{`{"a":5}`, valueType},
		{`{"a":[]}`, avArray},
		{`{"a":{"M":{"b":{"L":[{"BOOL":"nope"}]}}}}`, badBoolStr},
	}
	for _, c := range items {
		_, err := DecodeItemJSON([]byte(c.in))
		var se *SerializationError
		if !errors.As(err, &se) || se.Msg != c.want {
			t.Errorf("DecodeItemJSON(%s) = %v\n want serialization %q", c.in, err, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"S":"x"`, `{"S":"x"}x`, `{"S":"\x"}`, `{"S":"a` + "\x01" + `"}`, `{S:1}`, `[`} {
		_, err := DecodeJSON([]byte(bad))
		var se *SerializationError
		if !errors.As(err, &se) {
			t.Errorf("DecodeJSON(%q) = %v, want SerializationError", bad, err)
		}
	}
	if got := (&SerializationError{Msg: "m"}).DDB().Type; got != "SerializationException" {
		t.Errorf("DDB type %s", got)
	}
}

// TestJSONBooleanStrings: like DynamoDB's deserialiser, BOOL and NULL take
// the strings true/1/yes and false/0/no in any case.
func TestJSONBooleanStrings(t *testing.T) {
	for s, want := range map[string]bool{
		"true": true, "TRUE": true, "True": true, "1": true, "yes": true, "YeS": true,
		"false": false, "FALSE": false, "0": false, "no": false, "No": false,
	} {
		v, err := DecodeJSON([]byte(`{"BOOL":"` + s + `"}`))
		if err != nil || v.T != BOOL || v.Bool != want {
			t.Errorf("BOOL %q = %+v, %v; want %v", s, v, err, want)
		}
		v, err = DecodeJSON([]byte(`{"NULL":"` + s + `"}`))
		if want && (err != nil || v.T != NULL) {
			t.Errorf("NULL %q = %+v, %v", s, v, err)
		}
		var de *ddberr.Error
		if !want && (!errors.As(err, &de) || de.Type != "ValidationException") {
			t.Errorf("NULL %q = %v, want the NULL-must-be-true ValidationException", s, err)
		}
	}
	// The fast path agrees.
	it, _, ok := DecodeItemJSONAt([]byte(`{"a":{"BOOL":"Yes"}}`), 0)
	if !ok || it["a"].T != BOOL || !it["a"].Bool {
		t.Errorf("DecodeItemJSONAt: %+v %v", it, ok)
	}
}

// TestJSONSyntaxBeforeMismatch: a malformed token where a value of another
// kind is expected is a syntax error, not a type mismatch.
func TestJSONSyntaxBeforeMismatch(t *testing.T) {
	for _, in := range []string{`{"S":x}`, `{"S":tru}`, `{"BOOL":nul}`, `{"L":[x]}`, `{"M":-}`, `x`} {
		_, err := DecodeJSON([]byte(in))
		var se *SerializationError
		if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "Unexpected ") || strings.Contains(se.Msg, "type") {
			t.Errorf("DecodeJSON(%s) = %v, want a syntax error", in, err)
		}
	}
}

// TestValueUnmarshalTypeError: a Value that is not an object reaches
// encoding/json as an UnmarshalTypeError, which then carries the member
// path the api layer needs to word the error.
func TestValueUnmarshalTypeError(t *testing.T) {
	var in struct {
		Value  *Value  `json:"Value"`
		Values []Value `json:"Values"`
	}
	for body, want := range map[string][2]string{
		`{"Value":"x"}`:    {"string", "Value"},
		`{"Value":1.5}`:    {"number", "Value"},
		`{"Value":true}`:   {"bool", "Value"},
		`{"Value":[]}`:     {"array", "Value"},
		`{"Values":[7]}`:   {"number", "Values"},
		`{"Values":[[1]]}`: {"array", "Values"},
	} {
		err := json.Unmarshal([]byte(body), &in)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Value != want[0] || te.Field != want[1] || te.Type != reflect.TypeFor[Value]() {
			t.Errorf("%s: %#v", body, err)
		}
	}
	// Inside the value the decoder's own texts apply.
	err := json.Unmarshal([]byte(`{"Value":{"S":1}}`), &in)
	var se *SerializationError
	if !errors.As(err, &se) || se.Msg != "NUMBER_VALUE cannot be converted to String" {
		t.Errorf("nested: %v", err)
	}
}

func deepJSON(depth int, leaf string) string {
	return strings.Repeat(`{"M":{"n":`, depth) + leaf + strings.Repeat(`}}`, depth)
}

func TestJSONNesting(t *testing.T) {
	nest := ddberr.Detected1 + "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	if _, err := DecodeJSON([]byte(deepJSON(MaxDepth, `{"S":"leaf"}`))); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	// us-east-1 rejects a value wrapped in 32 maps (capture 2026-08-12).
	for _, d := range []int{32, 40, 100} {
		_, err := DecodeJSON([]byte(deepJSON(d, `{"S":"leaf"}`)))
		if err == nil || err.Error() != "ValidationException: "+nest {
			t.Errorf("depth %d: %v", d, err)
		}
	}
	// The nesting and an unreadable number are found while parsing, so the
	// first in document order wins; names are checked after, so the
	// nesting beats a bad name met earlier (us-east-1 and eu-west-2,
	// 2026-10-09).
	_, err := DecodeJSON([]byte(deepJSON(40, `{"N":"abc"}`)))
	if err == nil || !strings.Contains(err.Error(), "Nesting Levels") {
		t.Errorf("deep bad number: %v", err)
	}
	_, err = DecodeItemJSON([]byte(`{"bad":{"M":{"":{"S":"x"}}},"d":` + deepJSON(40, `{"S":"x"}`) + `}`))
	if err == nil || !strings.Contains(err.Error(), "Nesting Levels") {
		t.Errorf("empty name before deep: %v", err)
	}
	_, err = DecodeItemJSON([]byte(`{"bad":{"N":"abc"},"d":` + deepJSON(40, `{"S":"x"}`) + `}`))
	if err == nil || !strings.Contains(err.Error(), "numeric value: abc") {
		t.Errorf("bad number before deep: %v", err)
	}
	list := strings.Repeat(`{"L":[`, 32) + `{"S":"x"}` + strings.Repeat(`]}`, 32)
	if _, err := DecodeJSON([]byte(list)); err == nil || !strings.Contains(err.Error(), "Nesting") {
		t.Errorf("deep list: %v", err)
	}
	if d := Depth(mustJSON(t, deepJSON(5, `{"S":"x"}`))); d != 5 {
		t.Errorf("Depth = %d", d)
	}
	if err := Validate(mustJSON(t, deepJSON(31, `{"S":"x"}`))); err != nil {
		t.Errorf("Validate depth 31: %v", err)
	}
	deep := mustJSON(t, deepJSON(31, `{"S":"x"}`))
	if err := Validate(Value{T: L, List: []Value{deep}}); err == nil {
		t.Errorf("Validate depth 32 accepted")
	}
	if d := strings.Repeat("[", 20000); true {
		if _, err := DecodeJSON([]byte(`{"X":` + d)); err == nil {
			t.Errorf("hostile nesting accepted")
		}
	}
}

func mustJSON(t testing.TB, s string) Value {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("DecodeJSON(%s): %v", s, err)
	}
	return v
}

// The wire structs hold attr.Item / attr.Value fields decoded by
// encoding/json: errors must come through unchanged.
func TestEncodingJSONIntegration(t *testing.T) {
	type req struct {
		TableName                 *string
		Item                      Item    `json:"Item,omitempty"`
		ExpressionAttributeValues Item    `json:"ExpressionAttributeValues,omitempty"`
		Parameters                []Value `json:"Parameters,omitempty"`
	}
	var r req
	in := `{"TableName":"t","Item":{"pk":{"S":"a"},"n":{"N":"01.10"},"m":{"M":{"x":{"NS":["2","1"]}}}},"Parameters":[{"BOOL":true}]}`
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.Item["n"].Str != "1.1" || r.Item["m"].Map["x"].Strs[0] != "1" || !r.Parameters[0].Bool {
		t.Fatalf("decoded %+v", r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"TableName":"t","Item":{"m":{"M":{"x":{"NS":["1","2"]}}},"n":{"N":"1.1"},"pk":{"S":"a"}},"Parameters":[{"BOOL":true}]}`
	if string(out) != want {
		t.Errorf("Marshal = %s", out)
	}
	err = json.Unmarshal([]byte(`{"Item":{"a":{"SS":[]}}}`), &r)
	var de *ddberr.Error
	if !errors.As(err, &de) || !strings.HasSuffix(de.Message, "An string set  may not be empty") {
		t.Errorf("validation error through encoding/json: %v", err)
	}
	err = json.Unmarshal([]byte(`{"ExpressionAttributeValues":{":a":{"S":5}}}`), &r)
	var se *SerializationError
	if !errors.As(err, &se) {
		t.Errorf("serialization error through encoding/json: %T %v", err, err)
	}
	var nilItem Item
	if b, _ := json.Marshal(nilItem); string(b) != "null" {
		t.Errorf("nil item = %s", b)
	}
}

func TestAppendJSONStringEscapes(t *testing.T) {
	v := Value{T: S, Str: "<&>\u2028\xff\t"}
	got := string(AppendJSON(nil, v))
	if got != `{"S":"<&>\u2028\ufffd\t"}` {
		t.Errorf("got %s", got)
	}
	var back string
	if err := json.Unmarshal([]byte(got[5:len(got)-1]), &back); err != nil || back != "<&>\u2028\uFFFD\t" {
		t.Errorf("not valid JSON: %v %q", err, back)
	}
}

// Attribute names longer than MaxNameSize bytes are refused wherever a map
// of names sits: an item's names, M keys at any depth, and in values built
// in memory (Validate, ValidateItem).
func TestNameTooLarge(t *testing.T) {
	want := "ValidationException: " + ddberr.Detected1 + "Attribute name is too large, must be less than 65536 bytes"
	long := strings.Repeat("n", MaxNameSize+1)
	for _, doc := range []string{
		`{"` + long + `":{"S":"x"}}`,
		`{"a":{"M":{"` + long + `":{"S":"x"}}}}`,
		`{"a":{"L":[{"M":{"b":{"M":{"` + long + `":{"NULL":true}}}}}]}}`,
	} {
		if _, err := DecodeItemJSON([]byte(doc)); err == nil || err.Error() != want {
			t.Errorf("%.40s...: %v", doc, err)
		}
	}
	ok := `{"` + long[1:] + `":{"M":{"` + long[1:] + `":{"S":"x"}}}}`
	if _, err := DecodeItemJSON([]byte(ok)); err != nil {
		t.Errorf("%d bytes: %v", MaxNameSize, err)
	}
	nested := Value{T: M, Map: map[string]Value{long: {T: S, Str: "x"}}}
	if err := Validate(nested); err == nil || err.Error() != want {
		t.Errorf("Validate: %v", err)
	}
	if err := ValidateItem(Item{long: {T: S, Str: "x"}}); err == nil || err.Error() != want {
		t.Errorf("ValidateItem: %v", err)
	}
}
