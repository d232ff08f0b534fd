package engine

import (
	"bytes"
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// scanExprs are a Scan's parsed and resolved expressions; legacy
// parameters arrive converted.
type scanExprs struct {
	filter *expr.Condition
	proj   *expr.Projection
}

// Scan reads a whole table, or one segment of it, in storage (hash) order.
func (e *Engine) Scan(ctx context.Context, in *wire.ScanInput) (*wire.ScanOutput, error) {
	out, _, err := e.scan(in, nil)
	return out, err
}

// ScanEncoded is Scan with QueryEncoded's pre-encoded items: when the page
// returns every item whole, they are appended to dst[:0] as DynamoDB JSON
// (encoded true) and the output's Items is nil.
func (e *Engine) ScanEncoded(ctx context.Context, in *wire.ScanInput, dst []byte) (out *wire.ScanOutput, items []byte, encoded bool, err error) {
	if dst == nil {
		dst = []byte{} // nil would mean "do not encode"
	}
	out, p, err := e.scan(in, dst[:0])
	if err != nil || p == nil {
		return out, nil, false, err
	}
	items, encoded = p.encodedItems()
	return out, items, encoded, nil
}

// scan runs Scan; with a non-nil encode buffer, a page that may keep its
// items encoded does (see query).
func (e *Engine) scan(in *wire.ScanInput, encode []byte) (*wire.ScanOutput, *page, error) {
	x, err := prepareScan(in)
	if err != nil {
		return nil, nil, err
	}
	t, err := e.activeTable(in.TableName)
	if err != nil {
		return nil, nil, err
	}
	if msg := checkSelect(in.Select, projectionParam(in.ProjectionExpression, in.AttributesToGet), in.IndexName != nil); msg != "" {
		return nil, nil, ddberr.Validation(msg)
	}
	if in.IndexName != nil {
		if err := t.checkVectorRead(*in.IndexName, false); err != nil {
			return nil, nil, err
		}
		return e.scanIndex(in, x, t, encode)
	}
	seg, total := 0, 1
	if in.TotalSegments != nil {
		seg, total = int(*in.Segment), int(*in.TotalSegments)
	}
	lower, upper := segmentBounds(t.ID, seg, total)
	opts := storage.IterOptions{Lower: lower, Upper: upper}
	if in.ExclusiveStartKey != nil {
		k, err := t.validateStartKey(in.ExclusiveStartKey, msgScanStartKeyInvalid)
		if err != nil {
			return nil, nil, err
		}
		if start := after(t.storageKey(k)); bytes.Compare(start, opts.Lower) > 0 {
			opts.Lower = start
		}
	}
	p := newPage(in.Limit, in.Select, x.filter, x.proj)
	if encode != nil && p.canEncode() {
		p.enc = encodedPage{on: true, json: encode}
	}
	if err := e.fillFromSnapshot(p, opts, nil); err != nil {
		return nil, nil, err
	}
	var items []attr.Item
	if !p.enc.on {
		items = p.resultItems()
	}
	return &wire.ScanOutput{
		Items:            items,
		Count:            int32Ptr(p.matched),
		ScannedCount:     int32Ptr(p.scanned),
		LastEvaluatedKey: p.lastEvaluatedKey(t),
		ConsumedCapacity: consumedCapacity(in.ReturnConsumedCapacity, t.Name, readUnits(p.bytes, isTrue(in.ConsistentRead))),
	}, p, nil
}

// prepareScan is Scan's request phase, in DynamoDB's order.
func prepareScan(in *wire.ScanInput) (scanExprs, error) {
	var x scanExprs
	legacy := presentParams(
		[]bool{in.AttributesToGet != nil, in.ScanFilter != nil, in.ConditionalOperator != ""},
		[]string{"AttributesToGet", "ScanFilter", "ConditionalOperator"})
	exprs := presentParams(
		[]bool{in.ProjectionExpression != nil, in.FilterExpression != nil},
		[]string{"ProjectionExpression", "FilterExpression"})
	if err := expr.CheckMixed(legacy, exprs); err != nil {
		return x, err
	}
	if err := expr.ValidateParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues, len(exprs) > 0, in.FilterExpression != nil); err != nil {
		return x, err
	}
	var err error
	if in.ScanFilter != nil {
		if x.filter, err = expr.ConvertConditions(expr.KindFilter, in.ScanFilter, in.ConditionalOperator); err != nil {
			return x, err
		}
	}
	if x.proj, err = expr.ConvertAttributesToGet(in.AttributesToGet); err != nil {
		return x, err
	}
	if err := checkSegments(in.Segment, in.TotalSegments); err != nil {
		return x, err
	}
	params := expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if in.FilterExpression != nil {
		if x.filter, err = parseCondition(params, expr.KindFilter, *in.FilterExpression); err != nil {
			return x, err
		}
	}
	if in.ProjectionExpression != nil {
		if x.proj, err = parseProjection(params, *in.ProjectionExpression); err != nil {
			return x, err
		}
	}
	return x, params.CheckUnused()
}

// checkSegments applies the parallel-scan parameter rules.
func checkSegments(seg, total *int32) error {
	switch {
	case seg != nil && total == nil:
		return ddberr.RequestInvalid("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case total != nil && seg == nil:
		return ddberr.RequestInvalid("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case seg != nil && *seg >= *total:
		return ddberr.RequestInvalidf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *seg, *total)
	}
	return nil
}
