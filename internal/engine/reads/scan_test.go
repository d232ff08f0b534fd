package reads

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/layout"
	"github.com/kura-db/kura/internal/wire"
)

// TestScanSegmentsAreDynamoDBs checks which of 4096 segments keys fall in
// (the sources: package keyhash).
func TestScanSegmentsAreDynamoDBs(t *testing.T) {
	for _, c := range []struct {
		v   attr.Value
		seg int
	}{
		{attr.Value{T: attr.S, Str: "3635"}, 0},
		{attr.Value{T: attr.S, Str: "228"}, 0},
		{attr.Value{T: attr.S, Str: "1668"}, 1},
		{attr.Value{T: attr.S, Str: "3435"}, 4},
		{attr.Value{T: attr.N, Str: "251"}, 1},
		{attr.Value{T: attr.N, Str: "2388"}, 4095},
	} {
		k := layout.ItemKey(1, c.v, attr.Value{})
		r := segmentRange(layout.ItemPrefix(1), layout.ItemPrefix(2), c.seg, 4096)
		if bytes.Compare(k, r.Lower) < 0 || bytes.Compare(k, r.Upper) >= 0 {
			t.Errorf("%v is not in segment %d of 4096", c.v, c.seg)
		}
	}
}

// TestScanParallelSegments checks that the segments of a parallel Scan
// together return every item once, and refuse another segment's start key.
func TestScanParallelSegments(t *testing.T) {
	var items []attr.Item
	for _, p := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		items = append(items, partition(p, 3)...)
	}
	r := newReads(t, items...)
	var got []string
	var lastOfSeg0 attr.Item
	for seg := int32(0); seg < 4; seg++ {
		out, err := r.Scan(context.Background(), &wire.ScanInput{TableName: ptr("T"), Segment: ptr(seg), TotalSegments: ptr[int32](4)})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, it["pk"].Str+it["sk"].Str)
		}
		if seg == 0 && len(out.Items) > 0 {
			lastOfSeg0 = out.Items[len(out.Items)-1]
		}
	}
	sort.Strings(got)
	if len(got) != len(items) || strings.Join(got, "") != "a0a1a2b0b1b2c0c1c2d0d1d2e0e1e2f0f1f2g0g1g2h0h1h2" {
		t.Fatalf("segments returned %q", got)
	}
	if lastOfSeg0 == nil {
		t.Skip("segment 0 is empty")
	}
	esk := attr.Item{"pk": lastOfSeg0["pk"], "sk": lastOfSeg0["sk"]}
	_, err := r.Scan(context.Background(), &wire.ScanInput{TableName: ptr("T"), Segment: ptr[int32](1), TotalSegments: ptr[int32](4), ExclusiveStartKey: esk})
	want := "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 4 Segment: 1"
	if e := ddberr.As(err); e == nil || e.Message != want {
		t.Errorf("start key of segment 0 in segment 1: %v", err)
	}
}

// TestScanPages checks Limit, LastEvaluatedKey, Select=COUNT and the start
// key texts of a table Scan.
func TestScanPages(t *testing.T) {
	r := newReads(t, append(partition("a", 3), partition("b", 3)...)...)
	in := &wire.ScanInput{TableName: ptr("T"), Limit: ptr[int32](4)}
	out, err := r.Scan(context.Background(), in)
	if err != nil || len(out.Items) != 4 || out.LastEvaluatedKey == nil {
		t.Fatalf("first page: %d items, LEK %v, %v", len(out.Items), out.LastEvaluatedKey, err)
	}
	in.ExclusiveStartKey = out.LastEvaluatedKey
	out, err = r.Scan(context.Background(), in)
	if err != nil || len(out.Items) != 2 || out.LastEvaluatedKey != nil {
		t.Fatalf("second page: %d items, LEK %v, %v", len(out.Items), out.LastEvaluatedKey, err)
	}
	out, err = r.Scan(context.Background(), &wire.ScanInput{TableName: ptr("T"), Select: "COUNT"})
	if err != nil || out.Items != nil || *out.Count != 6 {
		t.Fatalf("COUNT: %v items, count %d, %v", out.Items, *out.Count, err)
	}
	_, err = r.Scan(context.Background(), &wire.ScanInput{TableName: ptr("T"), ExclusiveStartKey: attr.Item{"pk": s("a")}})
	want := "The provided starting key is invalid: The provided key element does not match the schema"
	if e := ddberr.As(err); e == nil || e.Message != want {
		t.Errorf("short start key: %v, want %q", err, want)
	}
}
