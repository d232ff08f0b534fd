package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

func TestItemCacheBudget(t *testing.T) {
	c := newItemCache(64 * 4096) // 4 KB per shard
	val := make([]byte, 200)
	for i := 0; i < 5000; i++ {
		c.put([]byte(fmt.Sprintf("key-%d", i)), val)
	}
	total, entries := 0, 0
	for i := range c.shards {
		s := &c.shards[i]
		if s.bytes > c.budget {
			t.Fatalf("shard %d holds %d bytes, budget %d", i, s.bytes, c.budget)
		}
		sum := 0
		for k, v := range s.m {
			sum += len(k) + len(v) + itemCacheOverhead
		}
		if sum != s.bytes {
			t.Fatalf("shard %d accounts %d bytes, holds %d", i, s.bytes, sum)
		}
		total += s.bytes
		entries += len(s.m)
	}
	if entries == 0 || total == 0 {
		t.Fatal("cache kept nothing")
	}
	// The newest entry is always kept.
	if _, ok := c.get([]byte("key-4999")); !ok {
		t.Fatal("newest entry evicted")
	}
}

// TestItemCacheOverwriteInFullShard overwrites a key of a full shard with a
// bigger value, so eviction runs while the key is cached: the accounting
// must stay exact (the old entry must not be counted out twice).
func TestItemCacheOverwriteInFullShard(t *testing.T) {
	c := newItemCache(64 * 1024) // 1 KB per shard, at most 256 B per entry
	a := []byte("a")
	s := c.shard(a)
	var others [][]byte // four more keys of a's shard
	for i := 0; len(others) < 4; i++ {
		if k := []byte(fmt.Sprint("b", i)); c.shard(k) == s {
			others = append(others, k)
		}
	}
	for i := 0; i < 200; i++ {
		for _, k := range others {
			c.put(k, make([]byte, 200-len(k)-itemCacheOverhead)) // 4 × 200 B
		}
		c.put(a, make([]byte, 100))      // 165 B: fits
		c.put(a, make([]byte, 185-i%10)) // ~250 B: eviction needed
		sum := 0
		for k, v := range s.m {
			sum += len(k) + len(v) + itemCacheOverhead
		}
		if sum != s.bytes || s.bytes > c.budget {
			t.Fatalf("round %d: shard accounts %d bytes, holds %d (budget %d)", i, s.bytes, sum, c.budget)
		}
		if _, ok := c.get(a); !ok {
			t.Fatalf("round %d: the entry just put was evicted", i)
		}
	}
}

// TestItemCacheFollowsWrites checks the engine keeps the cache equal to the
// stored item through puts, failed conditions, updates and deletes, and that
// GetItem fills it only when the item's stripe lock is free.
func TestItemCacheFollowsWrites(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "c", "pk:S")
	tbl, _ := e.activeTable(dpStr("c"))
	key := tbl.storageKey(primaryKey{pk: dpS("k")})
	cached := func() attr.Item {
		t.Helper()
		b, ok := e.items.get(key)
		if !ok {
			return nil
		}
		it, err := attr.DecodeItem(b)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	stored := func() attr.Item {
		t.Helper()
		b, err := e.readStored(key)
		if err != nil {
			t.Fatal(err)
		}
		it, err := attr.DecodeItem(b)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	dpPut(t, e, "c", attr.Item{"pk": dpS("k"), "v": dpN("1")})
	if got := cached(); got == nil || !attr.Equal(got["v"], dpN("1")) {
		t.Fatalf("after put, cache = %v", got)
	}
	_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"),
		Item:                attr.Item{"pk": dpS("k"), "v": dpN("2")},
		ConditionExpression: dpStr("attribute_not_exists(pk)")})
	if err == nil {
		t.Fatal("condition should fail")
	}
	if got := cached(); got == nil || !attr.Equal(got["v"], dpN("1")) {
		t.Fatalf("after failed condition, cache = %v", got)
	}
	_, err = e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("c"),
		Key: attr.Item{"pk": dpS("k")}, UpdateExpression: dpStr("SET v = v + :one"),
		ExpressionAttributeValues: attr.Item{":one": dpN("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cached(), stored(); got == nil || !attr.Equal(got["v"], dpN("2")) || !attr.Equal(want["v"], dpN("2")) {
		t.Fatalf("after update, cache = %v, store = %v", got, want)
	}
	if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("k")}}); err != nil {
		t.Fatal(err)
	}
	if got := cached(); got != nil {
		t.Fatalf("after delete, cache = %v", got)
	}
	// GetItem of an uncached item fills the cache, unless a writer holds
	// the stripe lock.
	dpPut(t, e, "c", attr.Item{"pk": dpS("k"), "v": dpN("3")})
	e.items.drop(key)
	mu := e.lockFor(key)
	mu.Lock()
	if it, err := e.getItem(tbl, primaryKey{pk: dpS("k")}); err != nil || it == nil {
		t.Fatalf("getItem = %v, %v", it, err)
	}
	mu.Unlock()
	if got := cached(); got != nil {
		t.Fatal("GetItem filled the cache while the stripe lock was held")
	}
	if _, err := e.getItem(tbl, primaryKey{pk: dpS("k")}); err != nil {
		t.Fatal(err)
	}
	if got := cached(); got == nil || !attr.Equal(got["v"], dpN("3")) {
		t.Fatalf("GetItem did not fill the cache: %v", got)
	}
}

