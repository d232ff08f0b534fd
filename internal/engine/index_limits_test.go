package engine

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// ixKS builds a key schema from name, type pairs.
func ixKS(pairs ...string) []wire.KeySchemaElement {
	var out []wire.KeySchemaElement
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, wire.KeySchemaElement{AttributeName: dpStr(pairs[i]), KeyType: pairs[i+1]})
	}
	return out
}

// ixDefs builds attribute definitions from name, type pairs.
func ixDefs(pairs ...string) []wire.AttributeDefinition {
	var out []wire.AttributeDefinition
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, wire.AttributeDefinition{AttributeName: dpStr(pairs[i]), AttributeType: pairs[i+1]})
	}
	return out
}

// gsiLSITable creates table name (pk S, sk S) with GSI G (g S, gs B) and
// LSI L (l S).
func gsiLSITable(t testing.TB, e *Engine, name string) {
	t.Helper()
	all := &wire.Projection{ProjectionType: ProjectAll}
	_, err := e.CreateTable(dpCtx, &wire.CreateTableInput{
		TableName:              dpStr(name),
		BillingMode:            BillingPayPerRequest,
		AttributeDefinitions:   ixDefs("pk", "S", "sk", "S", "g", "S", "gs", "B", "l", "S"),
		KeySchema:              ixKS("pk", "HASH", "sk", "RANGE"),
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: dpStr("G"), KeySchema: ixKS("g", "HASH", "gs", "RANGE"), Projection: all}},
		LocalSecondaryIndexes:  []wire.LocalSecondaryIndex{{IndexName: dpStr("L"), KeySchema: ixKS("pk", "HASH", "l", "RANGE"), Projection: all}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIndexKeySizeLimits(t *testing.T) {
	e := dpEngine(t)
	gsiLSITable(t, e, "t")
	put := func(it attr.Item) error {
		_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: it})
		return err
	}
	key := func(extra attr.Item) attr.Item {
		it := attr.Item{"pk": dpS("p"), "sk": dpS("s")}
		for k, v := range extra {
			it[k] = v
		}
		return it
	}
	// At the limits: accepted.
	if err := put(key(attr.Item{"g": dpS(strings.Repeat("g", 2048)), "gs": dpB(make([]byte, 1024)), "l": dpS(strings.Repeat("é", 512))})); err != nil {
		t.Fatal(err)
	}
	const pfx = "One or more parameter values were invalid: "
	dpWantErr(t, put(key(attr.Item{"g": dpS(strings.Repeat("g", 2049))})), "ValidationException",
		pfx+"Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: G")
	dpWantErr(t, put(key(attr.Item{"gs": dpB(make([]byte, 1025))})), "ValidationException",
		pfx+"Size limit exceeded for Index Key gs Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: G")
	// Sizes are UTF-8 bytes.
	dpWantErr(t, put(key(attr.Item{"l": dpS(strings.Repeat("é", 513))})), "ValidationException",
		pfx+"Size limit exceeded for Index Key l Actual Size: 1026 bytes Max Size: 1024 bytes IndexName: L")
	_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key(nil),
		UpdateExpression: dpStr("SET g = :g"), ExpressionAttributeValues: attr.Item{":g": dpS(strings.Repeat("g", 3000))}})
	dpWantErr(t, err, "ValidationException", pfx+"Size limit exceeded for Index Key g Actual Size: 3000 bytes Max Size: 2048 bytes IndexName: G")
	_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"t": {
		{PutRequest: &wire.PutRequest{Item: key(attr.Item{"l": dpS(strings.Repeat("l", 1025))})}}}}})
	dpWantErr(t, err, "ValidationException", pfx+"Size limit exceeded for Index Key l Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: L")
	_, err = e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Put: &wire.Put{TableName: dpStr("t"), Item: key(attr.Item{"g": dpS(strings.Repeat("g", 2049))})}}}})
	if err == nil {
		t.Fatal("transaction with an oversized index key accepted")
	}
	// Nothing of the refused writes was stored.
	if got := dpGet(t, e, "t", key(nil)); len(got["g"].Str) != 2048 {
		t.Fatalf("item after refused writes: g of %d bytes", len(got["g"].Str))
	}
}

