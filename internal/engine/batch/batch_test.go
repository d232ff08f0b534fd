package batch

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

func s(v string) attr.Value { return attr.Value{T: attr.S, Str: v} }

func put(pk string) wire.WriteRequest {
	return wire.WriteRequest{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": s(pk)}}}
}

func wantErr(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil || ddberr.As(err).Message != msg {
		t.Fatalf("error %v, want %q", err, msg)
	}
}

// write is a fakeWrites write: its table and request, and its key.
type write struct {
	table string
	req   wire.WriteRequest
	pk    string
}

func (w write) Request() (string, wire.WriteRequest) { return w.table, w.req }

// fakeWrites is a core of tables keyed by "pk"; it refuses the writes of
// the tables in full as out of capacity, and each applied write costs one
// unit on its table and one on index "gsi".
type fakeWrites struct {
	tables  map[string]bool
	full    map[string]bool
	applied []write
}

func (c *fakeWrites) WriteTable(name string) (func(wire.WriteRequest) (write, []byte, error), error) {
	if !c.tables[name] {
		return nil, ddberr.ResourceNotFound("Requested resource not found")
	}
	return func(r wire.WriteRequest) (write, []byte, error) {
		var key attr.Item
		if r.PutRequest != nil {
			key = r.PutRequest.Item
		} else {
			key = r.DeleteRequest.Key
		}
		pk, ok := key["pk"]
		if !ok {
			return write{}, nil, ddberr.Validation("One or more parameter values were invalid: Missing the key pk in the item")
		}
		return write{table: name, req: r, pk: pk.Str}, []byte(pk.Str), nil
	}, nil
}

func (c *fakeWrites) ApplyBatch(_ context.Context, ws []write) (kept []write, results []int, refused []write, err error) {
	for _, w := range ws {
		if c.full[w.table] {
			refused = append(refused, w)
			continue
		}
		kept, results = append(kept, w), append(results, 1)
	}
	c.applied = append(c.applied, kept...)
	return kept, results, refused, nil
}

func (c *fakeWrites) WriteUnits(w write, r int) (string, indexes.Units) {
	return w.table, indexes.Units{Table: float64(r), GSI: map[string]float64{"gsi": 1}}
}

func (c *fakeWrites) Collections(string, []write) map[string][]wire.ItemCollectionMetrics { return nil }

func TestWriteItemsValidationOrder(t *testing.T) {
	c := &fakeWrites{tables: map[string]bool{"a": true}}
	run := func(items map[string][]wire.WriteRequest) error {
		_, err := WriteItems[write, int](context.Background(), c, &wire.BatchWriteItemInput{RequestItems: items})
		return err
	}
	var many []wire.WriteRequest
	for i := range 26 {
		many = append(many, put(fmt.Sprint(i)))
	}
	// The request phase comes before any table: an empty request, then
	// too many, while table "nope" does not exist.
	wantErr(t, run(map[string][]wire.WriteRequest{"nope": many[:1], "a": {{}}}), ddberr.Detected1+MsgOneOf)
	wantErr(t, run(map[string][]wire.WriteRequest{"nope": many[:13], "a": many[13:]}), ddberr.Detected1+MsgTooManyWrites)
	big := attr.Item{"pk": s("x"), "v": attr.Value{T: attr.B, Bin: make([]byte, attr.MaxItemSize)}}
	wantErr(t, run(map[string][]wire.WriteRequest{"nope": many[:1], "a": {{PutRequest: &wire.PutRequest{Item: big}}}}), ddberr.Detected1+ddberr.MsgItemSize)
	// Then the tables, in name order, and their keys.
	wantErr(t, run(map[string][]wire.WriteRequest{"nope": many[:1], "a": {put("x"), put("x")}}), MsgDuplicates)
	wantErr(t, run(map[string][]wire.WriteRequest{"a": {{PutRequest: &wire.PutRequest{Item: attr.Item{"v": s("1")}}}}}), ddberr.MsgKeySchema)
	wantErr(t, run(map[string][]wire.WriteRequest{"a": many[:1], "nope": many[:1]}), "Requested resource not found")
	if len(c.applied) != 0 {
		t.Fatalf("applied %v of refused requests", c.applied)
	}
}

func TestWriteItemsUnprocessedAndCapacity(t *testing.T) {
	c := &fakeWrites{tables: map[string]bool{"a": true, "b": true, "full": true}, full: map[string]bool{"full": true}}
	out, err := WriteItems[write, int](context.Background(), c, &wire.BatchWriteItemInput{ReturnConsumedCapacity: indexes.CapacityIndexes,
		RequestItems: map[string][]wire.WriteRequest{"b": {put("1"), put("2")}, "full": {put("3")}, "a": {put("4")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.UnprocessedItems) != 1 || len(out.UnprocessedItems["full"]) != 1 || out.UnprocessedItems["full"][0].PutRequest.Item["pk"].Str != "3" {
		t.Fatalf("unprocessed %v", out.UnprocessedItems)
	}
	cc := out.ConsumedCapacity
	if len(cc) != 2 || *cc[0].TableName != "a" || *cc[1].TableName != "b" || *cc[1].CapacityUnits != 4 ||
		*cc[1].Table.CapacityUnits != 2 || *cc[1].GlobalSecondaryIndexes["gsi"].CapacityUnits != 2 {
		t.Fatalf("capacity %+v", cc)
	}
	out, err = WriteItems[write, int](context.Background(), c, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"a": {put("5")}}})
	if err != nil || out.ConsumedCapacity != nil || out.UnprocessedItems == nil {
		t.Fatalf("without ReturnConsumedCapacity: %+v, %v", out, err)
	}
}

func TestKeyError(t *testing.T) {
	for msg, want := range map[string]string{
		"One or more parameter values were invalid: Missing the key pk in the item":                                    ddberr.MsgKeySchema,
		"One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N":                    ddberr.MsgKeySchema,
		"One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes": "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes",
	} {
		wantErr(t, KeyError(ddberr.Validation(msg)), want)
	}
	other := errors.New("disk")
	if KeyError(other) != other {
		t.Fatal("a non-DynamoDB error changed")
	}
}

// fakeGets is a core of tables keyed by "pk" holding items; reads of
// table "slow" are refused after its first.
type fakeGets struct {
	items map[string]attr.Item // table/pk → item
	reads map[string]int
}

var errThrottled = ddberr.ProvisionedThroughputExceeded(ddberr.MsgThroughputTable)

func (c *fakeGets) Projection(p *string, legacy []string, names map[string]string) (*expr.Projection, error) {
	if legacy != nil {
		return expr.ConvertAttributesToGet(legacy)
	}
	if p == nil {
		return nil, nil
	}
	return expr.ParseProjection(*p)
}

func (c *fakeGets) GetTable(name string) (string, error) {
	if name == "nope" {
		return "", ddberr.ResourceNotFound("Requested resource not found")
	}
	return name, nil
}

func (c *fakeGets) Key(t string, key attr.Item) ([]byte, error) {
	pk, ok := key["pk"]
	if !ok || pk.T != attr.S {
		return nil, ddberr.Validation(ddberr.MsgKeySchema)
	}
	return []byte(t + "/" + pk.Str), nil
}

func (c *fakeGets) CheckProjection(string, *expr.Projection) error { return nil }

func (c *fakeGets) Snapshot() (Snapshot, error) { return c, nil }

func (c *fakeGets) Read(key []byte) (attr.Item, error) { return c.items[string(key)], nil }

func (c *fakeGets) Close() error { return nil }

func (c *fakeGets) AdmitRead(t string) error {
	if t == "slow" && c.reads[t] > 0 {
		return errThrottled
	}
	return nil
}

func (c *fakeGets) ChargeRead(t string, _ attr.Item, consistent bool) (string, float64) {
	c.reads[t]++
	if consistent {
		return t, 1
	}
	return t, 0.5
}

func keys(pks ...string) []attr.Item {
	var out []attr.Item
	for _, pk := range pks {
		out = append(out, attr.Item{"pk": s(pk)})
	}
	return out
}

func TestGetItemsUnprocessed(t *testing.T) {
	c := &fakeGets{reads: map[string]int{}, items: map[string]attr.Item{
		"a/1": {"pk": s("1"), "v": s("x")}, "slow/1": {"pk": s("1")}, "slow/2": {"pk": s("2")}}}
	consistent := true
	out, err := GetItems[string](c, &wire.BatchGetItemInput{ReturnConsumedCapacity: indexes.CapacityTotal, RequestItems: map[string]wire.KeysAndAttributes{
		"a":    {Keys: keys("1", "2"), ProjectionExpression: new("v"), ConsistentRead: &consistent},
		"slow": {Keys: keys("1", "2", "3")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses["a"]) != 1 || len(out.Responses["a"][0]) != 1 || out.Responses["a"][0]["v"].Str != "x" || len(out.Responses["slow"]) != 1 {
		t.Fatalf("responses %v", out.Responses)
	}
	if un := out.UnprocessedKeys["slow"]; len(out.UnprocessedKeys) != 1 || len(un.Keys) != 2 || un.Keys[0]["pk"].Str != "2" {
		t.Fatalf("unprocessed %v", out.UnprocessedKeys)
	}
	if cc := out.ConsumedCapacity; len(cc) != 2 || *cc[0].CapacityUnits != 2 || *cc[1].CapacityUnits != 0.5 {
		t.Fatalf("capacity %+v", cc)
	}
	// Every key unprocessed: the throttling error instead.
	_, err = GetItems[string](c, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"slow": {Keys: keys("1")}}})
	if !errors.Is(err, errThrottled) {
		t.Fatalf("all throttled: %v", err)
	}
}

func TestGetItemsValidationOrder(t *testing.T) {
	c := &fakeGets{reads: map[string]int{}}
	run := func(items map[string]wire.KeysAndAttributes) error {
		_, err := GetItems[string](c, &wire.BatchGetItemInput{RequestItems: items})
		return err
	}
	var many []string
	for i := range 101 {
		many = append(many, fmt.Sprint(i))
	}
	wantErr(t, run(map[string]wire.KeysAndAttributes{"nope": {Keys: keys("1", "1")}}), MsgDuplicates)
	wantErr(t, run(map[string]wire.KeysAndAttributes{"nope": {Keys: keys(many[:60]...)}, "a": {Keys: keys(many[60:]...)}}), ddberr.Detected1+MsgTooManyGets)
	wantErr(t, run(map[string]wire.KeysAndAttributes{"nope": {Keys: keys("1"), ProjectionExpression: new("v")}, "a": {Keys: keys("1"), AttributesToGet: []string{"v"}}}),
		ddberr.Detected1+"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	wantErr(t, run(map[string]wire.KeysAndAttributes{"a": {Keys: []attr.Item{{"v": s("1")}}}, "nope": {Keys: keys("1")}}), ddberr.MsgKeySchema)
	wantErr(t, run(map[string]wire.KeysAndAttributes{"a": {Keys: keys("1")}, "nope": {Keys: keys("1")}}), "Requested resource not found")
	if len(c.reads) != 0 {
		t.Fatalf("read %v in refused requests", c.reads)
	}
}
