package engine

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// conflictingStore makes every commit conflict until a deadline: a slow
// apply holding the occ watermark back looks like this to a writer.
type conflictingStore struct {
	storage.Store
	until atomic.Int64 // unix nanoseconds; commits before it conflict
}

func (s *conflictingStore) Begin() (storage.Txn, error) {
	t, err := s.Store.Begin()
	if err != nil {
		return nil, err
	}
	return &conflictingTxn{Txn: t, s: s}, nil
}

type conflictingTxn struct {
	storage.Txn
	s *conflictingStore
}

func (t *conflictingTxn) Commit(opts storage.CommitOptions) error {
	if time.Now().UnixNano() < t.s.until.Load() {
		t.Txn.Rollback()
		return storage.ErrConflict
	}
	return t.Txn.Commit(opts)
}

// A write that meets conflicts for tens of milliseconds (here 60 ms) waits
// them out instead of using up its retries at once and answering
// InternalServerError; so do batch writes and transactions.
func TestWritesWaitOutAConflictWindow(t *testing.T) {
	store := &conflictingStore{Store: memory.New()}
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	dpTable(t, e, "t", "pk:S")
	window := func() { store.until.Store(time.Now().Add(60 * time.Millisecond).UnixNano()) }

	window()
	if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("a")}}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	window()
	if _, err := e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{
		"t": {{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("b")}}}}}}); err != nil {
		t.Fatalf("BatchWriteItem: %v", err)
	}
	window()
	if _, err := e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Put: &wire.Put{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("c")}}}}}); err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
}
