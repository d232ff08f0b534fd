package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// TestTransactCollectionMetrics checks TransactWriteItems'
// ItemCollectionMetrics with ReturnItemCollectionMetrics=SIZE: per table
// with LSIs, one entry per item collection its Put, Update and Delete
// actions wrote to, in request order; nothing for ConditionChecks, for
// tables without LSIs, or without SIZE.
func TestTransactCollectionMetrics(t *testing.T) {
	e := dpEngine(t)
	lsiTable(t, e, "c")
	dpTable(t, e, "plain", "pk:S")
	dpPut(t, e, "c", attr.Item{"pk": dpS("d"), "sk": dpS("0"), "l": dpS("x")})
	dpPut(t, e, "c", attr.Item{"pk": dpS("z"), "sk": dpS("0")})
	items := func() []wire.TransactWriteItem {
		return []wire.TransactWriteItem{
			{Put: &wire.Put{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS("1"), "l": dpS("x")}}},
			{Update: &wire.Update{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("b"), "sk": dpS("1")},
				UpdateExpression: dpStr("SET n = :n"), ExpressionAttributeValues: attr.Item{":n": dpN("7")}}},
			{Put: &wire.Put{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS("2")}}},
			{Delete: &wire.Delete{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("d"), "sk": dpS("0")}}},
			{ConditionCheck: &wire.ConditionCheck{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("z"), "sk": dpS("0")},
				ConditionExpression: dpStr("attribute_exists(pk)")}},
			{Put: &wire.Put{TableName: dpStr("plain"), Item: attr.Item{"pk": dpS("p")}}},
		}
	}
	out, err := e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: items(), ReturnItemCollectionMetrics: "SIZE"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ItemCollectionMetrics) != 1 {
		t.Fatalf("tables: %v", out.ItemCollectionMetrics)
	}
	var got []string
	for _, m := range out.ItemCollectionMetrics["c"] {
		got = append(got, fmt.Sprintf("%s:%v", m.ItemCollectionKey["pk"].Str, m.SizeEstimateRangeGB))
		if len(m.ItemCollectionKey) != 1 {
			t.Fatalf("ItemCollectionKey %v", dpJSON(m.ItemCollectionKey))
		}
	}
	if s := strings.Join(got, " "); s != "a:[0 1] b:[0 1] d:[0 1]" {
		t.Fatalf("metrics %s", s)
	}
	// The same estimate as PutItem's for the same collection.
	tb, _ := e.lookupTable("c")
	if m := e.collectionMetrics("SIZE", tb, attr.Item{"pk": dpS("a")}); m == nil || m.SizeEstimateRangeGB[1] != 1 {
		t.Fatalf("collectionMetrics %v", m)
	}
	out, err = e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: items()[:3], ReturnItemCollectionMetrics: "NONE"})
	if err != nil || out.ItemCollectionMetrics != nil {
		t.Fatalf("NONE: %v %v", err, out)
	}
	out, err = e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: items()[5:], ReturnItemCollectionMetrics: "SIZE"})
	if err != nil || out.ItemCollectionMetrics != nil {
		t.Fatalf("no LSI table: %v %v", err, out)
	}
}

// TestTransactCollectionLimit checks that an action that would push an
// item collection past its limit cancels the transaction with reason
// ItemCollectionSizeLimitExceeded (as BatchStatementError and DynamoDB's
// cancellation reasons name it), writing none of its actions.
func TestTransactCollectionLimit(t *testing.T) {
	e := dpEngine(t)
	e.coll.Max = 2000
	tb := lsiTable(t, e, "c")
	big := strings.Repeat("x", 600)
	for i := 0; i < 3; i++ {
		dpPut(t, e, "c", attr.Item{"pk": dpS("a"), "sk": dpS(fmt.Sprint(i)), "v": dpS(big)})
	}
	before := counterOf(t, e, tb, "a")
	_, err := e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Put: &wire.Put{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("b"), "sk": dpS("0")}}},
		{Put: &wire.Put{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS("9"), "v": dpS(big)}}},
	}})
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Type != "TransactionCanceledException" ||
		de.Message != "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ItemCollectionSizeLimitExceeded]" {
		t.Fatalf("err %v", err)
	}
	reasons, _ := de.CancellationReasons.([]wire.CancellationReason)
	if len(reasons) != 2 || reasons[1].Code != "ItemCollectionSizeLimitExceeded" || reasons[1].Message == nil ||
		*reasons[1].Message != "Collection size exceeded" || reasons[0].Code != "None" {
		t.Fatalf("reasons %+v", reasons)
	}
	if dpGet(t, e, "c", attr.Item{"pk": dpS("b"), "sk": dpS("0")}) != nil {
		t.Fatal("cancelled transaction applied")
	}
	if got := counterOf(t, e, tb, "a"); got != before || got != scanCollectionSize(t, e, tb, dpS("a")) {
		t.Fatalf("collection size %d, was %d", got, before)
	}
	// A transaction that shrinks the collection while growing it by less
	// passes.
	if _, err := e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Delete: &wire.Delete{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("a"), "sk": dpS("0")}}},
		{Put: &wire.Put{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS("9"), "v": dpS(big)}}},
	}}); err != nil {
		t.Fatal(err)
	}
}

// TestBatchExecuteStatementMixed checks DynamoDB's rule that a batch is
// all reads or all writes; statements that do not parse fail on their own.
func TestBatchExecuteStatementMixed(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	dpPut(t, e, "t", attr.Item{"pk": dpS("a")})
	stmt := func(s string) wire.BatchStatementRequest { return wire.BatchStatementRequest{Statement: dpStr(s)} }
	_, err := e.BatchExecuteStatement(dpCtx, &wire.BatchExecuteStatementInput{Statements: []wire.BatchStatementRequest{
		stmt(`SELECT * FROM "t" WHERE pk = 'a'`),
		stmt(`INSERT INTO "t" VALUE {'pk': 'b'}`),
	}})
	dpWantErr(t, err, "ValidationException", "Batch must contain either all reads or all writes")
	if dpGet(t, e, "t", attr.Item{"pk": dpS("b")}) != nil {
		t.Fatal("mixed batch applied a write")
	}
	for _, batch := range [][]wire.BatchStatementRequest{
		{stmt(`SELECT * FROM "t" WHERE pk = 'a'`), stmt(`SELECT * FROM "t" WHERE pk = 'b'`), stmt(`SELEC nonsense`)},
		{stmt(`INSERT INTO "t" VALUE {'pk': 'c'}`), stmt(`DELETE FROM "t" WHERE pk = 'a'`), stmt(`SELEC nonsense`)},
	} {
		out, err := e.BatchExecuteStatement(dpCtx, &wire.BatchExecuteStatementInput{Statements: batch})
		if err != nil {
			t.Fatal(err)
		}
		if out.Responses[0].Error != nil || out.Responses[1].Error != nil || out.Responses[2].Error == nil {
			t.Fatalf("responses %+v", out.Responses)
		}
	}
	if dpGet(t, e, "t", attr.Item{"pk": dpS("c")}) == nil || dpGet(t, e, "t", attr.Item{"pk": dpS("a")}) != nil {
		t.Fatal("write batch not applied")
	}
}