// waitBackfill waits until index name of table is ACTIVE.
func waitBackfill(t testing.TB, e *Engine, table, name string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		tb, ok := e.lookupTable(table)
		if !ok {
			t.Fatal("table gone")
		}
		if ix, ok := tb.Index(name); ok && !ix.Backfilling && ix.Status == StatusActive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index %s still backfilling after %v", name, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// addGSI creates GSI name on attribute hash (S) by UpdateTable.
func addGSI(t testing.TB, e *Engine, table, name, hash string) {
	t.Helper()
	_, err := e.UpdateTable(dpCtx, &wire.UpdateTableInput{TableName: dpStr(table),
		AttributeDefinitions: ixDefs("pk", "S", hash, "S"),
		GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Create: &wire.CreateGlobalSecondaryIndexAction{
			IndexName: dpStr(name), KeySchema: ixKS(hash, "HASH"), Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
}

// A backfill skips items whose index key value is over the limit.
func TestBackfillSkipsOversizedKeys(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	dpPut(t, e, "t", attr.Item{"pk": dpS("ok"), "g": dpS("small")})
	dpPut(t, e, "t", attr.Item{"pk": dpS("big"), "g": dpS(strings.Repeat("g", 2049))})
	addGSI(t, e, "t", "G", "g")
	waitBackfill(t, e, "t", "G", 10*time.Second)
	out, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("t"), IndexName: dpStr("G")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 || out.Items[0]["pk"].Str != "ok" {
		t.Fatalf("index holds %s", dpJSON(out.Items))
	}
}

// describeIndexStats returns ItemCount/IndexSizeBytes of every index.
func describeIndexStats(t testing.TB, e *Engine, table string) map[string][2]int64 {
	t.Helper()
	out, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr(table)})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][2]int64{}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		m[*g.IndexName] = [2]int64{cpDeref(g.ItemCount), cpDeref(g.IndexSizeBytes)}
	}
	for _, l := range out.Table.LocalSecondaryIndexes {
		m[*l.IndexName] = [2]int64{cpDeref(l.ItemCount), cpDeref(l.IndexSizeBytes)}
	}
	return m
}

