package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// Test helpers of the data-plane tests (prefixed dp to stay clear of the
// control-plane tests in this package).

var dpCtx = context.Background()

func dpS(s string) attr.Value      { return attr.Value{T: attr.S, Str: s} }
func dpN(s string) attr.Value      { return attr.Value{T: attr.N, Str: s} }
func dpB(b []byte) attr.Value      { return attr.Value{T: attr.B, Bin: b} }
func dpStr(s string) *string       { return &s }
func dpBool(b bool) *bool          { return &b }
func dpI32(i int32) *int32         { return &i }
func dpSS(ss ...string) attr.Value { return attr.Value{T: attr.SS, Strs: ss} }

// dpEngine opens an engine over a fresh memory store, with a small item
// cache (itemcache.go) so every data-plane test also exercises the cache
// and its evictions.
func dpEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := Open(memory.New(), Config{ItemCacheBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// dpTable creates an ACTIVE table; keys are "name:T" specs, the sort key
// optional.
func dpTable(t testing.TB, e *Engine, name string, keys ...string) {
	t.Helper()
	in := &wire.CreateTableInput{TableName: dpStr(name), BillingMode: BillingPayPerRequest}
	for i, k := range keys {
		n, typ, _ := strings.Cut(k, ":")
		kt := "HASH"
		if i == 1 {
			kt = "RANGE"
		}
		in.AttributeDefinitions = append(in.AttributeDefinitions, wire.AttributeDefinition{AttributeName: dpStr(n), AttributeType: typ})
		in.KeySchema = append(in.KeySchema, wire.KeySchemaElement{AttributeName: dpStr(n), KeyType: kt})
	}
	if _, err := e.CreateTable(dpCtx, in); err != nil {
		t.Fatal(err)
	}
}

func dpPut(t testing.TB, e *Engine, table string, it attr.Item) {
	t.Helper()
	if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr(table), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func dpGet(t testing.TB, e *Engine, table string, key attr.Item) attr.Item {
	t.Helper()
	out, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr(table), Key: key, ConsistentRead: dpBool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// dpWantErr checks err's type and exact message.
func dpWantErr(t testing.TB, err error, typ, msg string) {
	t.Helper()
	var de *ddberr.Error
	if !errors.As(err, &de) {
		t.Fatalf("got error %v, want %s: %s", err, typ, msg)
	}
	if de.Type != typ || de.Message != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", de.Type, de.Message, typ, msg)
	}
}

func dpJSON(v any) string {
	switch x := v.(type) {
	case attr.Item:
		if x == nil {
			return "<nil>"
		}
		return string(attr.AppendItemJSON(nil, x))
	case attr.Value:
		return string(attr.AppendJSON(nil, x))
	}
	return fmt.Sprint(v)
}

func TestItemPutGetDelete(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t1", "pk:S", "sk:N")
	key := attr.Item{"pk": dpS("a"), "sk": dpN("1")}
	if got := dpGet(t, e, "t1", key); got != nil {
		t.Fatalf("missing item: got %v", dpJSON(got))
	}
	dpPut(t, e, "t1", attr.Item{"pk": dpS("a"), "sk": dpN("1"), "v": dpS("x")})
	if got := dpJSON(dpGet(t, e, "t1", key)); got != `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"x"}}` {
		t.Fatalf("got %s", got)
	}
	out, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t1"), ReturnValues: "ALL_OLD",
		Item: attr.Item{"pk": dpS("a"), "sk": dpN("1"), "v": dpS("y")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := dpJSON(out.Attributes); got != `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"x"}}` {
		t.Fatalf("ALL_OLD: got %s", got)
	}
	g, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("t1"), Key: key, ProjectionExpression: dpStr("#v"),
		ExpressionAttributeNames: map[string]string{"#v": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := dpJSON(g.Item); got != `{"v":{"S":"y"}}` {
		t.Fatalf("projection: got %s", got)
	}
	d, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t1"), Key: key, ReturnValues: "ALL_OLD"})
	if err != nil {
		t.Fatal(err)
	}
	if got := dpJSON(d.Attributes); got != `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"y"}}` {
		t.Fatalf("delete ALL_OLD: got %s", got)
	}
	if got := dpGet(t, e, "t1", key); got != nil {
		t.Fatalf("deleted item: got %v", dpJSON(got))
	}
	d, err = e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t1"), Key: key, ReturnValues: "ALL_OLD"})
	if err != nil || d.Attributes != nil {
		t.Fatalf("delete missing: %v %v", err, d)
	}
}

func TestItemConditions(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t1", "pk:S")
	key := attr.Item{"pk": dpS("a")}
	put := func(cond string, vals attr.Item, onFail string) error {
		_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t1"), Item: attr.Item{"pk": dpS("a"), "n": dpN("1")},
			ConditionExpression: dpStr(cond), ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: onFail})
		return err
	}
	if err := put("attribute_not_exists(pk)", nil, ""); err != nil {
		t.Fatal(err)
	}
	err := put("attribute_not_exists(pk)", nil, "ALL_OLD")
	dpWantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	if got := dpJSON(err.(*ddberr.Error).Item.(attr.Item)); got != `{"n":{"N":"1"},"pk":{"S":"a"}}` {
		t.Fatalf("ALL_OLD on failure: %s", got)
	}
	err = put("attribute_not_exists(pk)", nil, "")
	if err.(*ddberr.Error).Item != nil {
		t.Fatal("item returned without ALL_OLD")
	}
	if err := put("n = :one", attr.Item{":one": dpN("1")}, ""); err != nil {
		t.Fatal(err)
	}
	// Legacy Expected.
	_, err = e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t1"), Key: key,
		Expected: map[string]wire.ExpectedAttributeValue{"n": {Value: &attr.Value{T: attr.N, Str: "2"}}}})
	dpWantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	_, err = e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t1"), Key: key,
		Expected: map[string]wire.ExpectedAttributeValue{"n": {Value: &attr.Value{T: attr.N, Str: "1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	// Condition on a missing item.
	_, err = e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t1"), Key: key,
		ConditionExpression: dpStr("attribute_exists(pk)"), UpdateExpression: dpStr("SET n = :one"),
		ExpressionAttributeValues: attr.Item{":one": dpN("1")}})
	dpWantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	if got := dpGet(t, e, "t1", key); got != nil {
		t.Fatalf("failed update wrote %s", dpJSON(got))
	}
}

// concurrently runs op(c, i) for i < each on each of clients goroutines c
// and fails t with the first error (each client stops at its own).
func concurrently(t *testing.T, clients, each int, op func(c, i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := op(c, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestItemConcurrentAdd is the write path's atomicity check: 32 clients
// each ADD 1 a thousand times to one item.
func TestItemConcurrentAdd(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t1", "pk:S")
	const clients, each = 32, 1000
	concurrently(t, clients, each, func(_, _ int) error {
		_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t1"), Key: attr.Item{"pk": dpS("ctr")},
			UpdateExpression: dpStr("ADD n :one"), ExpressionAttributeValues: attr.Item{":one": dpN("1")}})
		return err
	})
	got := dpGet(t, e, "t1", attr.Item{"pk": dpS("ctr")})
	if n := got["n"]; n.T != attr.N || n.Str != fmt.Sprint(clients*each) {
		t.Fatalf("counter = %s, want %d", dpJSON(n), clients*each)
	}
}
