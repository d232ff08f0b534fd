package api

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

func TestJSONDepth(t *testing.T) {
	for body, want := range map[string]int{
		`{}`: 1, `{"a":[1,{"b":2}]}`: 3, `{"a":"{[{["}`: 1, `{"a":"\"{"}`: 1, `[]`: 1, ``: 0,
		`{"Item":{"d":` + strings.Repeat(`{"M":{"n":`, 63) + `{"S":"x"}` + strings.Repeat(`}}`, 63) + `}}`: 129,
	} {
		if got := jsonDepth([]byte(body)); got != want {
			t.Errorf("jsonDepth(%.40s) = %d, want %d", body, got, want)
		}
	}
}

func TestWithoutValues(t *testing.T) {
	got, ok := withoutValues([]byte(`{"TableName":"t","Item":{"a":{"N":"x"}},"Key":null,"ExpressionAttributeValues":{":v":{"S":""}},` +
		`"Expected":{"a":{"Value":{"N":"x"},"ComparisonOperator":"EQ","AttributeValueList":[]}},"AttributeUpdates":{"b":{"Action":"PUT","Value":{"S":"1"}}}}`))
	want := `{"AttributeUpdates":{"b":{"Action":"PUT"}},"Expected":{"a":{"ComparisonOperator":"EQ"}},"ExpressionAttributeValues":{},"Item":{},"Key":null,"TableName":"t"}`
	if !ok || string(got) != want {
		t.Errorf("withoutValues = %s, %v", got, ok)
	}
}

// FuzzRequestShapes feeds arbitrary bodies to the helpers that read a
// refused request again (strict member checks, deep requests, placeholder
// values): none may panic, and what they return must be DynamoDB errors.
func FuzzRequestShapes(f *testing.F) {
	for _, s := range []string{`{}`, `{"TableName":null}`, `{"IndexName":"x","TopK":1}`, `{"Put":{"Item":{"":{"S":"x"}}}}`,
		`{"Update":{"ExpressionAttributeValues":{":v":{"N":""}}}}`, `{"Expected":{"a":{"Value":{"M":{}}}}}`, `[1,2`, `"x"`,
		`{"Limit":2.5,"ProvisionedThroughput":{"ReadCapacityUnits":1e1}}`, `{"TopK":1.5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = jsonDepth(body)
		if out, ok := withoutValues(body); ok && !json.Valid(out) {
			t.Fatalf("withoutValues(%q) = %q", body, out)
		}
		_ = requiredMembersFault(body, searchVectorsMembers)
		if e := topKFloatFault(body); e != nil && !strings.HasPrefix(e.Message, "invalid type: floating point `") {
			t.Fatalf("topKFloatFault(%q) = %v", body, e)
		}
		_, _ = firstFaultyValue(body)
		orig := errors.New("original")
		if err := placeholderValueFault(body, orig); err != orig && !strings.HasPrefix(err.Error(), "ValidationException: ExpressionAttributeValues contains invalid value: ") {
			t.Fatalf("placeholderValueFault(%q) = %v", body, err)
		}
		_ = olderActionFault(body, nil)
		// The full decoder (which takes fractional integers' integer parts)
		// answers with DynamoDB errors only.
		for _, in := range []any{new(wire.CreateTableInput), new(wire.QueryInput), new(wire.SearchVectorsInput)} {
			if err := decode(body, in); err != nil {
				if _, ok := err.(*ddberr.Error); !ok {
					t.Fatalf("decode(%q) into %T: %v", body, in, err)
				}
			}
		}
	})
}
