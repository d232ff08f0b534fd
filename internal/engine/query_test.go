package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// dpQuery runs a Query and returns the sort keys of its items, in order.
func dpQuery(t *testing.T, e *Engine, in *wire.QueryInput) (*wire.QueryOutput, []string) {
	t.Helper()
	out, err := e.Query(dpCtx, in)
	if err != nil {
		t.Fatal(err)
	}
	var sks []string
	for _, it := range out.Items {
		v := it["sk"]
		switch v.T {
		case attr.B:
			sks = append(sks, fmt.Sprintf("%x", v.Bin))
		default:
			sks = append(sks, v.Str)
		}
	}
	return out, sks
}

func TestQueryOrdering(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "num", "pk:S", "sk:N")
	dpTable(t, e, "str", "pk:S", "sk:S")
	dpTable(t, e, "bin", "pk:S", "sk:B")
	nums := []string{"10", "-5", "0", "2.5", "-0.001", "1000", "3", "-100", "0.5"}
	for _, n := range nums {
		dpPut(t, e, "num", attr.Item{"pk": dpS("p"), "sk": dpN(n)})
		dpPut(t, e, "num", attr.Item{"pk": dpS("other"), "sk": dpN(n)})
	}
	for _, s := range []string{"b", "a", "ab", "a\x00", "Z", "é", "aa"} {
		dpPut(t, e, "str", attr.Item{"pk": dpS("p"), "sk": dpS(s)})
	}
	for _, b := range [][]byte{{0xff}, {0x00}, {0x01, 0x02}, {0x01}, {0x80}} {
		dpPut(t, e, "bin", attr.Item{"pk": dpS("p"), "sk": dpB(b)})
	}
	q := func(table string, forward bool) []string {
		_, sks := dpQuery(t, e, &wire.QueryInput{TableName: dpStr(table), KeyConditionExpression: dpStr("pk = :p"),
			ExpressionAttributeValues: attr.Item{":p": dpS("p")}, ScanIndexForward: dpBool(forward)})
		return sks
	}
	for _, c := range []struct {
		table, want string
	}{
		{"num", "-100 -5 -0.001 0 0.5 2.5 3 10 1000"},
		{"str", "Z a a\x00 aa ab b é"},
		{"bin", "00 01 0102 80 ff"},
	} {
		if got := strings.Join(q(c.table, true), " "); got != c.want {
			t.Errorf("%s forward: got %q want %q", c.table, got, c.want)
		}
		rev := strings.Fields(c.want)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		if got := strings.Join(q(c.table, false), " "); got != strings.Join(rev, " ") {
			t.Errorf("%s reverse: got %q", c.table, got)
		}
	}
}

func TestQueryKeyConditions(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "str", "pk:S", "sk:S")
	for _, s := range []string{"a", "ab", "abc", "abd", "b", "ba", "c"} {
		dpPut(t, e, "str", attr.Item{"pk": dpS("p"), "sk": dpS(s), "v": dpN("1")})
	}
	for _, c := range []struct {
		cond string
		vals attr.Item
		want string
	}{
		{"pk = :p AND sk = :a", attr.Item{":a": dpS("ab")}, "ab"},
		{"pk = :p AND sk < :a", attr.Item{":a": dpS("ab")}, "a"},
		{"pk = :p AND sk <= :a", attr.Item{":a": dpS("ab")}, "a ab"},
		{"pk = :p AND sk > :a", attr.Item{":a": dpS("b")}, "ba c"},
		{"pk = :p AND sk >= :a", attr.Item{":a": dpS("b")}, "b ba c"},
		{"pk = :p AND sk BETWEEN :a AND :b", attr.Item{":a": dpS("ab"), ":b": dpS("b")}, "ab abc abd b"},
		{"pk = :p AND begins_with(sk, :a)", attr.Item{":a": dpS("ab")}, "ab abc abd"},
		{":a < sk AND pk = :p", attr.Item{":a": dpS("b")}, "ba c"},
	} {
		vals := attr.Item{":p": dpS("p")}
		for k, v := range c.vals {
			vals[k] = v
		}
		_, sks := dpQuery(t, e, &wire.QueryInput{TableName: dpStr("str"), KeyConditionExpression: dpStr(c.cond), ExpressionAttributeValues: vals})
		if got := strings.Join(sks, " "); got != c.want {
			t.Errorf("%s: got %q want %q", c.cond, got, c.want)
		}
	}
	// Legacy KeyConditions.
	_, sks := dpQuery(t, e, &wire.QueryInput{TableName: dpStr("str"), KeyConditions: map[string]wire.Condition{
		"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{dpS("p")}},
		"sk": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []attr.Value{dpS("b")}},
	}})
	if got := strings.Join(sks, " "); got != "b ba" {
		t.Errorf("KeyConditions: got %q", got)
	}
}

