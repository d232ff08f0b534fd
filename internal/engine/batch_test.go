package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

func TestBatchWriteAndGet(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "a", "pk:S")
	dpTable(t, e, "b", "pk:S", "sk:N")
	dpPut(t, e, "a", attr.Item{"pk": dpS("gone")})
	w, err := e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{ReturnConsumedCapacity: "TOTAL", RequestItems: map[string][]wire.WriteRequest{
		"a": {{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("x"), "v": dpS("1")}}},
			{DeleteRequest: &wire.DeleteRequest{Key: attr.Item{"pk": dpS("gone")}}}},
		"b": {{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("y"), "sk": dpN("1")}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if w.UnprocessedItems == nil || len(w.UnprocessedItems) != 0 || len(w.ConsumedCapacity) != 2 ||
		*w.ConsumedCapacity[0].TableName != "a" || *w.ConsumedCapacity[0].CapacityUnits != 2 {
		t.Fatalf("batch write output: %+v", w)
	}
	g, err := e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{ReturnConsumedCapacity: "INDEXES", RequestItems: map[string]wire.KeysAndAttributes{
		"a": {Keys: []attr.Item{{"pk": dpS("x")}, {"pk": dpS("gone")}}, ProjectionExpression: dpStr("v")},
		"b": {Keys: []attr.Item{{"pk": dpS("y"), "sk": dpN("1")}}, ConsistentRead: dpBool(true)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Responses["a"]) != 1 || dpJSON(g.Responses["a"][0]) != `{"v":{"S":"1"}}` || len(g.Responses["b"]) != 1 {
		t.Fatalf("responses: %v", g.Responses)
	}
	if len(g.UnprocessedKeys) != 0 || *g.ConsumedCapacity[0].CapacityUnits != 1 || *g.ConsumedCapacity[1].CapacityUnits != 1 ||
		*g.ConsumedCapacity[0].Table.CapacityUnits != 1 {
		t.Fatalf("capacity: %+v", g.ConsumedCapacity)
	}
}

func TestBatchErrors(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "a", "pk:S")
	key := attr.Item{"pk": dpS("x")}
	_, err := e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"a": {Keys: []attr.Item{key, key}}}})
	dpWantErr(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	var keys []attr.Item
	for i := 0; i < 101; i++ {
		keys = append(keys, attr.Item{"pk": dpS(fmt.Sprint(i))})
	}
	_, err = e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"a": {Keys: keys[:60]}, "b": {Keys: keys[60:]}}})
	dpWantErr(t, err, "ValidationException", "1 validation error detected: Too many items requested for the BatchGetItem call")
	_, err = e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"nope": {Keys: keys[:1]}}})
	dpWantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
	_, err = e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"a": {Keys: []attr.Item{{"pk": dpN("1")}}}}})
	dpWantErr(t, err, "ValidationException", "The provided key element does not match the schema")
	dpTable(t, e, "b", "pk:S")
	_, err = e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{
		"a": {Keys: []attr.Item{key}, ProjectionExpression: dpStr("pk")}, "b": {Keys: []attr.Item{key}, AttributesToGet: []string{"pk"}}}})
	dpWantErr(t, err, "ValidationException", "1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")

	put := func(it attr.Item) wire.WriteRequest { return wire.WriteRequest{PutRequest: &wire.PutRequest{Item: it}} }
	_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"a": {put(key), put(key)}}})
	dpWantErr(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"a": {put(attr.Item{"v": dpS("1")})}}})
	dpWantErr(t, err, "ValidationException", "The provided key element does not match the schema")
	var reqs []wire.WriteRequest
	for _, k := range keys[:26] {
		reqs = append(reqs, put(k))
	}
	_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"a": reqs[:13], "b": reqs[13:]}})
	dpWantErr(t, err, "ValidationException", "1 validation error detected: Too many items requested for the BatchWriteItem call")
}

// TestBatchGetResponseCap checks that keys past 16 MB of response come back
// in UnprocessedKeys and that the two halves together are complete.
func TestBatchGetResponseCap(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "a", "pk:S")
	big := strings.Repeat("x", 390*1024)
	var keys []attr.Item
	for i := 0; i < 50; i++ {
		k := attr.Item{"pk": dpS(fmt.Sprint(i))}
		keys = append(keys, k)
		dpPut(t, e, "a", attr.Item{"pk": k["pk"], "big": dpS(big)})
	}
	g, err := e.BatchGetItem(dpCtx, &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"a": {Keys: keys}}})
	if err != nil {
		t.Fatal(err)
	}
	got, un := len(g.Responses["a"]), len(g.UnprocessedKeys["a"].Keys)
	if got+un != 50 || un == 0 || got*390*1024 < 16<<20 {
		t.Fatalf("got %d items, %d unprocessed", got, un)
	}
}
