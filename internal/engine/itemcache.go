package engine

import (
	"hash/maphash"
	"strings"
	"sync"
)

// itemCache keeps the stored form of recently written and read items, by
// storage key, so that the old-item read of a write (PutItem must know the
// item it replaces for conditions, ReturnValues, capacity, indexes, streams
// and statistics) and GetItem skip the storage engine's lookup, which on
// Pebble walks the memtable skiplists and the sstable levels.
//
// Coherence rests on the stripe locks (lockFor): every writer of an item
// holds the item's stripe lock from its old-item read to after its commit.
// A writer drops the key when it stages its write (stageWrite) and stores
// the new stored form only after the commit succeeded (afterCommit), so a
// failed or ambiguous commit leaves the key uncached. A reader fills the
// cache only while holding the stripe lock (TryLock, never waiting), so it
// cannot put back a value a writer has just replaced. Table IDs are never
// reused, so entries of a dropped table are never read again; DeleteTable
// drops them anyway to free the memory.
//
// The cache assumes this process is the only writer of its store; a store
// shared by several servers (a distributed engine) must run without it
// (Config.ItemCacheBytes 0).
type itemCache struct {
	seed   maphash.Seed
	budget int // bytes per shard
	shards [itemCacheShards]itemCacheShard
}

const itemCacheShards = 64

type itemCacheShard struct {
	mu    sync.Mutex
	m     map[string][]byte
	bytes int
	_     [40]byte // keep shards on separate cache lines
}

// itemCacheOverhead approximates the per-entry cost of the map slot and
// slice and string headers, so that many small items are budgeted fairly.
const itemCacheOverhead = 64

// newItemCache returns a cache of about budget bytes, or nil (no cache)
// when budget is not positive. A nil *itemCache is a valid, empty cache.
func newItemCache(budget int64) *itemCache {
	if budget <= 0 {
		return nil
	}
	c := &itemCache{seed: maphash.MakeSeed(), budget: int(budget / itemCacheShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]byte)
	}
	return c
}

func (c *itemCache) shard(key []byte) *itemCacheShard {
	return &c.shards[maphash.Bytes(c.seed, key)%itemCacheShards]
}

// get returns the stored form of key's item; ok is false on a miss. The
// returned slice must not be modified.
func (c *itemCache) get(key []byte) (stored []byte, ok bool) {
	if c == nil {
		return nil, false
	}
	s := c.shard(key)
	s.mu.Lock()
	stored, ok = s.m[string(key)]
	s.mu.Unlock()
	return stored, ok
}

// put records stored (not copied, never modified afterwards) as key's
// committed item, evicting arbitrary entries to stay within the budget.
// The caller holds key's stripe lock.
func (c *itemCache) put(key, stored []byte) {
	if c == nil {
		return
	}
	cost := len(key) + len(stored) + itemCacheOverhead
	if cost > c.budget/4 {
		c.drop(key) // too big to be worth the room
		return
	}
	s := c.shard(key)
	s.mu.Lock()
	if old, ok := s.m[string(key)]; ok {
		// Out of the map first, so that eviction cannot count it twice.
		s.bytes -= len(key) + len(old) + itemCacheOverhead
		delete(s.m, string(key))
	}
	if s.bytes+cost > c.budget {
		for k, v := range s.m { // Go randomises the starting point
			s.bytes -= len(k) + len(v) + itemCacheOverhead
			delete(s.m, k)
			if s.bytes+cost <= c.budget {
				break
			}
		}
	}
	s.m[string(key)] = stored
	s.bytes += cost
	s.mu.Unlock()
}

// drop forgets key. The caller holds key's stripe lock.
func (c *itemCache) drop(key []byte) {
	if c == nil {
		return
	}
	s := c.shard(key)
	s.mu.Lock()
	if old, ok := s.m[string(key)]; ok {
		s.bytes -= len(key) + len(old) + itemCacheOverhead
		delete(s.m, string(key))
	}
	s.mu.Unlock()
}

// dropPrefix forgets every key that starts with prefix (a dropped table).
func (c *itemCache) dropPrefix(prefix []byte) {
	if c == nil {
		return
	}
	p := string(prefix)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, v := range s.m {
			if strings.HasPrefix(k, p) {
				s.bytes -= len(k) + len(v) + itemCacheOverhead
				delete(s.m, k)
			}
		}
		s.mu.Unlock()
	}
}
