package engine

import (
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// BenchmarkReads measures Query and Scan pages over the memory store: a
// Query of 100 items (decoded, and encoded as QueryEncoded sends them), a
// Query with a filter, a Query of a GSI and a Scan page of 100 items.
//
//	go test ./internal/engine/ -run '^$' -bench Reads -benchtime 2000x
func BenchmarkReads(b *testing.B) {
	e := dpEngine(b)
	in := &wire.CreateTableInput{TableName: dpStr("r"), BillingMode: BillingPayPerRequest,
		AttributeDefinitions: []wire.AttributeDefinition{
			{AttributeName: dpStr("pk"), AttributeType: "S"}, {AttributeName: dpStr("sk"), AttributeType: "N"},
			{AttributeName: dpStr("g"), AttributeType: "S"}},
		KeySchema: []wire.KeySchemaElement{{AttributeName: dpStr("pk"), KeyType: "HASH"}, {AttributeName: dpStr("sk"), KeyType: "RANGE"}},
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: dpStr("byg"),
			KeySchema:  []wire.KeySchemaElement{{AttributeName: dpStr("g"), KeyType: "HASH"}, {AttributeName: dpStr("sk"), KeyType: "RANGE"}},
			Projection: &wire.Projection{ProjectionType: ProjectAll}}},
	}
	if _, err := e.CreateTable(dpCtx, in); err != nil {
		b.Fatal(err)
	}
	for p := 0; p < 10; p++ {
		for i := 0; i < 100; i++ {
			dpPut(b, e, "r", attr.Item{"pk": dpS(fmt.Sprint("p", p)), "sk": dpN(fmt.Sprint(i)),
				"g": dpS(fmt.Sprint("g", p)), "v": dpS("some value of the item"), "n": dpN(fmt.Sprint(i % 7))})
		}
	}
	query := func(index *string, key string, filter *string) *wire.QueryInput {
		return &wire.QueryInput{TableName: dpStr("r"), IndexName: index, KeyConditionExpression: dpStr(key + " = :p"),
			FilterExpression: filter, ExpressionAttributeValues: attr.Item{":p": dpS(key[:1] + "3")},
			ReturnConsumedCapacity: "TOTAL"}
	}
	run := func(name string, want int, f func() (int, error)) {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				n, err := f()
				if err != nil || n != want {
					b.Fatalf("%d items, %v", n, err)
				}
			}
		})
	}
	run("Query", 100, func() (int, error) {
		out, err := e.Query(dpCtx, query(nil, "pk", nil))
		return len(out.Items), err
	})
	var buf []byte
	run("QueryEncoded", 100, func() (int, error) {
		out, items, _, err := e.QueryEncoded(dpCtx, query(nil, "pk", nil), buf)
		buf = items
		return int(*out.Count), err
	})
	filtered := query(nil, "pk", dpStr("n = :n"))
	filtered.ExpressionAttributeValues[":n"] = dpN("3")
	run("QueryFilter", 14, func() (int, error) {
		out, err := e.Query(dpCtx, filtered)
		return len(out.Items), err
	})
	run("QueryGSI", 100, func() (int, error) {
		out, err := e.Query(dpCtx, query(dpStr("byg"), "g", nil))
		return len(out.Items), err
	})
	run("Scan", 100, func() (int, error) {
		out, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("r"), Limit: cpPtr[int32](100)})
		return len(out.Items), err
	})
}
