package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// lsiTable creates table name (pk S, sk S) with a KEYS_ONLY LSI on l (S)
// and an ALL LSI on n (N).
func lsiTable(t testing.TB, e *Engine, name string) *Table {
	t.Helper()
	in := &wire.CreateTableInput{
		TableName:   dpStr(name),
		BillingMode: BillingPayPerRequest,
		AttributeDefinitions: []wire.AttributeDefinition{
			{AttributeName: dpStr("pk"), AttributeType: "S"}, {AttributeName: dpStr("sk"), AttributeType: "S"},
			{AttributeName: dpStr("l"), AttributeType: "S"}, {AttributeName: dpStr("n"), AttributeType: "N"},
		},
		KeySchema: []wire.KeySchemaElement{{AttributeName: dpStr("pk"), KeyType: "HASH"}, {AttributeName: dpStr("sk"), KeyType: "RANGE"}},
		LocalSecondaryIndexes: []wire.LocalSecondaryIndex{
			{IndexName: dpStr("LK"), KeySchema: []wire.KeySchemaElement{{AttributeName: dpStr("pk"), KeyType: "HASH"}, {AttributeName: dpStr("l"), KeyType: "RANGE"}},
				Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}},
			{IndexName: dpStr("LN"), KeySchema: []wire.KeySchemaElement{{AttributeName: dpStr("pk"), KeyType: "HASH"}, {AttributeName: dpStr("n"), KeyType: "RANGE"}},
				Projection: &wire.Projection{ProjectionType: ProjectAll}},
		},
	}
	if _, err := e.CreateTable(dpCtx, in); err != nil {
		t.Fatal(err)
	}
	tb, ok := e.lookupTable(name)
	if !ok {
		t.Fatal("table missing")
	}
	return tb
}

// scanCollectionSize measures a collection the slow way: its items and
// its LSI entries (with their overhead) read from storage.
func scanCollectionSize(t testing.TB, e *Engine, tb *Table, pk attr.Value) int64 {
	t.Helper()
	snap, err := e.store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var total int64
	sum := func(prefix []byte, overhead int64) {
		it, err := snap.NewIterator(storage.IterOptions{Lower: prefix, Upper: attr.PrefixEnd(prefix)})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for it.Next() {
			total += itemSizeFromStored(it.Value()) + overhead
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
	}
	sum(partitionPrefix(tb.ID, pk), 0)
	for _, ix := range tb.LSIs {
		sum(ix.PartitionPrefix(tb.ID, []attr.Value{pk}), indexes.Overhead)
	}
	return total
}

func counterOf(t testing.TB, e *Engine, tb *Table, pk string) int64 {
	t.Helper()
	n, err := e.collectionSize(tb, dpS(pk))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCollectionCounterExact(t *testing.T) {
	e := dpEngine(t)
	tb := lsiTable(t, e, "c")
	r := rand.New(rand.NewSource(1))
	pks := []string{"a", "b", "c"}
	for i := 0; i < 400; i++ {
		pk, sk := pks[r.Intn(3)], fmt.Sprint(r.Intn(30))
		key := attr.Item{"pk": dpS(pk), "sk": dpS(sk)}
		var err error
		switch r.Intn(5) {
		case 0, 1:
			it := attr.Item{"pk": dpS(pk), "sk": dpS(sk), "xpad": dpS(strings.Repeat("x", r.Intn(200)))}
			if r.Intn(2) == 0 {
				it["l"] = dpS(fmt.Sprint("l", r.Intn(9)))
			}
			if r.Intn(2) == 0 {
				it["n"] = dpN(fmt.Sprint(r.Intn(99)))
			}
			_, err = e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"), Item: it})
		case 2:
			_, err = e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("c"), Key: key,
				UpdateExpression: dpStr("SET n = :n, l = :l REMOVE xpad"), ExpressionAttributeValues: attr.Item{":n": dpN(fmt.Sprint(r.Intn(9))), ":l": dpS("u")}})
		case 3:
			_, err = e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: key})
		case 4:
			var reqs []wire.WriteRequest
			for j := 0; j < 5; j++ {
				k := attr.Item{"pk": dpS(pk), "sk": dpS(fmt.Sprint("b", i, "-", j))}
				if j%2 == 0 {
					k["l"] = dpS("b")
					reqs = append(reqs, wire.WriteRequest{PutRequest: &wire.PutRequest{Item: k}})
				} else {
					reqs = append(reqs, wire.WriteRequest{DeleteRequest: &wire.DeleteRequest{Key: attr.Item{"pk": dpS(pk), "sk": dpS(fmt.Sprint(j*10 + r.Intn(10)))}}})
				}
			}
			_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"c": reqs}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, pk := range pks {
		if got, want := counterOf(t, e, tb, pk), scanCollectionSize(t, e, tb, dpS(pk)); got != want || want == 0 {
			t.Errorf("collection %s: counter %d, scan %d", pk, got, want)
		}
	}
	// Emptying a collection removes its counter.
	for i := 0; i < 30; i++ {
		e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("a"), "sk": dpS(fmt.Sprint(i))}})
	}
	out, err := e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("c"), KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: attr.Item{":p": dpS("a")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: tb.keyItem(it)})
	}
	snap, err := e.store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if _, err := snap.Get(indexes.CollectionKey(tb.ID, dpS("a"))); err != storage.ErrNotFound {
		t.Errorf("counter of an empty collection: %v", err)
	}
}