// A clean Close saves the index statistics and the next Open restores them
// instead of recounting; after an unclean stop they are recounted.
func TestIndexStatsPersisted(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	gsiLSITable(t, e, "t")
	for _, sk := range []string{"a", "b", "c"} {
		dpPut(t, e, "t", attr.Item{"pk": dpS("p"), "sk": dpS(sk), "g": dpS("G"), "gs": dpB([]byte(sk)), "l": dpS(sk)})
	}
	dpPut(t, e, "t", attr.Item{"pk": dpS("p"), "sk": dpS("d"), "l": dpS("d")})
	want := describeIndexStats(t, e, "t")
	if want["G"][0] != 3 || want["L"][0] != 4 || want["G"][1] == 0 {
		t.Fatalf("stats: %v", want)
	}
	tb, _ := e.lookupTable("t")
	gID := tb.GSIs[0].ID
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Doctor the saved figures of G: a restart that restores them shows
	// them; one that recounted would show 3.
	if err := commitTo(store, func(txn storage.Txn) error {
		v, err := txn.Get(indexes.StatsKey(tb.ID))
		if err != nil {
			return err
		}
		for i := 0; i+20 <= len(v); i += 20 {
			if binary.BigEndian.Uint32(v[i:]) == gID {
				binary.BigEndian.PutUint64(v[i+4:], 1000)
			}
		}
		return txn.Set(indexes.StatsKey(tb.ID), v)
	}); err != nil {
		t.Fatal(err)
	}
	e, err = Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	got := describeIndexStats(t, e, "t")
	if got["G"] != [2]int64{1000, want["G"][1]} || got["L"] != want["L"] {
		t.Fatalf("restored stats: %v, want G=[1000 %d] L=%v", got, want["G"][1], want["L"])
	}
	// Writes after the restart keep counting from the restored figures.
	dpPut(t, e, "t", attr.Item{"pk": dpS("q"), "sk": dpS("a"), "g": dpS("G"), "gs": dpB([]byte("x"))})
	if got := describeIndexStats(t, e, "t"); got["G"][0] != 1001 {
		t.Fatalf("after a write: %v", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Unclean stop (no clean marker): the statistics are recounted.
	if err := commitTo(store, func(txn storage.Txn) error { return txn.Delete(catalog.CleanKey) }); err != nil {
		t.Fatal(err)
	}
	e, err = Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got = describeIndexStats(t, e, "t")
		if got["G"][0] == 4 && got["L"] == want["L"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("recounted stats: %v", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// commitTo runs f in one transaction of store and commits it.
func commitTo(store storage.Store, f func(storage.Txn) error) error {
	txn, err := store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := f(txn); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{})
}

// Query and Scan refuse a vector index name with DynamoDB's texts.
func TestReadRefusesVectorIndex(t *testing.T) {
	e := dpEngine(t)
	_, err := e.CreateTable(dpCtx, &wire.CreateTableInput{
		TableName:            dpStr("v"),
		BillingMode:          BillingPayPerRequest,
		AttributeDefinitions: ixDefs("pk", "S"),
		KeySchema:            ixKS("pk", "HASH"),
		VectorIndexes: []wire.VectorIndex{{IndexName: dpStr("vix"), VectorAttribute: &wire.VectorAttributeDefinition{AttributeName: dpStr("emb")},
			Dimensions: cpPtr(int64(3)), DistanceFunction: "COSINE", Projection: &wire.Projection{ProjectionType: ProjectAll}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("v"), IndexName: dpStr("vix"),
		KeyConditionExpression: dpStr("pk = :p"), ExpressionAttributeValues: attr.Item{":p": dpS("x")}})
	dpWantErr(t, err, "ValidationException", "Query operation not supported on this index type.")
	_, err = e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("v"), IndexName: dpStr("vix")})
	tb, _ := e.lookupTable("v")
	if vx, ok := tb.VectorIndex("vix"); ok && vx.Ready() {
		dpWantErr(t, err, "ValidationException", "Scan operation not supported on this index type")
	} else {
		dpWantErr(t, err, "ValidationException", "Cannot read from backfilling global secondary index: vix")
	}
	// Other names still get the usual answer.
	_, err = e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("v"), IndexName: dpStr("nope")})
	dpWantErr(t, err, "ValidationException", "The table does not have the specified index: nope")
}

// Writes racing a backfill leave the index's ItemCount exact once the
// backfill ends (a write to an item not yet backfilled used to count the
// removal of an entry that did not exist).
func TestBackfillStatsExactUnderWrites(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	const n = 5000
	for i := 0; i < n; i += 25 {
		var reqs []wire.WriteRequest
		for j := i; j < i+25; j++ {
			reqs = append(reqs, wire.WriteRequest{PutRequest: &wire.PutRequest{Item: longItem(j, 0)}})
		}
		if _, err := e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"t": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := int64(1); ; v++ {
			select {
			case <-stop:
				return
			default:
			}
			i := int(v*7919) % n
			if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: longItem(i, v)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	addGSI(t, e, "t", "G", "g")
	waitBackfill(t, e, "t", "G", 30*time.Second)
	close(stop)
	<-done
	count := 0
	longScan(t, e, &wire.ScanInput{TableName: dpStr("t"), IndexName: dpStr("G")}, func(attr.Item) { count++ })
	if st := describeIndexStats(t, e, "t")["G"]; st[0] != int64(count) || count != n-n/10 {
		t.Fatalf("ItemCount %d, index scan %d, want %d", st[0], count, n-n/10)
	}
}
