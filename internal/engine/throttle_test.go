package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// throttleEngine opens an engine that enforces throughput, with one
// second of burst capacity, on a clock the test moves.
func throttleEngine(t *testing.T, on bool) (*Engine, *ctlClock) {
	t.Helper()
	clk := &ctlClock{}
	e, err := Open(memory.New(), Config{Clock: clk, Throttle: ThrottleConfig{On: on, Burst: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, clk
}

// throttleTable creates table "t" (key pk, GSI "g" on gk) with the given
// table and GSI capacity (rcu, wcu), provisioned, or on demand with
// OnDemandThroughput maximums when onDemand.
func throttleTable(t *testing.T, e *Engine, onDemand bool, table, gsi [2]int64) {
	t.Helper()
	in := &wire.CreateTableInput{
		TableName: cpPtr("t"),
		AttributeDefinitions: []wire.AttributeDefinition{
			{AttributeName: cpPtr("pk"), AttributeType: "S"}, {AttributeName: cpPtr("gk"), AttributeType: "S"}},
		KeySchema: []wire.KeySchemaElement{{AttributeName: cpPtr("pk"), KeyType: "HASH"}},
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{
			IndexName:  cpPtr("g"),
			KeySchema:  []wire.KeySchemaElement{{AttributeName: cpPtr("gk"), KeyType: "HASH"}},
			Projection: &wire.Projection{ProjectionType: "ALL"},
		}},
	}
	if onDemand {
		in.BillingMode = BillingPayPerRequest
		in.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr(table[0]), MaxWriteRequestUnits: cpPtr(table[1])}
		in.GlobalSecondaryIndexes[0].OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: cpPtr(gsi[0]), MaxWriteRequestUnits: cpPtr(gsi[1])}
	} else {
		in.BillingMode = BillingProvisioned
		in.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr(table[0]), WriteCapacityUnits: cpPtr(table[1])}
		in.GlobalSecondaryIndexes[0].ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr(gsi[0]), WriteCapacityUnits: cpPtr(gsi[1])}
	}
	if _, err := e.CreateTable(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func thrItem(pk string, withGSI bool) attr.Item {
	it := attr.Item{"pk": dpS(pk)}
	if withGSI {
		it["gk"] = dpS("x")
	}
	return it
}

func thrPut(e *Engine, pk string, withGSI bool) error {
	_, err := e.PutItem(context.Background(), &wire.PutItemInput{TableName: cpPtr("t"), Item: thrItem(pk, withGSI)})
	return err
}

// wantThrottled asserts err is a throttling error of type typ and text msg
// with one reason on resource ("" for the table, else the GSI's name).
func wantThrottled(t *testing.T, err error, typ, msg, reason, index string) {
	t.Helper()
	ctlWantErr(t, err, typ, msg)
	resource := "arn:aws:dynamodb:us-east-1:000000000000:table/t"
	if index != "" {
		resource += "/index/" + index
	}
	want := []ddberr.ThrottlingReason{{Reason: reason, Resource: resource}}
	if got := err.(*ddberr.Error).ThrottlingReasons; !slices.Equal(got, want) {
		t.Fatalf("ThrottlingReasons %+v, want %+v", got, want)
	}
}

const (
	ptee = "ProvisionedThroughputExceededException"
	thex = "ThrottlingException"
)

// TestThrottleTableWrites: two write units a second, one second kept: two
// puts pass, the third is refused, and half a second later one more fits.
func TestThrottleTableWrites(t *testing.T) {
	e, clk := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{5, 2}, [2]int64{5, 5})
	for _, pk := range []string{"a", "b"} {
		if err := thrPut(e, pk, false); err != nil {
			t.Fatal(err)
		}
	}
	wantThrottled(t, thrPut(e, "c", false), ptee, ddberr.MsgThroughputTable, "TableWriteProvisionedThroughputExceeded", "")
	clk.advance(500 * time.Millisecond)
	if err := thrPut(e, "c", false); err != nil {
		t.Fatal(err)
	}
	wantThrottled(t, thrPut(e, "d", false), ptee, ddberr.MsgThroughputTable, "TableWriteProvisionedThroughputExceeded", "")
	// A refused write was not applied.
	out, err := e.GetItem(context.Background(), &wire.GetItemInput{TableName: cpPtr("t"), Key: attr.Item{"pk": dpS("d")}})
	if err != nil || out.Item != nil {
		t.Fatalf("refused put applied: %v %v", out, err)
	}
}

