package catalog

import (
	"bytes"

	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
)

// PurgeChunk is how many keys one purge transaction deletes, so that
// deleting a large table does not hold up other traffic.
const PurgeChunk = 512

// Purge removes every key of the given ranges of deleted table id, in
// chunks, then its statistics and purge marker (PurgeKey). It stops early
// when the engine closes (the marker makes the next Open resume it) and
// reports whether it finished.
func (c *Catalog) Purge(id uint64, ranges [][2][]byte) bool {
	for _, r := range ranges {
		if !c.PurgeRange(r[0], r[1]) {
			return false
		}
	}
	err := c.Commit(storage.CommitOptions{Sync: c.opts.Sync}, func(txn storage.Txn) error {
		if err := txn.Delete(StatsKey(id)); err != nil {
			return err
		}
		if err := txn.Delete(indexes.StatsKey(id)); err != nil {
			return err
		}
		return txn.Delete(PurgeKey(id))
	})
	return err == nil
}

// PurgeRange deletes every key of [lower, upper), PurgeChunk keys per
// transaction, as background work: false when Close or an error stopped
// it first.
func (c *Catalog) PurgeRange(lower, upper []byte) bool {
	for !c.closed() {
		n, err := c.PurgeSome(lower, upper)
		if err != nil {
			return false
		}
		if n < PurgeChunk {
			return true
		}
	}
	return false
}

// PurgeSome deletes the first PurgeChunk keys of [lower, upper) in one
// transaction and returns how many it deleted.
func (c *Catalog) PurgeSome(lower, upper []byte) (int, error) {
	n := 0
	err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error {
		it, err := txn.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
		if err != nil {
			return err
		}
		var keys [][]byte
		for len(keys) < PurgeChunk && it.Next() {
			keys = append(keys, bytes.Clone(it.Key()))
		}
		err = it.Err()
		it.Close()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	return n, err
}
