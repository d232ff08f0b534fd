package engine

import (
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// TestUpdateCharge checks the statement charge of each clause kind against
// the figures a public conformance suite measured against DynamoDB (2026).
func TestUpdateCharge(t *testing.T) {
	ten := dpS(strings.Repeat("y", 10))
	list := func(vs ...attr.Value) attr.Value { return attr.Value{T: attr.L, List: vs} }
	for _, c := range []struct {
		expr   string
		names  map[string]string
		values attr.Item
		want   int
	}{
		{"SET b = :v", nil, attr.Item{":v": dpS("x")}, 3 + 19 + 1 + 1},
		{"SET #twelvechars = :v", map[string]string{"#twelvechars": "b"}, attr.Item{":v": dpS("x")}, 3 + 19 + 1 + 1},
		{"REMOVE r", nil, nil, 3 + 2},
		{"SET c = abcdefghij", nil, nil, 3 + 19 + 1 + 1 + 14 + 10},
		{"SET c = m.a.z", nil, nil, 3 + 19 + 1 + 1 + 3*15},
		{"SET c = l[10]", nil, nil, 3 + 19 + 1 + 1 + 15 + 16},
		{"SET l = list_append(l, :new)", nil, attr.Item{":new": list(ten)}, 3 + 19 + 1 + 37 + 16 + 14},
		{"SET l = list_append(:a, :c)", nil, attr.Item{":a": list(dpS("e")), ":c": list(ten)}, 3 + 19 + 1 + 37 + 5 + 14},
		{"SET c = if_not_exists(c, :s), d = if_not_exists(d, :s)", nil, attr.Item{":s": dpS(strings.Repeat("s", 100))}, 3 + 2*(19+1+39+16+100)},
		{"SET n = n + :one", nil, attr.Item{":one": dpN("1")}, 3 + 19 + 1 + 34 + 16 + 2},
		{"SET n = n - :one", nil, attr.Item{":one": dpN("1")}, 3 + 19 + 1 + 37 + 16 + 2},
		{"ADD abcdefghij :one", nil, attr.Item{":one": dpN("1")}, 3 + 19 + 10 + 2},
		{"ADD ss :new", nil, attr.Item{":new": dpSS(strings.Repeat("s", 500))}, 3 + 19 + 2 + 500},
		{"REMOVE m.yyyyyyyyyy", nil, nil, 3 + 1 + 1 + 4 + 10},
		{"REMOVE abcdefghij[1]", nil, nil, 3 + 1 + 10 + 4 + 1},
		{"REMOVE l[10]", nil, nil, 3 + 1 + 1 + 4 + 2},
		{"DELETE ss :rm", nil, attr.Item{":rm": dpSS("q", "r")}, 3 + 1 + 2},
		{"SET d[0] = :v", nil, attr.Item{":v": dpS("x")}, 3 + 19 + 1 + 4 + 1 + 1},
	} {
		x, err := prepareUpdate(&wire.UpdateItemInput{UpdateExpression: &c.expr,
			ExpressionAttributeNames: c.names, ExpressionAttributeValues: c.values})
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := updateCharge(x.update, maxItemSize); got != c.want {
			t.Errorf("%s: charge %d, want %d", c.expr, got, c.want)
		}
	}
}

// TestUpdateChargeRegions checks that the statement charge applies outside
// the ten flat regions only, and to UpdateItem's expression form only.
func TestUpdateChargeRegions(t *testing.T) {
	for region, want := range map[string]bool{"us-east-1": true, "eu-west-2": true, "us-east-2": false, "eu-west-1": false} {
		if got := chargesUpdateStatements(region); got != want {
			t.Errorf("%s: charges %v, want %v", region, got, want)
		}
	}
	e := dpEngine(t) // us-east-1
	dpTable(t, e, "t", "pk:S")
	// 409,600 - 3 (key) - 1 (name b): a finished item of exactly 409,600,
	// whose statement charge is 409,600 - 3 + 19.
	pad := strings.Repeat("x", maxItemSize-4)
	_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("K")},
		UpdateExpression: dpStr("SET b = :p"), ExpressionAttributeValues: attr.Item{":p": dpS(pad)}})
	dpWantErr(t, err, "ValidationException", msgUpdSize)
	_, err = e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("K")},
		AttributeUpdates: map[string]wire.AttributeValueUpdate{"b": {Action: "PUT", Value: &attr.Value{T: attr.S, Str: pad}}}})
	if err != nil {
		t.Fatalf("AttributeUpdates: %v", err)
	}
	if got := itemSize(dpGet(t, e, "t", attr.Item{"pk": dpS("K")})); got != maxItemSize {
		t.Fatalf("stored %d bytes", got)
	}
}

// BenchmarkUpdateCharge is the charge of a small counter update, the shape
// of the API handler benchmark: it must not allocate.
func BenchmarkUpdateCharge(b *testing.B) {
	x, err := prepareUpdate(&wire.UpdateItemInput{UpdateExpression: dpStr("SET #c = #c + :one"),
		ExpressionAttributeNames: map[string]string{"#c": "n"}, ExpressionAttributeValues: attr.Item{":one": dpN("1")}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if updateCharge(x.update, maxItemSize) != 3+19+1+34+16+2 {
			b.Fatal("charge")
		}
	}
}
