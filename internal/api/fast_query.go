package api

import (
	"context"
	"sync"

	"github.com/kura-db/kura/internal/attr"
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

// itemsPool recycles the buffers pre-encoded items are written to: they
// live only until appendPageResult has copied them into the response.
var itemsPool = sync.Pool{New: func() any { return new([]byte) }}

// pageResult is Query's and Scan's handler output: the members the two
// outputs share, with the items either decoded (items) or pre-encoded by
// the backend (json, when encoded is set).
type pageResult struct {
	cc      *wire.ConsumedCapacity
	count   *int32
	items   []attr.Item
	lek     attr.Item
	scanned *int32

	json    []byte
	encoded bool
	buf     *[]byte // from itemsPool; nil once returned
}

// release returns r's items buffer to the pool.
func (r *pageResult) release() {
	if r.buf == nil {
		return
	}
	if cap(r.json) <= maxPooledBuf {
		*r.buf = r.json[:0]
		itemsPool.Put(r.buf)
	}
	r.buf, r.json = nil, nil
}

// callQuery runs Query on b, asking for pre-encoded items when b offers
// them.
func callQuery(b Backend, ctx context.Context, in *wire.QueryInput) (*pageResult, error) {
	var (
		out *wire.QueryOutput
		r   = &pageResult{}
		err error
	)
	if eq, ok := b.(encodedQuerier); ok {
		r.buf = itemsPool.Get().(*[]byte)
		out, r.json, r.encoded, err = eq.QueryEncoded(ctx, in, *r.buf)
	} else {
		out, err = b.Query(ctx, in)
	}
	if err != nil || out == nil {
		return nil, err
	}
	r.cc, r.count, r.items, r.lek, r.scanned = out.ConsumedCapacity, out.Count, out.Items, out.LastEvaluatedKey, out.ScannedCount
	return r, nil
}

// callScan is callQuery for Scan.
func callScan(b Backend, ctx context.Context, in *wire.ScanInput) (*pageResult, error) {
	var (
		out *wire.ScanOutput
		r   = &pageResult{}
		err error
	)
	if es, ok := b.(encodedScanner); ok {
		r.buf = itemsPool.Get().(*[]byte)
		out, r.json, r.encoded, err = es.ScanEncoded(ctx, in, *r.buf)
	} else {
		out, err = b.Scan(ctx, in)
	}
	if err != nil || out == nil {
		return nil, err
	}
	r.cc, r.count, r.items, r.lek, r.scanned = out.ConsumedCapacity, out.Count, out.Items, out.LastEvaluatedKey, out.ScannedCount
	return r, nil
}

// appendPageResult writes Query's or Scan's output. Pre-encoded items go
// in as they are; the bytes are the same as appendItems writes for the
// decoded items.
func appendPageResult(b []byte, r *pageResult) ([]byte, error) {
	if !r.encoded {
		return appendItems(b, r.cc, r.count, r.items, r.lek, r.scanned)
	}
	defer r.release() // the items are copied into b
	return appendItemsWith(b, r.cc, r.count, func(b []byte) []byte {
		b = append(b, '[')
		b = append(b, r.json...)
		return append(b, ']')
	}, r.lek, r.scanned)
}
