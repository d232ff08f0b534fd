package attr

import (
	"encoding/json"
	"errors"
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
		{`{"SS":["b","a",""]}`, `{"SS":["b","a",""]}`},
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
		{`{"NS":["1","1.0"]}`, p + "Input collection contains duplicates"},
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
	cases := []struct{ in, want string }{
		{`{"S":5}`, "class java.lang.Short can not be converted to an String"},
		{`{"S":100000}`, "class java.lang.Integer can not be converted to an String"},
		{`{"S":1.5}`, "class java.lang.Double can not be converted to an String"},
		{`{"S":true}`, "class java.lang.Boolean can not be converted to an String"},
		{`{"S":{}}`, "Start of structure or map found where not expected."},
		{`{"S":[]}`, "Start of list found where not expected"},
		{`{"N":1}`, "class java.lang.Short can not be converted to an String"},
		{`{"B":5}`, "class java.lang.Short can not be converted to a Blob"},
		{`{"B":"abc"}`, "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
		{`{"B":"ab*d"}`, "'ab*d' can not be converted to a Blob: Invalid Base64 character: '*'"},
		{`{"B":"AB=="}`, "'AB==' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"},
		{`{"BOOL":"yes"}`, "'YES' can not be converted to an Boolean"},
		{`{"BOOL":1}`, "class java.lang.Short can not be converted to an Boolean"},
		{`{"M":[]}`, "Start of list found where not expected"},
		{`{"M":"x"}`, "Expected map or null"},
		{`{"L":{}}`, "Start of structure or map found where not expected."},
		{`{"L":"x"}`, "Expected list or null"},
		{`{"SS":[1]}`, "class java.lang.Short can not be converted to an String"},
		{`"x"`, "Expected null"},
		// A serialization problem wins over an earlier validation problem.
		{`{"L":[{"N":"bad"},{"S":5}]}`, "class java.lang.Short can not be converted to an String"},
	}
	for _, c := range cases {
		_, err := DecodeJSON([]byte(c.in))
		var se *SerializationError
		if !errors.As(err, &se) || se.Msg != c.want {
			t.Errorf("DecodeJSON(%s) = %v\n want serialization %q", c.in, err, c.want)
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
	// The first problem in document order wins.
	_, err := DecodeJSON([]byte(deepJSON(40, `{"N":"abc"}`)))
	if err == nil || !strings.Contains(err.Error(), "Nesting Levels") {
		t.Errorf("deep bad number: %v", err)
	}
	_, err = DecodeItemJSON([]byte(`{"bad":{"N":"abc"},"d":` + deepJSON(40, `{"S":"x"}`) + `}`))
	if err == nil || !strings.Contains(err.Error(), "numeric value: abc") {
		t.Errorf("bad before deep: %v", err)
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
	if r.Item["n"].Str != "1.1" || r.Item["m"].Map["x"].Strs[1] != "1" || !r.Parameters[0].Bool {
		t.Fatalf("decoded %+v", r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"TableName":"t","Item":{"m":{"M":{"x":{"NS":["2","1"]}}},"n":{"N":"1.1"},"pk":{"S":"a"}},"Parameters":[{"BOOL":true}]}`
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