func TestQueryPagination(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S", "sk:N")
	for i := 0; i < 250; i++ {
		dpPut(t, e, "t", attr.Item{"pk": dpS("p"), "sk": dpN(fmt.Sprint(i)), "odd": attr.Value{T: attr.BOOL, Bool: i%2 == 1}})
	}
	for _, forward := range []bool{true, false} {
		var all []string
		var esk attr.Item
		pages, scanned := 0, 0
		for {
			out, sks := dpQuery(t, e, &wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"),
				FilterExpression: dpStr("odd = :t"), ExpressionAttributeValues: attr.Item{":p": dpS("p"), ":t": {T: attr.BOOL, Bool: true}},
				Limit: dpI32(7), ExclusiveStartKey: esk, ScanIndexForward: dpBool(forward)})
			pages++
			scanned += int(*out.ScannedCount)
			if int(*out.Count) != len(out.Items) || *out.ScannedCount > 7 {
				t.Fatalf("page counts: %d %d %d", *out.Count, len(out.Items), *out.ScannedCount)
			}
			all = append(all, sks...)
			if out.LastEvaluatedKey == nil {
				break
			}
			esk = out.LastEvaluatedKey
		}
		if len(all) != 125 || scanned != 250 || pages != 36 {
			t.Fatalf("forward=%v: %d items, %d scanned, %d pages", forward, len(all), scanned, pages)
		}
		for i, sk := range all {
			want := 2*i + 1
			if !forward {
				want = 249 - 2*i
			}
			if sk != fmt.Sprint(want) {
				t.Fatalf("forward=%v item %d: %s", forward, i, sk)
			}
		}
	}
}

func TestQueryPageSizeCap(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S", "sk:N")
	big := strings.Repeat("x", 100*1024)
	for i := 0; i < 25; i++ {
		dpPut(t, e, "t", attr.Item{"pk": dpS("p"), "sk": dpN(fmt.Sprint(i)), "big": dpS(big)})
	}
	in := &wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"),
		ExpressionAttributeValues: attr.Item{":p": dpS("p")}, Select: "COUNT", ReturnConsumedCapacity: "TOTAL"}
	out, _ := dpQuery(t, e, in)
	// Each item is just over 100 KB: the page ends with the 11th item, the
	// first to bring the page to 1 MB.
	if *out.ScannedCount != 11 || *out.Count != 11 || len(out.Items) != 0 || out.LastEvaluatedKey["sk"].Str != "10" {
		t.Fatalf("page: scanned %d count %d items %d LEK %v", *out.ScannedCount, *out.Count, len(out.Items), dpJSON(out.LastEvaluatedKey))
	}
	size := attr.ItemSize(attr.Item{"pk": dpS("p"), "sk": dpN("1"), "big": dpS(big)})
	want := float64((11*size+4095)/4096) / 2
	if got := *out.ConsumedCapacity.CapacityUnits; got != want {
		t.Fatalf("capacity %v want %v", got, want)
	}
	in.ExclusiveStartKey = out.LastEvaluatedKey
	out, _ = dpQuery(t, e, in)
	in.ExclusiveStartKey = out.LastEvaluatedKey
	out, _ = dpQuery(t, e, in)
	if *out.ScannedCount != 3 || out.LastEvaluatedKey != nil {
		t.Fatalf("last page: scanned %d LEK %v", *out.ScannedCount, dpJSON(out.LastEvaluatedKey))
	}
}

func TestQueryErrors(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S", "sk:N")
	vals := attr.Item{":p": dpS("p")}
	for _, c := range []struct {
		in       wire.QueryInput
		typ, msg string
	}{
		{wire.QueryInput{TableName: dpStr("nope"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: vals},
			"ResourceNotFoundException", "Requested resource not found"},
		{wire.QueryInput{TableName: dpStr("t")},
			"ValidationException", "1 validation error detected: Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: vals, Select: "COUNT", ProjectionExpression: dpStr("a")},
			"ValidationException", "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: vals, Select: "SPECIFIC_ATTRIBUTES"},
			"ValidationException", "1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("sk = :p"), ExpressionAttributeValues: vals},
			"ValidationException", "Query condition missed key schema element: pk"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: attr.Item{":p": dpN("1")}},
			"ValidationException", "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), FilterExpression: dpStr("sk > :p"), ExpressionAttributeValues: vals},
			"ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: vals, IndexName: dpStr("gsi")},
			"ValidationException", "The table does not have the specified index: gsi"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: vals, ExclusiveStartKey: attr.Item{"pk": dpS("p")}},
			"ValidationException", "The provided starting key is invalid"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: vals, ExclusiveStartKey: attr.Item{"pk": dpS("q"), "sk": dpN("1")}},
			"ValidationException", "The provided starting key is outside query boundaries based on provided conditions"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditionExpression: dpStr("pk = :p AND sk > :one"), ExpressionAttributeValues: attr.Item{":p": dpS("p"), ":one": dpN("1")},
			ExclusiveStartKey: attr.Item{"pk": dpS("p"), "sk": dpN("0")}},
			"ValidationException", "The provided starting key does not match the range key predicate"},
		// Legacy KeyConditions with an operator no key can answer (dynalite's
		// tests, DynamoDB Local's catalogue).
		{wire.QueryInput{TableName: dpStr("t"), KeyConditions: map[string]wire.Condition{"pk": {ComparisonOperator: "NULL"}}},
			"ValidationException", "Attempted conditional constraint is not an indexable operation"},
		{wire.QueryInput{TableName: dpStr("t"), KeyConditions: map[string]wire.Condition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{dpS("p")}},
			"sk": {ComparisonOperator: "IN", AttributeValueList: []attr.Value{dpN("1")}}}},
			"ValidationException", "Attempted conditional constraint is not an indexable operation"},
	} {
		_, err := e.Query(dpCtx, &c.in)
		dpWantErr(t, err, c.typ, c.msg)
	}
}
