package expr

import (
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

func sv(s string) attr.Value { return attr.Value{T: attr.S, Str: s} }
func nv(s string) attr.Value { return attr.Value{T: attr.N, Str: s} }

func msg(err error) string {
	if err == nil {
		return ""
	}
	return errText(err)
}

func TestLegacyExpected(t *testing.T) {
	f, tr := false, true
	v := nv("1")
	item := attr.Item{"a": nv("1"), "s": sv("hello")}
	for _, tc := range []struct {
		exp  map[string]wire.ExpectedAttributeValue
		op   string
		want string // condition or error
		eval bool
	}{
		{exp: map[string]wire.ExpectedAttributeValue{"a": {Value: &v}}, want: "a = {N:1}", eval: true},
		{exp: map[string]wire.ExpectedAttributeValue{"a": {Exists: &f}}, want: "attribute_not_exists(a)"},
		{exp: map[string]wire.ExpectedAttributeValue{"a": {Exists: &tr}},
			want: "error: 1 validation error detected: One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
		{exp: map[string]wire.ExpectedAttributeValue{"a": {}},
			want: "error: 1 validation error detected: One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"},
		{exp: map[string]wire.ExpectedAttributeValue{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{nv("0"), nv("2")}},
			"s": {ComparisonOperator: "NOT_CONTAINS", AttributeValueList: []attr.Value{sv("z")}}}, op: "OR",
			want: "(a BETWEEN {N:0} AND {N:2} OR (attribute_exists(s) AND (NOT contains(s, {S:z}))))", eval: true},
		{exp: map[string]wire.ExpectedAttributeValue{"a": {ComparisonOperator: "EQ"}},
			want: "error: 1 validation error detected: One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{exp: map[string]wire.ExpectedAttributeValue{"a": {ComparisonOperator: "NULL", AttributeValueList: []attr.Value{nv("1")}}},
			want: "error: 1 validation error detected: One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
	} {
		c, err := ConvertExpected(tc.exp, tc.op)
		if err != nil {
			if got := msg(err); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
			continue
		}
		if got := c.String(); got != tc.want {
			t.Errorf("got %q want %q", got, tc.want)
		}
		if ok, _ := c.Eval(item); ok != tc.eval {
			t.Errorf("%s: eval %v", tc.want, ok)
		}
	}
}

func TestLegacyConditionsAndUpdates(t *testing.T) {
	_, err := ConvertConditions(KindFilter, map[string]wire.Condition{"a": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []attr.Value{nv("1")}}}, "")
	if want := "error: 1 validation error detected: One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"; msg(err) != want {
		t.Errorf("got %q", msg(err))
	}
	// EQ and NE take every type ("EQ is supported for all data types,
	// including lists and maps"); a filter on a BOOL matches it.
	for _, op := range []string{"EQ", "NE"} {
		f, err := ConvertConditions(KindFilter, map[string]wire.Condition{"flag": {ComparisonOperator: op, AttributeValueList: []attr.Value{{T: attr.BOOL, Bool: true}}}}, "")
		if err != nil {
			t.Fatalf("%s on a BOOL: %v", op, err)
		}
		if ok, _ := f.Eval(attr.Item{"flag": {T: attr.BOOL, Bool: true}}); ok != (op == "EQ") {
			t.Errorf("%s true on a true flag: %v", op, ok)
		}
	}
	_, err = ConvertConditions(KindFilter, map[string]wire.Condition{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{nv("5"), nv("1")}}}, "")
	if want := "error: 1 validation error detected: The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"; msg(err) != want {
		t.Errorf("got %q", msg(err))
	}
	kc, err := ConvertConditions(KindKeyCondition, map[string]wire.Condition{
		"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{sv("p")}},
		"sk": {ComparisonOperator: "GT", AttributeValueList: []attr.Value{sv("a")}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if k, err := AnalyzeKeyCondition(kc, []string{"pk"}, []string{"sk"}); err != nil || len(k.Range) != 1 || k.Range[0].Op != OpGT {
		t.Errorf("analyze: %+v %v", k, err)
	}

	l := attr.Value{T: attr.L, List: []attr.Value{sv("x")}}
	set := attr.Value{T: attr.SS, Strs: []string{"a"}}
	u, err := ConvertAttributeUpdates(map[string]wire.AttributeValueUpdate{
		"n": {Action: "ADD", Value: &attr.Value{T: attr.N, Str: "2"}},
		"l": {Action: "ADD", Value: &l},
		"s": {Action: "DELETE", Value: &set},
		"p": {Value: &attr.Value{T: attr.S, Str: "v"}},
		"r": {Action: "DELETE"},
	})
	if err != nil {
		t.Fatal(err)
	}
	in := attr.Item{"n": nv("1"), "l": l, "s": set, "r": sv("gone")}
	out, _, err := u.Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formatItem(out), `{"l":{"L":[{"S":"x"},{"S":"x"}]},"n":{"N":"3"},"p":{"S":"v"}}`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	// ADD or DELETE onto an attribute of another type: DynamoDB's legacy
	// text, not the expression one.
	for _, action := range []string{"ADD", "DELETE"} {
		bad, err := ConvertAttributeUpdates(map[string]wire.AttributeValueUpdate{"p": {Action: action, Value: &set}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := bad.Apply(attr.Item{"p": sv("text")}); msg(err) != "error: Type mismatch for attribute to update" {
			t.Errorf("%s onto a string: %q", action, msg(err))
		}
	}
	_, err = ConvertAttributeUpdates(map[string]wire.AttributeValueUpdate{"a": {Action: "PUT"}})
	if want := "error: 1 validation error detected: One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"; msg(err) != want {
		t.Errorf("got %q", msg(err))
	}
	pr, err := ConvertAttributesToGet([]string{"a", "b"})
	if err != nil || pr.String() != "a, b" {
		t.Errorf("projection %v %v", pr, err)
	}
}

func TestParamsAndMixing(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{CheckMixed([]string{"Expected"}, []string{"ConditionExpression"}),
			"error: 1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{CheckMixed([]string{"AttributesToGet", "QueryFilter"}, []string{"ProjectionExpression", "FilterExpression"}),
			"error: 1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, QueryFilter} Expression parameters: {ProjectionExpression, FilterExpression}"},
		{ValidateParams(nil, attr.Item{":v": nv("1")}, false, false),
			"error: 1 validation error detected: ExpressionAttributeValues can only be specified when using expressions"},
		{ValidateParams(map[string]string{"#a": "a"}, nil, false, false),
			"error: 1 validation error detected: ExpressionAttributeNames can only be specified when using expressions"},
		{ValidateParams(map[string]string{}, nil, true, true), "error: 1 validation error detected: ExpressionAttributeNames must not be empty"},
		{ValidateParams(nil, attr.Item{}, true, true), "error: 1 validation error detected: ExpressionAttributeValues must not be empty"},
		{ValidateParams(map[string]string{"a": "a"}, nil, true, true),
			`error: 1 validation error detected: ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		// The first invalid key in sorted order is named.
		{ValidateParams(map[string]string{"#ok_1": "a", "#z-": "b", "#": "c", "#é": "d"}, nil, true, true),
			`error: 1 validation error detected: ExpressionAttributeNames contains invalid key: Syntax error; key: "#"`},
		{ValidateParams(map[string]string{"#Az09_": "a"}, attr.Item{":b": nv("1"), ":a.b": nv("1"), "::": nv("1")}, true, true),
			`error: 1 validation error detected: ExpressionAttributeValues contains invalid key: Syntax error; key: "::"`},
		{ValidateParams(map[string]string{"#Az09_": "a"}, attr.Item{":_": nv("1")}, true, true), ""},
	} {
		if got := msg(tc.err); got != tc.want {
			t.Errorf("got %q\nwant %q", got, tc.want)
		}
	}
}
