package engine

import (
	"context"
	"slices"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// BatchGetItem limits.
const (
	maxBatchGetKeys       = 100
	maxBatchResponseBytes = 16 << 20
)

// batchGetTable is one table's share of a BatchGetItem.
type batchGetTable struct {
	// name is the table as RequestItems names it (its name or its ARN):
	// Responses and UnprocessedKeys are keyed by it, so that the client
	// finds its own key and can resend UnprocessedKeys as they are (the
	// SDK's BatchGetItemOutput documentation: "A map of table name or
	// table ARN", UnprocessedKeys "in the same form as RequestItems").
	name string
	req  wire.KeysAndAttributes
	proj *expr.Projection
	t    *Table
	keys []primaryKey
}

// BatchGetItem reads up to 100 items from one or more tables. Keys whose
// items would take the response past 16 MB come back in UnprocessedKeys.
func (e *Engine) BatchGetItem(ctx context.Context, in *wire.BatchGetItemInput) (*wire.BatchGetItemOutput, error) {
	tables, err := prepareBatchGet(in.RequestItems)
	if err != nil {
		return nil, err
	}
	for _, bt := range tables {
		if bt.t, err = e.activeTable(&bt.name); err != nil {
			return nil, err
		}
		for _, key := range bt.req.Keys {
			k, err := bt.t.validateKey(key)
			if err != nil {
				return nil, err
			}
			bt.keys = append(bt.keys, k)
		}
		if err := bt.t.checkScalarKeyPaths(nil, bt.proj, nil); err != nil {
			return nil, err
		}
	}
	return e.batchRead(tables, in.ReturnConsumedCapacity)
}

// prepareBatchGet is BatchGetItem's request phase: each table's projection
// parameters, no duplicate keys within a table, at most 100 keys in all.
func prepareBatchGet(items map[string]wire.KeysAndAttributes) ([]*batchGetTable, error) {
	var tables []*batchGetTable
	total := 0
	for _, name := range sortedNames(items) {
		req := items[name]
		bt := &batchGetTable{name: name, req: req}
		seen := map[string]bool{}
		for _, key := range req.Keys {
			id := string(attr.AppendItemJSON(nil, key))
			if seen[id] {
				return nil, ddberr.Validation("Provided list of item keys contains duplicates") // unprefixed, as BatchWriteItem (a suite run against DynamoDB)
			}
			seen[id] = true
			if total++; total > maxBatchGetKeys {
				return nil, ddberr.Detected("Too many items requested for the BatchGetItem call")
			}
		}
		var err error
		if bt.proj, err = prepareRead(req.ProjectionExpression, req.AttributesToGet, req.ExpressionAttributeNames); err != nil {
			return nil, err
		}
		tables = append(tables, bt)
	}
	// One request uses one form: ProjectionExpression on one table and
	// AttributesToGet on another is refused (a suite run against DynamoDB
	// records a ValidationException; the text is the one for mixing the
	// forms within one table).
	var legacy, exprs bool
	for _, bt := range tables {
		legacy = legacy || bt.req.AttributesToGet != nil
		exprs = exprs || bt.req.ProjectionExpression != nil
	}
	if legacy && exprs {
		return nil, expr.CheckMixed([]string{"AttributesToGet"}, []string{"ProjectionExpression"})
	}
	return tables, nil
}

// batchRead reads the validated keys from one snapshot. A table whose
// read capacity runs out (throttle.go) leaves its remaining keys
// unprocessed; when that leaves every key unprocessed, the request fails
// with the throttling error instead.
func (e *Engine) batchRead(tables []*batchGetTable, capMode string) (*wire.BatchGetItemOutput, error) {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	out := &wire.BatchGetItemOutput{
		Responses:       map[string][]attr.Item{},
		UnprocessedKeys: map[string]wire.KeysAndAttributes{},
	}
	var tally capacityTally
	var throttled error
	size, read := 0, 0
	for _, bt := range tables {
		found := []attr.Item{}
		consistent := isTrue(bt.req.ConsistentRead)
		for i, k := range bt.keys {
			var refused error
			if size < maxBatchResponseBytes {
				refused = e.quota.AdmitRead(bt.t, "")
			}
			if size >= maxBatchResponseBytes || refused != nil {
				if throttled == nil {
					throttled = refused
				}
				un := bt.req
				un.Keys = slices.Clone(bt.req.Keys[i:])
				out.UnprocessedKeys[bt.name] = un
				break
			}
			item, err := readItem(snap, bt.t.storageKey(k))
			if err != nil {
				return nil, err
			}
			read++
			units := readUnits(itemSize(item), consistent)
			e.quota.ChargeRead(bt.t, "", units)
			tally.add(bt.t.Name, units)
			if item != nil {
				item = applyProjection(bt.proj, item)
				size += itemSize(item)
				found = append(found, item)
			}
		}
		out.Responses[bt.name] = found
	}
	if read == 0 && throttled != nil {
		return nil, throttled
	}
	out.ConsumedCapacity = tally.list(capMode)
	return out, nil
}

// sortedNames returns the keys of a RequestItems map in order, so that
// validation errors are deterministic.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