// Concurrent writers of two hot collections: single writes, batches and
// transactions spanning both collections in either order. No write may
// fail (no deadlock, no exhausted conflict retries) and the counters stay
// exact.
func TestCollectionCounterConcurrent(t *testing.T) {
	e := dpEngine(t)
	tb := lsiTable(t, e, "c")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			hot := []string{"hot", "hot2"}
			for i := 0; i < 150; i++ {
				pk, other := hot[r.Intn(2)], ""
				if pk == "hot" {
					other = "hot2"
				} else {
					other = "hot"
				}
				sk := dpS(fmt.Sprint(r.Intn(40)))
				it := func(pk string, sk attr.Value) attr.Item {
					return attr.Item{"pk": dpS(pk), "sk": sk, "l": dpS(fmt.Sprint(g)), "v": dpS(strings.Repeat("v", i))}
				}
				var err error
				switch r.Intn(4) {
				case 0:
					_, err = e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS(pk), "sk": sk}})
				case 1:
					_, err = e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"), Item: it(pk, sk)})
				case 2:
					_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"c": {
						{PutRequest: &wire.PutRequest{Item: it(pk, sk)}},
						{PutRequest: &wire.PutRequest{Item: it(other, dpS(fmt.Sprint(r.Intn(40))))}},
					}}})
				case 3:
					_, err = e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
						{Put: &wire.Put{TableName: dpStr("c"), Item: it(other, sk)}},
						{Delete: &wire.Delete{TableName: dpStr("c"), Key: attr.Item{"pk": dpS(pk), "sk": dpS(fmt.Sprint(r.Intn(40)))}}},
					}})
					var de *ddberr.Error
					if errors.As(err, &de) && (de.Type == "TransactionCanceledException" || de.Type == "TransactionConflictException") {
						err = nil // a concurrent transaction on the same item
					}
				}
				var de *ddberr.Error
				if errors.As(err, &de) && de.Type == "TransactionConflictException" {
					err = nil // a single write on an item a transaction holds
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, pk := range []string{"hot", "hot2"} {
		if got, want := counterOf(t, e, tb, pk), scanCollectionSize(t, e, tb, dpS(pk)); got != want {
			t.Fatalf("%s: counter %d, scan %d", pk, got, want)
		}
	}
}

func TestCollectionSizeLimit(t *testing.T) {
	e := dpEngine(t)
	e.coll.Max = 2000
	tb := lsiTable(t, e, "c")
	big := strings.Repeat("x", 300)
	n := 0
	var err error
	for ; n < 20; n++ {
		_, err = e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS(fmt.Sprint(n)), "l": dpS("l"), "v": dpS(big)}})
		if err != nil {
			break
		}
	}
	dpWantErr(t, err, "ItemCollectionSizeLimitExceededException", "Collection size exceeded")
	if n == 0 {
		t.Fatal("no item fitted")
	}
	size := counterOf(t, e, tb, "a")
	if size > 2000 || size != scanCollectionSize(t, e, tb, dpS("a")) {
		t.Fatalf("collection size %d after the refused write", size)
	}
	// The refused item was not written.
	if it := dpGet(t, e, "c", attr.Item{"pk": dpS("a"), "sk": dpS(fmt.Sprint(n))}); it != nil {
		t.Fatalf("refused item stored: %v", dpJSON(it))
	}
	// Other collections are not affected; neither are writes that shrink
	// or keep the collection's size.
	dpPut(t, e, "c", attr.Item{"pk": dpS("b"), "sk": dpS("0"), "v": dpS(big)})
	dpPut(t, e, "c", attr.Item{"pk": dpS("a"), "sk": dpS("0"), "l": dpS("m"), "v": dpS(big)})
	_, err = e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("a"), "sk": dpS("0")},
		UpdateExpression: dpStr("SET w = :w"), ExpressionAttributeValues: attr.Item{":w": dpS(big + big)}})
	dpWantErr(t, err, "ItemCollectionSizeLimitExceededException", "Collection size exceeded")
	_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"c": {
		{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("a"), "sk": dpS("new"), "v": dpS(big + big)}}}}}})
	dpWantErr(t, err, "ItemCollectionSizeLimitExceededException", "Collection size exceeded")
	if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("a"), "sk": dpS("1")}}); err != nil {
		t.Fatal(err)
	}
	dpPut(t, e, "c", attr.Item{"pk": dpS("a"), "sk": dpS("new"), "v": dpS(big)})
	if got, want := counterOf(t, e, tb, "a"), scanCollectionSize(t, e, tb, dpS("a")); got != want {
		t.Fatalf("counter %d, scan %d", got, want)
	}
	// Tables without LSIs have no collection limit and no counters.
	dpTable(t, e, "plain", "pk:S", "sk:S")
	for i := 0; i < 10; i++ {
		dpPut(t, e, "plain", attr.Item{"pk": dpS("a"), "sk": dpS(fmt.Sprint(i)), "v": dpS(big)})
	}
	plain, _ := e.lookupTable("plain")
	if n := counterOf(t, e, plain, "a"); n != 0 {
		t.Fatalf("counter on a table without LSIs: %d", n)
	}
}

