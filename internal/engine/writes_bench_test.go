package engine

import (
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// BenchmarkBatchWriteItem measures one BatchWriteItem of 25 small puts on
// the memory store (the request flow, the write path, capacity).
func BenchmarkBatchWriteItem(b *testing.B) {
	e := dpEngine(b)
	dpTable(b, e, "t", "pk:S")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		reqs := make([]wire.WriteRequest, 25)
		for j := range reqs {
			reqs[j].PutRequest = &wire.PutRequest{Item: attr.Item{"pk": dpS(fmt.Sprintf("k%d", j)), "n": dpN(fmt.Sprint(i))}}
		}
		in := &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"t": reqs}, ReturnConsumedCapacity: "TOTAL"}
		if _, err := e.BatchWriteItem(dpCtx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBatchGetItem measures one BatchGetItem of 25 keys.
func BenchmarkBatchGetItem(b *testing.B) {
	e := dpEngine(b)
	dpTable(b, e, "t", "pk:S")
	keys := make([]attr.Item, 25)
	for j := range keys {
		keys[j] = attr.Item{"pk": dpS(fmt.Sprintf("k%d", j))}
		dpPut(b, e, "t", attr.Item{"pk": dpS(fmt.Sprintf("k%d", j)), "n": dpN("1")})
	}
	in := &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"t": {Keys: keys}}, ReturnConsumedCapacity: "TOTAL"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.BatchGetItem(dpCtx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransactWriteItems measures one TransactWriteItems of 10
// updates on distinct items.
func BenchmarkTransactWriteItems(b *testing.B) {
	e := dpEngine(b)
	dpTable(b, e, "t", "pk:S")
	acts := make([]wire.TransactWriteItem, 10)
	for j := range acts {
		acts[j].Update = &wire.Update{TableName: dpStr("t"), Key: attr.Item{"pk": dpS(fmt.Sprintf("k%d", j))},
			UpdateExpression: dpStr("ADD n :one"), ExpressionAttributeValues: attr.Item{":one": dpN("1")}}
	}
	in := &wire.TransactWriteItemsInput{TransactItems: acts, ReturnConsumedCapacity: "TOTAL"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.TransactWriteItems(dpCtx, in); err != nil {
			b.Fatal(err)
		}
	}
}
