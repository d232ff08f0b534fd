package partiqlexec

import (
	"context"
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/wire"
)

// These tests drive the package through its Core: a table definition as
// data, and a core that records the wire inputs statements are lowered to
// and answers what each test sets.

var ctx = context.Background()

type testTable struct {
	def     change.Table
	indexes map[string]Index
}

func (t testTable) Def() *change.Table { return &t.def }

func (t testTable) Index(name string) (Index, bool) {
	ix, ok := t.indexes[name]
	return ix, ok
}

func (t testTable) CheckScanIndex(string) error { return nil }

type recordingCore struct {
	tables map[string]testTable
	calls  []any // the inputs, in order
	err    error // what every item operation answers
	items  []attr.Item
	lek    attr.Item
}

func (c *recordingCore) Table(name *string) (Table, error) {
	t, ok := c.tables[wire.Deref(name)]
	if !ok {
		return nil, ddberr.TableNotFound()
	}
	return t, nil
}

func (c *recordingCore) PutItem(_ context.Context, in *wire.PutItemInput) (*wire.PutItemOutput, error) {
	c.calls = append(c.calls, in)
	return &wire.PutItemOutput{ConsumedCapacity: &wire.ConsumedCapacity{TableName: in.TableName, CapacityUnits: wire.Ptr(1.0)}}, c.err
}

func (c *recordingCore) UpdateItem(_ context.Context, in *wire.UpdateItemInput) (*wire.UpdateItemOutput, error) {
	c.calls = append(c.calls, in)
	return &wire.UpdateItemOutput{}, c.err
}

func (c *recordingCore) DeleteItem(_ context.Context, in *wire.DeleteItemInput) (*wire.DeleteItemOutput, error) {
	c.calls = append(c.calls, in)
	return &wire.DeleteItemOutput{}, c.err
}

func (c *recordingCore) Query(_ context.Context, in *wire.QueryInput) (*wire.QueryOutput, error) {
	c.calls = append(c.calls, in)
	return &wire.QueryOutput{Items: c.items, LastEvaluatedKey: c.lek}, c.err
}

func (c *recordingCore) Scan(_ context.Context, in *wire.ScanInput) (*wire.ScanOutput, error) {
	c.calls = append(c.calls, in)
	return &wire.ScanOutput{Items: c.items, LastEvaluatedKey: c.lek}, c.err
}

func (c *recordingCore) Get(_ context.Context, g *wire.Get, _ bool) (attr.Item, float64, error) {
	c.calls = append(c.calls, g)
	if len(c.items) == 0 {
		return nil, 0.5, c.err
	}
	return c.items[0], 0.5, c.err
}

func (c *recordingCore) TransactWrite(_ context.Context, items []wire.TransactWriteItem, _ *string, _ any, _ string) ([]wire.ConsumedCapacity, error) {
	c.calls = append(c.calls, items)
	return nil, c.err
}

func (c *recordingCore) TransactGet(_ context.Context, items []wire.TransactGetItem, _ string) ([]attr.Item, []wire.ConsumedCapacity, error) {
	c.calls = append(c.calls, items)
	return c.items, nil, c.err
}

func newCore() *recordingCore {
	gsi := Index{Name: "byV", Hashes: []change.KeyAttr{{Name: "v", Type: attr.S}},
		Projects: func(n string) bool { return n == "pk" || n == "sk" || n == "v" }}
	return &recordingCore{tables: map[string]testTable{
		"t": {def: change.Table{Name: "t", Hash: change.KeyAttr{Name: "pk", Type: attr.S}, Range: &change.KeyAttr{Name: "sk", Type: attr.N}},
			indexes: map[string]Index{"byV": gsi}},
	}}
}

func str(s string) *string { return &s }

func s(v string) attr.Value { return attr.Value{T: attr.S, Str: v} }

func exec(t *testing.T, c Core, stmt string, params ...attr.Value) (*wire.ExecuteStatementOutput, error) {
	t.Helper()
	return ExecuteStatement(ctx, c, &wire.ExecuteStatementInput{Statement: str(stmt), Parameters: params})
}

func wantErr(t *testing.T, err error, typ, msg string) {
	t.Helper()
	de := ddberr.As(err)
	if err == nil || de.Type != typ || de.Message != msg {
		t.Fatalf("error %v, want %s: %s", err, typ, msg)
	}
}

