package engine

import (
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// dpScanAll pages through one segment and returns the pk of every item.
func dpScanAll(t *testing.T, e *Engine, in wire.ScanInput) []string {
	t.Helper()
	var pks []string
	for {
		out, err := e.Scan(dpCtx, &in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			pks = append(pks, it["pk"].Str)
		}
		if out.LastEvaluatedKey == nil {
			return pks
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func TestScanParallelSegments(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	dpTable(t, e, "other", "pk:S")
	const n = 500
	for i := 0; i < n; i++ {
		dpPut(t, e, "t", attr.Item{"pk": dpS(fmt.Sprint("k", i))})
		dpPut(t, e, "other", attr.Item{"pk": dpS(fmt.Sprint("o", i))})
	}
	whole := dpScanAll(t, e, wire.ScanInput{TableName: dpStr("t"), Limit: dpI32(33)})
	if len(whole) != n {
		t.Fatalf("whole scan: %d items", len(whole))
	}
	for _, total := range []int32{1, 2, 7, 64} {
		seen := map[string]int32{}
		for seg := int32(0); seg < total; seg++ {
			for _, pk := range dpScanAll(t, e, wire.ScanInput{TableName: dpStr("t"), Segment: dpI32(seg), TotalSegments: dpI32(total), Limit: dpI32(50)}) {
				if prev, dup := seen[pk]; dup {
					t.Fatalf("total %d: %s in segments %d and %d", total, pk, prev, seg)
				}
				seen[pk] = seg
			}
		}
		if len(seen) != n {
			t.Fatalf("total %d: %d items", total, len(seen))
		}
	}
}

func TestScanFilterAndErrors(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	for i := 0; i < 10; i++ {
		dpPut(t, e, "t", attr.Item{"pk": dpS(fmt.Sprint(i)), "n": dpN(fmt.Sprint(i))})
	}
	out, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("t"), FilterExpression: dpStr("n >= :five"),
		ExpressionAttributeValues: attr.Item{":five": dpN("5")}, ProjectionExpression: dpStr("n")})
	if err != nil {
		t.Fatal(err)
	}
	if *out.Count != 5 || *out.ScannedCount != 10 || len(out.Items[0]) != 1 {
		t.Fatalf("filter: %d %d %v", *out.Count, *out.ScannedCount, out.Items)
	}
	out, err = e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("t"), ScanFilter: map[string]wire.Condition{
		"n": {ComparisonOperator: "LT", AttributeValueList: []attr.Value{dpN("3")}}}})
	if err != nil || *out.Count != 3 {
		t.Fatalf("ScanFilter: %v %v", err, out)
	}
	for _, c := range []struct {
		in  wire.ScanInput
		msg string
	}{
		{wire.ScanInput{TableName: dpStr("t"), TotalSegments: dpI32(2)},
			"The Segment parameter is required but was not present in the request when parameter TotalSegments is present"},
		{wire.ScanInput{TableName: dpStr("t"), Segment: dpI32(0)},
			"The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{wire.ScanInput{TableName: dpStr("t"), Segment: dpI32(2), TotalSegments: dpI32(2)},
			"The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less than TotalSegments: 2"},
		{wire.ScanInput{TableName: dpStr("t"), Select: "COUNT", ProjectionExpression: dpStr("n")},
			"Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{wire.ScanInput{TableName: dpStr("t"), ExclusiveStartKey: attr.Item{"pk": dpN("1")}},
			"The provided starting key is invalid: The provided key element does not match the schema"},
		{wire.ScanInput{TableName: dpStr("t"), Select: "SPECIFIC_ATTRIBUTES"},
			"Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"},
		{wire.ScanInput{TableName: dpStr("t"), FilterExpression: dpStr("n > :a"), ScanFilter: map[string]wire.Condition{}},
			"1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ScanFilter} Expression parameters: {FilterExpression}"},
	} {
		_, err := e.Scan(dpCtx, &c.in)
		dpWantErr(t, err, "ValidationException", c.msg)
	}
}
