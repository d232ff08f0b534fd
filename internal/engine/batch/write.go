package batch

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/wire"
)

// MaxWrites is the most put and delete requests one BatchWriteItem may
// carry, over all tables.
const MaxWrites = 25

// BatchWriteItem's and BatchGetItem's texts. MsgDuplicates is unprefixed
// in both (a suite run against DynamoDB).
const (
	MsgDuplicates    = "Provided list of item keys contains duplicates"
	MsgOneOf         = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	MsgTooManyWrites = "Too many items requested for the BatchWriteItem call"
)

// Write is one validated request of a BatchWriteItem as the core resolved
// it.
type Write interface {
	// Request is the request as RequestItems carries it, and its table
	// as RequestItems names it (its name or its ARN): UnprocessedItems
	// gives it back so.
	Request() (table string, r wire.WriteRequest)
}

// WriteCore is what BatchWriteItem needs of the core: W is its validated
// write, R the write path's result of one.
type WriteCore[W Write, R any] interface {
	// WriteTable looks up the named table and returns the resolver of
	// its requests: the request validated against its schema, and the
	// storage key of its item.
	WriteTable(name string) (resolve func(wire.WriteRequest) (w W, key []byte, err error), err error)
	// ApplyBatch applies the writes through the write path: those it
	// kept (in request order) with their results, and those it refused
	// (out of write capacity; nil when throughput is not enforced).
	ApplyBatch(ctx context.Context, writes []W) (kept []W, results []R, refused []W, err error)
	// WriteUnits is the capacity a write consumed: its table's name and
	// the units on the table and its indexes.
	WriteUnits(w W, r R) (table string, u indexes.Units)
	// Collections is the ItemCollectionMetrics, as mode
	// (ReturnItemCollectionMetrics) asks, of the applied writes.
	Collections(mode string, writes []W) map[string][]wire.ItemCollectionMetrics
}

// WriteItems runs a BatchWriteItem: its request phase (CheckWrites), its
// tables and keys, then its writes, each through the same atomic write
// path as PutItem and DeleteItem (unconditionally); the batch as a whole
// is not atomic. Requests come back in UnprocessedItems only when the
// core refused them.
func WriteItems[W Write, R any](ctx context.Context, c WriteCore[W, R], in *wire.BatchWriteItemInput) (*wire.BatchWriteItemOutput, error) {
	if err := CheckWrites(in.RequestItems); err != nil {
		return nil, err
	}
	writes, err := resolveWrites(c, in.RequestItems)
	if err != nil {
		return nil, err
	}
	writes, results, refused, err := c.ApplyBatch(ctx, writes)
	if err != nil {
		return nil, err
	}
	unprocessed := map[string][]wire.WriteRequest{}
	for _, w := range refused {
		name, r := w.Request()
		unprocessed[name] = append(unprocessed[name], r)
	}
	var tally Tally
	for i, w := range writes {
		tally.AddIndexes(c.WriteUnits(w, results[i]))
	}
	return &wire.BatchWriteItemOutput{
		UnprocessedItems:      unprocessed,
		ConsumedCapacity:      tally.List(in.ReturnConsumedCapacity),
		ItemCollectionMetrics: c.Collections(in.ReturnItemCollectionMetrics, writes),
	}, nil
}

// CheckWrites is BatchWriteItem's request phase: each request is exactly
// one of PutRequest and DeleteRequest, no put item is over the size
// limit, and there are at most MaxWrites requests in all.
func CheckWrites(items map[string][]wire.WriteRequest) error {
	total := 0
	for _, name := range SortedNames(items) {
		for _, r := range items[name] {
			if (r.PutRequest == nil) == (r.DeleteRequest == nil) {
				return ddberr.Detected(MsgOneOf)
			}
			if r.PutRequest != nil && attr.ItemSize(r.PutRequest.Item) > attr.MaxItemSize {
				return ddberr.Detected(ddberr.MsgItemSize)
			}
			total++
		}
	}
	if total > MaxWrites {
		return ddberr.Detected(MsgTooManyWrites)
	}
	return nil
}

// resolveWrites looks up the tables, validates every key against its
// schema and rejects two requests on the same item.
func resolveWrites[W Write, R any](c WriteCore[W, R], items map[string][]wire.WriteRequest) ([]W, error) {
	var writes []W
	for _, name := range SortedNames(items) {
		resolve, err := c.WriteTable(name)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, r := range items[name] {
			w, key, err := resolve(r)
			if err != nil {
				return nil, KeyError(err)
			}
			if seen[string(key)] {
				return nil, ddberr.Validation(MsgDuplicates)
			}
			seen[string(key)] = true
			writes = append(writes, w)
		}
	}
	return writes, nil
}

// KeyError reports a put item's missing or mistyped key attribute as
// BatchWriteItem does: as a key that does not match the schema.
func KeyError(err error) error {
	var de *ddberr.Error
	if errors.As(err, &de) && (strings.HasPrefix(de.Message, "One or more parameter values were invalid: Missing the key") ||
		strings.HasPrefix(de.Message, "One or more parameter values were invalid: Type mismatch for key")) {
		return ddberr.Validation(ddberr.MsgKeySchema)
	}
	return err
}

// SortedNames returns the keys of a RequestItems map in order, so that
// validation errors are deterministic.
func SortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