func TestSelectLowersToQueryOrScan(t *testing.T) {
	c := newCore()
	if _, err := exec(t, c, `SELECT a.b FROM "t" WHERE pk = ? AND sk > 3 AND x = 'y' ORDER BY sk DESC`, s("k")); err != nil {
		t.Fatal(err)
	}
	q := c.calls[0].(*wire.QueryInput)
	if *q.KeyConditionExpression != "#n2 = :v0 AND #n3 > :v1" || *q.FilterExpression != "#n4 = :v2" || *q.ScanIndexForward {
		t.Fatalf("query %q filter %q forward %v", *q.KeyConditionExpression, *q.FilterExpression, *q.ScanIndexForward)
	}
	if q.ExpressionAttributeNames["#n2"] != "pk" || q.ExpressionAttributeValues[":v0"].Str != "k" || *q.ProjectionExpression != "#n0.#n1" {
		t.Fatalf("names %v values %v projection %q", q.ExpressionAttributeNames, q.ExpressionAttributeValues, *q.ProjectionExpression)
	}
	if _, err := exec(t, c, `SELECT * FROM "t"."byV" WHERE sk = 1`); err != nil {
		t.Fatal(err)
	}
	sc := c.calls[1].(*wire.ScanInput)
	if wire.Deref(sc.IndexName) != "byV" || *sc.FilterExpression != "#n0 = :v0" {
		t.Fatalf("scan %+v", sc)
	}
}

func TestSelectShapesRowsAndBindsNextToken(t *testing.T) {
	c := newCore()
	c.items = []attr.Item{{"a": {T: attr.M, Map: map[string]attr.Value{"b": s("x")}}}}
	c.lek = attr.Item{"pk": s("k"), "sk": {T: attr.N, Str: "1"}}
	out, err := exec(t, c, `SELECT a.b FROM "t" WHERE pk = 'k'`)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 || out.Items[0]["b"].Str != "x" || out.NextToken == nil {
		t.Fatalf("out %+v", out)
	}
	// The token carries the page's LastEvaluatedKey to the same statement...
	if _, err := ExecuteStatement(ctx, c, &wire.ExecuteStatementInput{Statement: str(`SELECT a.b FROM "t" WHERE pk = 'k'`), NextToken: out.NextToken}); err != nil {
		t.Fatal(err)
	}
	if got := c.calls[1].(*wire.QueryInput).ExclusiveStartKey; got["sk"].Str != "1" {
		t.Fatalf("ExclusiveStartKey %v", got)
	}
	// ...and no other.
	_, err = ExecuteStatement(ctx, c, &wire.ExecuteStatementInput{Statement: str(`SELECT * FROM "t" WHERE pk = 'k'`), NextToken: out.NextToken})
	wantErr(t, err, "ValidationException", "NextToken does not match request")
}

func TestWritesLower(t *testing.T) {
	c := newCore()
	if _, err := exec(t, c, `UPDATE "t" SET a = 1 REMOVE b WHERE pk = 'k' AND sk = 2 AND c = 'd'`); err != nil {
		t.Fatal(err)
	}
	u := c.calls[0].(*wire.UpdateItemInput)
	if *u.UpdateExpression != "SET #n0 = :v0 REMOVE #n1 " || *u.ConditionExpression != "attribute_exists(#n2) AND #n3 = :v1" {
		t.Fatalf("update %q condition %q", *u.UpdateExpression, *u.ConditionExpression)
	}
	if u.Key["pk"].Str != "k" || u.Key["sk"].Str != "2" {
		t.Fatalf("key %v", u.Key)
	}
	if _, err := exec(t, c, `DELETE FROM "t" WHERE pk = 'k' AND sk = 2 RETURNING ALL OLD *`); err != nil {
		t.Fatal(err)
	}
	if d := c.calls[1].(*wire.DeleteItemInput); d.ReturnValues != "ALL_OLD" || d.ConditionExpression != nil {
		t.Fatalf("delete %+v", d)
	}
	_, err := exec(t, c, `DELETE FROM "t" WHERE pk = 'k'`)
	wantErr(t, err, "ValidationException", msgPQIncompleteKey)
	_, err = exec(t, c, `UPDATE "t"."byV" SET a = 1 WHERE pk = 'k' AND sk = 2`)
	wantErr(t, err, "ValidationException", "This operation is not supported on an index")
	if len(c.calls) != 2 {
		t.Fatalf("refused statements reached the core: %d calls", len(c.calls))
	}
}

func TestInsertOfAnExistingKeyIsDuplicateItem(t *testing.T) {
	c := newCore()
	c.err = ddberr.ConditionalCheckFailed()
	_, err := exec(t, c, `INSERT INTO "t" VALUE {'pk': 'k', 'sk': 1}`)
	wantErr(t, err, "DuplicateItemException", ddberr.DuplicateItem().Message)
	p := c.calls[0].(*wire.PutItemInput)
	if *p.ConditionExpression != "attribute_not_exists(#n0)" || p.Item["sk"].Str != "1" {
		t.Fatalf("put %+v", p)
	}
}