func TestCollectionMetrics(t *testing.T) {
	e := dpEngine(t)
	tb := lsiTable(t, e, "c")
	dpTable(t, e, "plain", "pk:S", "sk:S")
	out, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS("1"), "l": dpS("x")},
		ReturnItemCollectionMetrics: "SIZE"})
	if err != nil {
		t.Fatal(err)
	}
	if got := dpJSON(out.ItemCollectionMetrics.ItemCollectionKey); got != `{"pk":{"S":"a"}}` || fmt.Sprint(out.ItemCollectionMetrics.SizeEstimateRangeGB) != "[0 1]" {
		t.Fatalf("metrics: %s %v", got, out.ItemCollectionMetrics.SizeEstimateRangeGB)
	}
	// A collection of 3.5 GB (its counter set directly) is reported as [3, 4].
	if err := e.commit(false, func(txn storage.Txn) error {
		return txn.Set(indexes.CollectionKey(tb.ID, dpS("big")), binary.BigEndian.AppendUint64(nil, 7<<29))
	}); err != nil {
		t.Fatal(err)
	}
	del, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("big"), "sk": dpS("none")}, ReturnItemCollectionMetrics: "SIZE"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(del.ItemCollectionMetrics.SizeEstimateRangeGB) != "[3 4]" {
		t.Fatalf("3.5 GB: %v", del.ItemCollectionMetrics.SizeEstimateRangeGB)
	}
	// BatchWriteItem: per table with LSIs, one entry per collection written.
	bw, err := e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{ReturnItemCollectionMetrics: "SIZE", RequestItems: map[string][]wire.WriteRequest{
		"c": {
			{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("a"), "sk": dpS("2")}}},
			{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("b"), "sk": dpS("1")}}},
			{DeleteRequest: &wire.DeleteRequest{Key: attr.Item{"pk": dpS("a"), "sk": dpS("1")}}},
			{DeleteRequest: &wire.DeleteRequest{Key: attr.Item{"pk": dpS("big"), "sk": dpS("x")}}},
		},
		"plain": {{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("a"), "sk": dpS("1")}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bw.ItemCollectionMetrics) != 1 || len(bw.ItemCollectionMetrics["c"]) != 3 {
		t.Fatalf("batch metrics: %+v", bw.ItemCollectionMetrics)
	}
	var got []string
	for _, m := range bw.ItemCollectionMetrics["c"] {
		got = append(got, fmt.Sprint(dpJSON(m.ItemCollectionKey), m.SizeEstimateRangeGB))
	}
	if s := strings.Join(got, " "); s != `{"pk":{"S":"a"}}[0 1] {"pk":{"S":"b"}}[0 1] {"pk":{"S":"big"}}[3 4]` {
		t.Fatalf("batch metrics: %s", s)
	}
	bw, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{
		"c": {{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("a"), "sk": dpS("3")}}}}}})
	if err != nil || bw.ItemCollectionMetrics != nil {
		t.Fatalf("metrics not asked for: %+v %v", bw.ItemCollectionMetrics, err)
	}
}

// TestCollectionOfRecreatedTable: a table deleted and created again under
// the same name is another table (another ID): its item collections start
// empty, whatever the old table's counters still hold, and fill to the
// limit on their own.
func TestCollectionOfRecreatedTable(t *testing.T) {
	e := dpEngine(t)
	e.coll.Max = 2000
	old := lsiTable(t, e, "c")
	big := strings.Repeat("x", 300)
	fill := func() int {
		t.Helper()
		for n := 0; n < 20; n++ {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"), Item: attr.Item{"pk": dpS("a"), "sk": dpS(fmt.Sprint(n)), "l": dpS("l"), "v": dpS(big)}})
			if err != nil {
				dpWantErr(t, err, "ItemCollectionSizeLimitExceededException", "Collection size exceeded")
				return n
			}
		}
		t.Fatal("the collection never filled")
		return 0
	}
	first := fill()
	if _, err := e.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: dpStr("c")}); err != nil {
		t.Fatal(err)
	}
	again := lsiTable(t, e, "c")
	if again.ID == old.ID {
		t.Fatal("the recreated table reuses the old ID")
	}
	if n := counterOf(t, e, again, "a"); n != 0 {
		t.Fatalf("the recreated table's collection starts at %d bytes", n)
	}
	if second := fill(); second != first {
		t.Fatalf("the recreated table's collection took %d items, the old one %d", second, first)
	}
	if got, want := counterOf(t, e, again, "a"), scanCollectionSize(t, e, again, dpS("a")); got != want {
		t.Fatalf("counter %d, scan %d", got, want)
	}
}
