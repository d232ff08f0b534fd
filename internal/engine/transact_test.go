package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/storage/memory"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// TestTransactConflict holds an item as an in-flight transaction would and
// checks DynamoDB's answers: a single-item write fails with
// TransactionConflictException, another transaction and a TransactGetItems
// are cancelled with reason TransactionConflict, GetItem succeeds.
func TestTransactConflict(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	dpPut(t, e, "t", attr.Item{"pk": dpS("a")})
	held := e.mustKey(t, "t", attr.Item{"pk": dpS("a")})
	if _, ok := e.tx.Hold([][]byte{held}); !ok {
		t.Fatal("acquire failed")
	}
	_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("a")}})
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Type != "TransactionConflictException" || de.Message != "Transaction is ongoing for the item" {
		t.Fatalf("PutItem: %v", err)
	}
	_, err = e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Put: &wire.Put{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("b")}}},
		{Delete: &wire.Delete{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("a")}}},
	}})
	if !errors.As(err, &de) || de.Message != "Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]" {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	_, err = e.TransactGetItems(dpCtx, &wire.TransactGetItemsInput{TransactItems: []wire.TransactGetItem{
		{Get: &wire.Get{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("a")}}},
	}})
	if !errors.As(err, &de) || de.Type != "TransactionCanceledException" {
		t.Fatalf("TransactGetItems: %v", err)
	}
	if dpGet(t, e, "t", attr.Item{"pk": dpS("a")}) == nil {
		t.Fatal("GetItem should succeed")
	}
	if dpGet(t, e, "t", attr.Item{"pk": dpS("b")}) != nil {
		t.Fatal("cancelled transaction applied")
	}
	e.tx.Release([][]byte{held})
	dpPut(t, e, "t", attr.Item{"pk": dpS("a"), "v": dpN("1")})
}

// TestTransactTokenExpiry checks the 10-minute idempotency window on the
// injected clock.
func TestTransactTokenExpiry(t *testing.T) {
	clk := &txClock{now: time.Unix(1_700_000_000, 0)}
	e, err := Open(memory.New(), Config{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	dpTable(t, e, "t", "pk:S")
	in := func(by string) *wire.TransactWriteItemsInput {
		return &wire.TransactWriteItemsInput{ClientRequestToken: dpStr("tok"), TransactItems: []wire.TransactWriteItem{
			{Update: &wire.Update{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("c")},
				UpdateExpression: dpStr("ADD n :by"), ExpressionAttributeValues: attr.Item{":by": dpN(by)}}}}}
	}
	for i := 0; i < 2; i++ {
		if _, err := e.TransactWriteItems(dpCtx, in("1")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.TransactWriteItems(dpCtx, in("2")); !errors.Is(err, ddberr.IdempotentParameterMismatch("")) {
		t.Fatalf("mismatch: %v", err)
	}
	clk.now = clk.now.Add(10*time.Minute + time.Second)
	if _, err := e.TransactWriteItems(dpCtx, in("2")); err != nil {
		t.Fatal(err)
	}
	if n := dpGet(t, e, "t", attr.Item{"pk": dpS("c")})["n"].Str; n != "3" {
		t.Fatalf("n = %s, want 3", n)
	}
}

type txClock struct{ now time.Time }

func (c *txClock) Now() time.Time { return c.now }

func (e *Engine) mustKey(t *testing.T, table string, key attr.Item) []byte {
	t.Helper()
	tb, err := e.activeTable(&table)
	if err != nil {
		t.Fatal(err)
	}
	k, err := tb.validateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return tb.storageKey(k)
}

// TestTransactGetDuringWriterCommit checks the readers' side of the held
// set: a write transaction that is committing (its writes staged, one
// atomic batch on the way) does not cancel a TransactGetItems, which reads
// its snapshot; one still preparing cancels it only if it does not reach
// its commit within transact.ReadWait, and a reader waiting for it goes ahead as
// soon as it does.
func TestTransactGetDuringWriterCommit(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	dpPut(t, e, "t", attr.Item{"pk": dpS("a")})
	held := [][]byte{e.mustKey(t, "t", attr.Item{"pk": dpS("a")})}
	read := func() error {
		_, err := e.TransactGetItems(dpCtx, &wire.TransactGetItemsInput{TransactItems: []wire.TransactGetItem{
			{Get: &wire.Get{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("a")}}},
		}})
		return err
	}
	if _, ok := e.tx.Hold(held); !ok {
		t.Fatal("acquire failed")
	}
	defer e.tx.Release(held)

	start := time.Now()
	var de *ddberr.Error
	if err := read(); !errors.As(err, &de) || de.Type != "TransactionCanceledException" {
		t.Fatalf("TransactGetItems on an item of a preparing writer: %v", err)
	}
	if d := time.Since(start); d < transact.ReadWait {
		t.Fatalf("cancelled after %v, before waiting %v for the writer", d, transact.ReadWait)
	}

	e.tx.SetCommitting(held, true)
	if err := read(); err != nil {
		t.Fatalf("TransactGetItems on an item of a committing writer: %v", err)
	}
	// A single-item write still conflicts with the committing writer.
	if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("a")}}); !errors.As(err, &de) || de.Type != "TransactionConflictException" {
		t.Fatalf("PutItem on an item of a committing writer: %v", err)
	}

	// Another attempt: preparing again, and reaching its commit while the
	// reader waits. On a loaded machine the writer's goroutine may not run
	// within ReadWait, so the reader is given several tries, each waiting
	// for its writer before the next; with the wake-up broken all fail.
	var err error
	for try := 0; try < 20; try++ {
		e.tx.SetCommitting(held, false)
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(transact.ReadWait / 5)
			e.tx.SetCommitting(held, true)
		}()
		err = read()
		<-done
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("TransactGetItems while the writer reached its commit: %v", err)
	}
}