func TestTransactionLowersOntoOneTransactWrite(t *testing.T) {
	c := newCore()
	msg := "The conditional request failed"
	c.err = transact.Canceled([]wire.CancellationReason{{Code: transact.ReasonNone}, {Code: transact.ReasonCondFailed, Message: &msg}})
	_, err := ExecuteTransaction(ctx, c, &wire.ExecuteTransactionInput{TransactStatements: []wire.ParameterizedStatement{
		{Statement: str(`UPDATE "t" SET a = 1 WHERE pk = 'k' AND sk = 1`)},
		{Statement: str(`INSERT INTO "t" VALUE {'pk': 'k', 'sk': 2}`)},
	}})
	wantErr(t, err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [None, DuplicateItem]")
	items := c.calls[0].([]wire.TransactWriteItem)
	if len(c.calls) != 1 || items[0].Update == nil || items[1].Put == nil {
		t.Fatalf("calls %+v", c.calls)
	}
	_, err = ExecuteTransaction(ctx, c, &wire.ExecuteTransactionInput{TransactStatements: []wire.ParameterizedStatement{
		{Statement: str(`SELECT * FROM "t" WHERE pk = 'k' AND sk = 1`)},
		{Statement: str(`DELETE FROM "t" WHERE pk = 'k' AND sk = 1`)},
	}})
	wantErr(t, err, "ValidationException", "Transaction must contain either all reads or all writes")
}

func TestBatchNamesTheTableOfItsRefusals(t *testing.T) {
	c := newCore()
	c.err = ddberr.Throttling("Throughput exceeds the current capacity for one or more global secondary indexes.")
	out, err := BatchExecuteStatement(ctx, c, &wire.BatchExecuteStatementInput{Statements: []wire.BatchStatementRequest{
		{Statement: str(`SELECT * FROM "t" WHERE pk = 'k' AND sk = 1`)},
		{Statement: str(`SELECT * FROM "t" WHERE pk = 'k'`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := out.Responses[0], out.Responses[1]
	if r0.Error == nil || r0.Error.Code != "ThrottlingError" || wire.Deref(r0.TableName) != "t" {
		t.Fatalf("throttled response %+v", r0)
	}
	if r1.Error == nil || r1.Error.Code != "ValidationError" || r1.TableName != nil {
		t.Fatalf("refused response %+v %+v", r1, r1.Error)
	}
	// A failure that is no DynamoDB error (the store's) names no table.
	c.err = errors.New("disk on fire")
	out, _ = BatchExecuteStatement(ctx, c, &wire.BatchExecuteStatementInput{Statements: []wire.BatchStatementRequest{
		{Statement: str(`SELECT * FROM "t" WHERE pk = 'k' AND sk = 1`)},
	}})
	if out.Responses[0].Error == nil || out.Responses[0].TableName != nil {
		t.Fatalf("store failure %+v", out.Responses[0])
	}
}

func TestBatchCapacityPerTable(t *testing.T) {
	c := newCore()
	c.tables["u"] = testTable{def: change.Table{Name: "u", Hash: change.KeyAttr{Name: "pk", Type: attr.S}}}
	ins := func(table, k string) wire.BatchStatementRequest {
		return wire.BatchStatementRequest{Statement: str(`INSERT INTO "` + table + `" VALUE {'pk': '` + k + `', 'sk': 1}`)}
	}
	out, err := BatchExecuteStatement(ctx, c, &wire.BatchExecuteStatementInput{ReturnConsumedCapacity: "INDEXES",
		Statements: []wire.BatchStatementRequest{ins("u", "a"), ins("t", "b"), ins("u", "c")}})
	if err != nil {
		t.Fatal(err)
	}
	cc := out.ConsumedCapacity
	if len(cc) != 2 || *cc[0].TableName != "u" || *cc[0].CapacityUnits != 2 || *cc[0].Table.CapacityUnits != 2 || *cc[1].TableName != "t" || *cc[1].CapacityUnits != 1 {
		t.Fatalf("consumed %+v", cc)
	}
	out, _ = BatchExecuteStatement(ctx, c, &wire.BatchExecuteStatementInput{Statements: []wire.BatchStatementRequest{ins("t", "d")}})
	if out.ConsumedCapacity != nil {
		t.Fatalf("consumed %+v without ReturnConsumedCapacity", out.ConsumedCapacity)
	}
}
