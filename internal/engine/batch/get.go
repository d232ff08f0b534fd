package batch

import (
	"slices"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// BatchGetItem limits: keys per request, and the response size past which
// the remaining keys come back unprocessed.
const (
	MaxGetKeys       = 100
	MaxResponseBytes = 16 << 20
)

// MsgTooManyGets is BatchGetItem's refusal of more than MaxGetKeys keys.
const MsgTooManyGets = "Too many items requested for the BatchGetItem call"

// GetCore is what BatchGetItem needs of the core; T is its table.
type GetCore[T any] interface {
	// Projection is the request phase of one table's projection
	// parameters, nil when the whole item is wanted.
	Projection(projection *string, attributesToGet []string, names map[string]string) (*expr.Projection, error)
	// GetTable looks up the named table (its name or its ARN).
	GetTable(name string) (T, error)
	// Key validates key against t's schema, returning its item's storage
	// key.
	Key(t T, key attr.Item) ([]byte, error)
	// CheckProjection validates a projection against t's key attributes.
	CheckProjection(t T, p *expr.Projection) error
	// Snapshot opens the one consistent snapshot all keys are read from.
	Snapshot() (Snapshot, error)
	// AdmitRead admits one read of t, or refuses it with the throttling
	// error when t's read capacity has run out.
	AdmitRead(t T) error
	// ChargeRead pays the read of item (nil when missing) from t,
	// strongly consistent or not, and returns the units and t's name.
	ChargeRead(t T, item attr.Item, consistent bool) (table string, units float64)
}

// Snapshot reads items from one consistent snapshot of the store.
type Snapshot interface {
	// Read reads the item at storage key key (nil when there is none).
	Read(key []byte) (attr.Item, error)
	Close() error
}

// getTable is one table's share of a BatchGetItem.
type getTable[T any] struct {
	// name is the table as RequestItems names it (its name or its ARN):
	// Responses and UnprocessedKeys are keyed by it, so that the client
	// finds its own key and can resend UnprocessedKeys as they are (the
	// SDK's BatchGetItemOutput documentation: "A map of table name or
	// table ARN", UnprocessedKeys "in the same form as RequestItems").
	name string
	req  wire.KeysAndAttributes
	proj *expr.Projection
	t    T
	keys [][]byte // storage keys
}

// GetItems runs a BatchGetItem of up to MaxGetKeys items from one or more
// tables: the request phase (CheckGets), then each table and its keys, in
// table-name order, then the reads (read).
func GetItems[T any](c GetCore[T], in *wire.BatchGetItemInput) (*wire.BatchGetItemOutput, error) {
	tables, err := checkGets[T](c, in.RequestItems)
	if err != nil {
		return nil, err
	}
	for _, bt := range tables {
		if bt.t, err = c.GetTable(bt.name); err != nil {
			return nil, err
		}
		for _, key := range bt.req.Keys {
			k, err := c.Key(bt.t, key)
			if err != nil {
				return nil, err
			}
			bt.keys = append(bt.keys, k)
		}
		if err := c.CheckProjection(bt.t, bt.proj); err != nil {
			return nil, err
		}
	}
	return read(c, tables, in.ReturnConsumedCapacity)
}

// checkGets is BatchGetItem's request phase: each table's projection
// parameters, no duplicate keys within a table, at most MaxGetKeys keys
// in all, and one projection form in the whole request.
func checkGets[T any](c GetCore[T], items map[string]wire.KeysAndAttributes) ([]*getTable[T], error) {
	var tables []*getTable[T]
	total := 0
	for _, name := range SortedNames(items) {
		req := items[name]
		bt := &getTable[T]{name: name, req: req}
		seen := map[string]bool{}
		for _, key := range req.Keys {
			id := string(attr.AppendItemJSON(nil, key))
			if seen[id] {
				return nil, ddberr.Validation(MsgDuplicates)
			}
			seen[id] = true
			if total++; total > MaxGetKeys {
				return nil, ddberr.Detected(MsgTooManyGets)
			}
		}
		var err error
		if bt.proj, err = c.Projection(req.ProjectionExpression, req.AttributesToGet, req.ExpressionAttributeNames); err != nil {
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

// read reads the validated keys from one snapshot. A table whose read
// capacity runs out leaves its remaining keys unprocessed, as do all keys
// once the response is past MaxResponseBytes; when that leaves every key
// unprocessed, the request fails with the throttling error instead.
func read[T any](c GetCore[T], tables []*getTable[T], capMode string) (*wire.BatchGetItemOutput, error) {
	snap, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	out := &wire.BatchGetItemOutput{
		Responses:       map[string][]attr.Item{},
		UnprocessedKeys: map[string]wire.KeysAndAttributes{},
	}
	var tally Tally
	var throttled error
	size, reads := 0, 0
	for _, bt := range tables {
		found := []attr.Item{}
		consistent := bt.req.ConsistentRead != nil && *bt.req.ConsistentRead
		for i, k := range bt.keys {
			var refused error
			if size < MaxResponseBytes {
				refused = c.AdmitRead(bt.t)
			}
			if size >= MaxResponseBytes || refused != nil {
				if throttled == nil {
					throttled = refused
				}
				un := bt.req
				un.Keys = slices.Clone(bt.req.Keys[i:])
				out.UnprocessedKeys[bt.name] = un
				break
			}
			item, err := snap.Read(k)
			if err != nil {
				return nil, err
			}
			reads++
			tally.Add(c.ChargeRead(bt.t, item, consistent))
			if item != nil {
				if bt.proj != nil {
					item = bt.proj.Apply(item)
				}
				size += attr.ItemSize(item)
				found = append(found, item)
			}
		}
		out.Responses[bt.name] = found
	}
	if reads == 0 && throttled != nil {
		return nil, throttled
	}
	out.ConsumedCapacity = tally.List(capMode)
	return out, nil
}
