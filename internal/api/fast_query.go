package api

import (
	"context"
	"sync"

	"github.com/kura-db/kura/internal/wire"
)

// encodedQuerier is implemented by backends that can hand Query's items
// back already written as DynamoDB JSON (see engine.Engine.QueryEncoded):
// items holds them comma separated, appended to dst[:0], when encoded is
// true, and out.Items is then nil.
type encodedQuerier interface {
	QueryEncoded(ctx context.Context, in *wire.QueryInput, dst []byte) (out *wire.QueryOutput, items []byte, encoded bool, err error)
}

// encodedScanner is encodedQuerier for Scan.
type encodedScanner interface {
	ScanEncoded(ctx context.Context, in *wire.ScanInput, dst []byte) (out *wire.ScanOutput, items []byte, encoded bool, err error)
}

// itemsPool recycles the buffers Query's pre-encoded items are written to:
// they live only until appendQueryResult has copied them into the
// response.
var itemsPool = sync.Pool{New: func() any { return new([]byte) }}

// queryResult is Query's handler output: the wire output, plus the items
// pre-encoded by the backend when it could.
type queryResult struct {
	out *wire.QueryOutput
	encodedItems
}

// scanResult is queryResult for Scan.
type scanResult struct {
	out *wire.ScanOutput
	encodedItems
}

// encodedItems are a page's items pre-encoded by the backend, when
// encoded is set.
type encodedItems struct {
	items   []byte
	encoded bool
	buf     *[]byte // from itemsPool; nil once returned
}

// release returns r's items buffer to the pool.
func (r *encodedItems) release() {
	if r.buf == nil {
		return
	}
	if cap(r.items) <= maxPooledBuf {
		*r.buf = r.items[:0]
		itemsPool.Put(r.buf)
	}
	r.buf, r.items = nil, nil
}

// callQuery runs Query on b, asking for pre-encoded items when b offers
// them.
func callQuery(b Backend, ctx context.Context, in *wire.QueryInput) (*queryResult, error) {
	if eq, ok := b.(encodedQuerier); ok {
		buf := itemsPool.Get().(*[]byte)
		out, items, encoded, err := eq.QueryEncoded(ctx, in, *buf)
		if err != nil || out == nil {
			return nil, err
		}
		return &queryResult{out: out, encodedItems: encodedItems{items: items, encoded: encoded, buf: buf}}, nil
	}
	out, err := b.Query(ctx, in)
	if err != nil || out == nil {
		return nil, err
	}
	return &queryResult{out: out}, nil
}

// callScan runs Scan on b, asking for pre-encoded items when b offers
// them.
func callScan(b Backend, ctx context.Context, in *wire.ScanInput) (*scanResult, error) {
	if es, ok := b.(encodedScanner); ok {
		buf := itemsPool.Get().(*[]byte)
		out, items, encoded, err := es.ScanEncoded(ctx, in, *buf)
		if err != nil || out == nil {
			return nil, err
		}
		return &scanResult{out: out, encodedItems: encodedItems{items: items, encoded: encoded, buf: buf}}, nil
	}
	out, err := b.Scan(ctx, in)
	if err != nil || out == nil {
		return nil, err
	}
	return &scanResult{out: out}, nil
}

// appendQueryResult writes Query's output. Pre-encoded items go in as they
// are; the bytes are the same as appendItems writes for the decoded items.
func appendQueryResult(b []byte, r *queryResult) ([]byte, error) {
	v := r.out
	if !r.encoded {
		return appendItems(b, v.ConsumedCapacity, v.Count, v.Items, v.LastEvaluatedKey, v.ScannedCount)
	}
	defer r.release() // the items are copied into b
	return appendItemsWith(b, v.ConsumedCapacity, v.Count, r.appendArray, v.LastEvaluatedKey, v.ScannedCount)
}

// appendScanResult is appendQueryResult for Scan.
func appendScanResult(b []byte, r *scanResult) ([]byte, error) {
	v := r.out
	if !r.encoded {
		return appendItems(b, v.ConsumedCapacity, v.Count, v.Items, v.LastEvaluatedKey, v.ScannedCount)
	}
	defer r.release()
	return appendItemsWith(b, v.ConsumedCapacity, v.Count, r.appendArray, v.LastEvaluatedKey, v.ScannedCount)
}

// appendArray writes the pre-encoded items as a JSON array.
func (r *encodedItems) appendArray(b []byte) []byte {
	b = append(b, '[')
	b = append(b, r.items...)
	return append(b, ']')
}