// TestThrottleReads: eventually consistent reads cost half a unit; a read
// that drives the bucket to zero passes, the next waits. Query and Scan
// pay what they read.
func TestThrottleReads(t *testing.T) {
	e, clk := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{1, 100}, [2]int64{1, 100})
	for i := 0; i < 3; i++ {
		if err := thrPut(e, string(rune('a'+i)), true); err != nil {
			t.Fatal(err)
		}
	}
	get := func(consistent bool) error {
		_, err := e.GetItem(context.Background(), &wire.GetItemInput{TableName: cpPtr("t"), Key: attr.Item{"pk": dpS("a")}, ConsistentRead: &consistent})
		return err
	}
	for range 2 {
		if err := get(false); err != nil {
			t.Fatal(err)
		}
	}
	wantThrottled(t, get(false), ptee, ddberr.MsgThroughputTable, "TableReadProvisionedThroughputExceeded", "")
	clk.advance(time.Second)
	if err := get(true); err != nil { // one unit: the bucket is empty again
		t.Fatal(err)
	}
	_, err := e.Scan(context.Background(), &wire.ScanInput{TableName: cpPtr("t")})
	wantThrottled(t, err, ptee, ddberr.MsgThroughputTable, "TableReadProvisionedThroughputExceeded", "")

	// The GSI has a bucket of its own.
	query := func() error {
		_, err := e.Query(context.Background(), &wire.QueryInput{TableName: cpPtr("t"), IndexName: cpPtr("g"),
			KeyConditionExpression: cpPtr("gk = :v"), ExpressionAttributeValues: attr.Item{":v": dpS("x")}})
		return err
	}
	if err := query(); err != nil {
		t.Fatal(err)
	}
	if err := query(); err != nil {
		t.Fatal(err)
	}
	wantThrottled(t, query(), ptee, ddberr.MsgThroughputIndex, "IndexReadProvisionedThroughputExceeded", "g")
}

// TestThrottleGSIWrites: a table write is refused when a GSI is out of
// write capacity, even one the item does not reach.
func TestThrottleGSIWrites(t *testing.T) {
	e, _ := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{100, 100}, [2]int64{100, 1})
	if err := thrPut(e, "a", true); err != nil {
		t.Fatal(err)
	}
	wantThrottled(t, thrPut(e, "b", false), ptee, ddberr.MsgThroughputIndex, "IndexWriteProvisionedThroughputExceeded", "g")
}

// TestThrottleOnDemandMaximum: an on-demand table's MaxWriteRequestUnits
// is a ThrottlingException with a MaxOnDemandThroughputExceeded reason;
// one second's worth, no burst.
func TestThrottleOnDemandMaximum(t *testing.T) {
	e, _ := throttleEngine(t, true)
	throttleTable(t, e, true, [2]int64{100, 2}, [2]int64{100, 100})
	for _, pk := range []string{"a", "b"} {
		if err := thrPut(e, pk, false); err != nil {
			t.Fatal(err)
		}
	}
	wantThrottled(t, thrPut(e, "c", false), thex, ddberr.MsgOnDemandTable, "TableWriteMaxOnDemandThroughputExceeded", "")
}

// TestThrottleOff: without enforcement nothing is refused.
func TestThrottleOff(t *testing.T) {
	e, _ := throttleEngine(t, false)
	throttleTable(t, e, false, [2]int64{1, 1}, [2]int64{1, 1})
	for i := range 50 {
		if err := thrPut(e, strings.Repeat("k", i+1), true); err != nil {
			t.Fatal(err)
		}
	}
}

// TestThrottleUpdateTable: raised capacity applies at once.
func TestThrottleUpdateTable(t *testing.T) {
	e, clk := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{5, 1}, [2]int64{5, 5})
	if err := thrPut(e, "a", false); err != nil {
		t.Fatal(err)
	}
	if thrPut(e, "b", false) == nil {
		t.Fatal("second put admitted")
	}
	if _, err := e.UpdateTable(context.Background(), &wire.UpdateTableInput{TableName: cpPtr("t"),
		ProvisionedThroughput: &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](5), WriteCapacityUnits: cpPtr[int64](10)}}); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Second) // refills at the new rate
	for i := range 10 {
		if err := thrPut(e, string(rune('c'+i)), false); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
}

// TestThrottleBatchWrite: a batch's requests are admitted in order while
// capacity lasts, the rest come back unprocessed; a batch none of whose
// requests fits fails.
func TestThrottleBatchWrite(t *testing.T) {
	e, _ := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{100, 2}, [2]int64{100, 100})
	var reqs []wire.WriteRequest
	for _, pk := range []string{"a", "b", "c", "d", "e"} {
		reqs = append(reqs, wire.WriteRequest{PutRequest: &wire.PutRequest{Item: thrItem(pk, false)}})
	}
	out, err := e.BatchWriteItem(context.Background(), &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"t": reqs}})
	if err != nil {
		t.Fatal(err)
	}
	if un := out.UnprocessedItems["t"]; len(un) != 3 || !attr.Equal(un[0].PutRequest.Item["pk"], dpS("c")) {
		t.Fatalf("UnprocessedItems %+v, want c, d, e", out.UnprocessedItems)
	}
	_, err = e.BatchWriteItem(context.Background(), &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"t": reqs[2:]}})
	wantThrottled(t, err, ptee, ddberr.MsgThroughputTable, "TableWriteProvisionedThroughputExceeded", "")
	for _, pk := range []string{"a", "b", "c"} {
		g, err := e.GetItem(context.Background(), &wire.GetItemInput{TableName: cpPtr("t"), Key: attr.Item{"pk": dpS(pk)}, ConsistentRead: cpPtr(true)})
		if err != nil && pk != "c" {
			t.Fatal(err)
		}
		if err == nil && (g.Item != nil) != (pk != "c") {
			t.Fatalf("item %s: %v", pk, g.Item)
		}
	}
}

