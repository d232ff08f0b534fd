package engine

import (
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
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

func TestItemCacheOverwriteDropAndPrefix(t *testing.T) {
	c := newItemCache(1 << 20)
	c.put([]byte("a1"), []byte("x"))
	c.put([]byte("a1"), []byte("yy"))
	if v, ok := c.get([]byte("a1")); !ok || string(v) != "yy" {
		t.Fatalf("get = %q, %v", v, ok)
	}
	c.put([]byte("a2"), []byte("z"))
	c.put([]byte("b1"), []byte("z"))
	c.drop([]byte("a2"))
	if _, ok := c.get([]byte("a2")); ok {
		t.Fatal("dropped key still cached")
	}
	c.dropPrefix([]byte("a"))
	if _, ok := c.get([]byte("a1")); ok {
		t.Fatal("prefix not dropped")
	}
	if _, ok := c.get([]byte("b1")); !ok {
		t.Fatal("other prefix dropped")
	}
	c.put([]byte("big"), make([]byte, c.budget)) // larger than a quarter shard: not kept
	if _, ok := c.get([]byte("big")); ok {
		t.Fatal("oversized item cached")
	}
	var nilCache *itemCache // disabled cache
	nilCache.put([]byte("k"), []byte("v"))
	if _, ok := nilCache.get([]byte("k")); ok {
		t.Fatal("nil cache returned an item")
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