// TestItemCacheConcurrentWriters races every kind of writer (PutItem,
// UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems) and GetItem
// over a few hot keys with a cache small enough to evict, then checks that
// every cached entry equals the stored item and that ADD counters lost no
// increment. Run it with -race.
func TestItemCacheConcurrentWriters(t *testing.T) {
	e, err := Open(memory.New(), Config{ItemCacheBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dpTable(t, e, "c", "pk:S")
	const keys, workers, rounds = 6, 8, 150
	key := func(i int) string { return fmt.Sprintf("k%d", i%keys) }
	var adds [keys]atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				i := (w*rounds + r) % keys
				var err error
				switch (w + r) % 6 {
				case 0:
					_, err = e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("c"),
						Key: attr.Item{"pk": dpS(key(i))}, UpdateExpression: dpStr("ADD n :one SET padding = :p"),
						ExpressionAttributeValues: attr.Item{":one": dpN("1"), ":p": dpS(strings.Repeat("x", r%300))}})
					if err == nil {
						adds[i].Add(1)
					}
				case 1:
					_, err = e.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
						{Update: &wire.Update{TableName: dpStr("c"), Key: attr.Item{"pk": dpS(key(i))},
							UpdateExpression: dpStr("ADD n :one"), ExpressionAttributeValues: attr.Item{":one": dpN("1")}}},
						{Update: &wire.Update{TableName: dpStr("c"), Key: attr.Item{"pk": dpS(key(i + 1))},
							UpdateExpression: dpStr("ADD n :one"), ExpressionAttributeValues: attr.Item{":one": dpN("1")}}},
					}})
					if err == nil {
						adds[i].Add(1)
						adds[(i+1)%keys].Add(1)
					}
				case 2:
					_, err = e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"c": {
						{PutRequest: &wire.PutRequest{Item: attr.Item{"pk": dpS("b" + key(i)), "v": dpN(fmt.Sprint(r))}}},
						{DeleteRequest: &wire.DeleteRequest{Key: attr.Item{"pk": dpS("b" + key(i+1))}}},
					}}})
				case 3:
					_, err = e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("c"),
						Item: attr.Item{"pk": dpS("p" + key(i)), "v": dpN(fmt.Sprint(r))}})
				case 4:
					_, err = e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS("p" + key(i))}})
				default:
					for _, k := range []string{key(i), "b" + key(i), "p" + key(i)} {
						if _, err = e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("c"), Key: attr.Item{"pk": dpS(k)}}); err != nil {
							break
						}
					}
				}
				var de *ddberr.Error
				if errors.As(err, &de) && (de.Type == "TransactionConflictException" || de.Type == "TransactionCanceledException") {
					err = nil // a transaction met another one: allowed, not counted
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tbl, _ := e.activeTable(dpStr("c"))
	for i := 0; i < keys; i++ {
		for _, k := range []string{key(i), "b" + key(i), "p" + key(i)} {
			skey := tbl.storageKey(primaryKey{pk: dpS(k)})
			stored, err := e.readStored(skey)
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				t.Fatal(err)
			}
			if cached, ok := e.items.get(skey); ok && string(cached) != string(stored) {
				t.Fatalf("%s: cached item differs from the stored one", k)
			}
		}
		it, err := e.getItem(tbl, primaryKey{pk: dpS(key(i))})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(adds[i].Load()); !attr.Equal(it["n"], dpN(want)) {
			t.Fatalf("%s: n = %v, want %s", key(i), it["n"], want)
		}
	}
}