// TestThrottleBatchGet: the keys past the read capacity come back in
// UnprocessedKeys.
func TestThrottleBatchGet(t *testing.T) {
	e, _ := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{2, 100}, [2]int64{100, 100})
	var keys []attr.Item
	for _, pk := range []string{"a", "b", "c"} {
		if err := thrPut(e, pk, false); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, attr.Item{"pk": dpS(pk)})
	}
	in := &wire.BatchGetItemInput{RequestItems: map[string]wire.KeysAndAttributes{"t": {Keys: keys, ConsistentRead: cpPtr(true)}}}
	out, err := e.BatchGetItem(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses["t"]) != 2 || len(out.UnprocessedKeys["t"].Keys) != 1 {
		t.Fatalf("Responses %d, UnprocessedKeys %+v", len(out.Responses["t"]), out.UnprocessedKeys)
	}
	_, err = e.BatchGetItem(context.Background(), in)
	wantThrottled(t, err, ptee, ddberr.MsgThroughputTable, "TableReadProvisionedThroughputExceeded", "")
}

// TestThrottleTransaction: an action on a table out of capacity cancels the
// transaction with reason ProvisionedThroughputExceeded.
func TestThrottleTransaction(t *testing.T) {
	e, _ := throttleEngine(t, true)
	throttleTable(t, e, false, [2]int64{100, 2}, [2]int64{100, 100})
	tx := func(pk string) error {
		_, err := e.TransactWriteItems(context.Background(), &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
			{Put: &wire.Put{TableName: cpPtr("t"), Item: thrItem(pk, false)}}}})
		return err
	}
	if err := tx("a"); err != nil { // a transactional write pays two units
		t.Fatal(err)
	}
	err := tx("b")
	ctlWantErr(t, err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [ProvisionedThroughputExceeded]")
	var de *ddberr.Error
	errors.As(err, &de)
	reasons := de.CancellationReasons.([]wire.CancellationReason)
	if reasons[0].Message == nil || *reasons[0].Message != ddberr.MsgThroughputTable {
		t.Fatalf("reasons %+v", reasons)
	}
}

// TestCapacityMeter: with MeterCapacity, TableStats counts the units each
// table and GSI consumed, as ConsumedCapacity reports them, and the
// requests refused.
func TestCapacityMeter(t *testing.T) {
	clk := &ctlClock{}
	e, err := Open(memory.New(), Config{Clock: clk, MeterCapacity: true, Throttle: ThrottleConfig{On: true, Burst: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	throttleTable(t, e, false, [2]int64{100, 100}, [2]int64{100, 2})
	ctx := context.Background()
	if err := thrPut(e, "a", true); err != nil { // table 1, GSI 1
		t.Fatal(err)
	}
	if _, err := e.TransactWriteItems(ctx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Put: &wire.Put{TableName: cpPtr("t"), Item: thrItem("b", true)}}}}); err != nil { // doubled: 2 and 2
		t.Fatal(err)
	}
	if thrPut(e, "c", true) == nil { // the GSI is out of write capacity
		t.Fatal("admitted")
	}
	if _, err := e.GetItem(ctx, &wire.GetItemInput{TableName: cpPtr("t"), Key: attr.Item{"pk": dpS("a")}, ConsistentRead: cpPtr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Query(ctx, &wire.QueryInput{TableName: cpPtr("t"), IndexName: cpPtr("g"),
		KeyConditionExpression: cpPtr("gk = :v"), ExpressionAttributeValues: attr.Item{":v": dpS("x")}}); err != nil {
		t.Fatal(err)
	}
	got := e.TableStats()[0].Capacity
	want := []CapacityStat{
		{Index: "", Write: false, Units: 1},
		{Index: "", Write: true, Units: 3},
		{Index: "g", Write: false, Units: 0.5},
		{Index: "g", Write: true, Units: 3, Throttled: 1},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("capacity %+v\nwant     %+v", got, want)
	}
}

// TestWriteAppliers: single-item writes go through one applier chain,
// wired at Open: the quota applier around the core's writeItem when
// capacity is enforced or metered, writeItem alone otherwise.
func TestWriteAppliers(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		quota bool
	}{{Config{}, false}, {Config{Throttle: ThrottleConfig{On: true}}, true}, {Config{MeterCapacity: true}, true}} {
		e, err := Open(memory.New(), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		q, isQuota := e.applier.(throttle.Applier[itemWrite, batchWrite, writeResult])
		if isQuota != c.quota || isQuota && (q.Next != writeApplier(coreApplier{e}) || q.Quota != e.quota) {
			t.Errorf("%+v: applier %#v", c.cfg, e.applier)
		}
		if _, isCore := e.applier.(coreApplier); !c.quota && !isCore {
			t.Errorf("%+v: applier %#v, want the core's", c.cfg, e.applier)
		}
		e.Close()
	}
}
