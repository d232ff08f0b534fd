package layout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/keyhash"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/storage"
)

// Item keys: PrefixItem + tableID(8) + hash(pk) + key(pk) + key(sk) (the
// current layout: ItemKey, keys.go).
const (
	PrefixItem    = 'i'
	ItemPrefixLen = 9 // PrefixItem + tableID(8)
)

// A store records its version under VersionKey (one byte). One without it
// is new (empty: it gets the current version) or was written in layout 1,
// which Migrate rewrites.
var (
	VersionKey = []byte("mlayout")
	// StepKey holds the migration's step while one runs.
	StepKey = []byte("mlayoutstep")
	// Staged is where the migration parks the old keys: Staged + old key
	// → its value.
	Staged = []byte("mrelayout/")
)

// Layout is one key-layout version: its partition hash.
type Layout struct {
	Version byte
	HashLen int
	Hash    func(vals ...attr.Value) []byte
}

// The key-layout versions. The keys that begin with a partition hash
// (items, index entries and vector-index mappings, backups' item copies,
// and the item keys inside point-in-time entries) changed with it:
//
//	1: hash(pk) is 2 bytes, FNV-1a of the key encodings folded to 16 bits
//	2: hash(pk) is 8 bytes of DynamoDB's hash (package keyhash)
var (
	V1 = Layout{1, 2, fnvHash}
	V2 = Layout{2, keyhash.Len, func(vals ...attr.Value) []byte { h := keyhash.Sum(vals...); return h[:] }}
	// Current is the layout this code reads and writes.
	Current = V2
)

// fnvHash is layout 1's partition hash.
func fnvHash(vals ...attr.Value) []byte {
	h := fnv.New32a()
	for _, v := range vals {
		h.Write(attr.AppendKey(nil, v))
	}
	s := h.Sum32()
	return binary.BigEndian.AppendUint16(nil, uint16(s>>16)^uint16(s))
}

// Migration steps (StepKey's value).
const (
	stepStage   = 1 // moving every hashed key under Staged
	stepRewrite = 2 // writing each staged key back in the new layout
)

// Options are what a migration needs besides the store.
type Options struct {
	// Schemas reads the key schemas of the store's tables and backups
	// (their records are not hashed: the migration does not move them).
	Schemas func(snap storage.Snapshot) (*Schemas, error)
	// BatchKeys and BatchBytes bound one migration transaction (TiKV and
	// PostgreSQL limit a transaction's size; 0: 256 keys, 4 MB); a batch
	// holds at least one key.
	BatchKeys, BatchBytes int
	// BatchHook, when set (tests), runs before each batch commits; an
	// error stops the migration there, as a crash would.
	BatchHook func(step byte) error
}

// HashedRanges are the key ranges whose keys or values hold a partition
// hash: items, index entries (with vector-index mappings), backups' item
// copies, point-in-time entries.
var HashedRanges = [][2][]byte{
	{{PrefixItem}, {PrefixItem + 1}},
	{{indexes.KeyPrefix}, {indexes.KeyPrefix + 1}},
	{{backup.PrefixItem}, {backup.PrefixItem + 1}},
	pitrRange(),
}

func pitrRange() [2][]byte {
	lower, upper := pitr.Range()
	return [2][]byte{lower, upper}
}

// Migrate brings store to the current layout. The migration is crash-safe
// without a cursor: first every hashed key moves, batch by batch, under
// Staged (the hashed ranges then hold nothing), then every staged key is
// written back rewritten, batch by batch, each batch deleting what it
// wrote back. Each batch commits atomically, so after a crash each key is
// either still staged or written back, never both; the step key says
// which phase to resume, and once nothing is staged one last commit
// records the version and drops the step key.
func Migrate(store storage.Store, opts Options) error {
	version, step, err := Read(store)
	if err != nil || version == Current.Version {
		return err
	}
	if version > Current.Version {
		return fmt.Errorf("engine: the store's key layout %d is newer than this Kura reads (%d): run a Kura at least as new as the one that last wrote it", version, Current.Version)
	}
	if version == 0 {
		empty, err := storeEmpty(store)
		if err != nil {
			return err
		}
		if empty {
			// Bookkeeping a start needs: it may use the disk's reserve.
			return storage.Update(store, storage.CommitOptions{Sync: true, Reserve: true}, func(txn storage.Txn) error {
				return txn.Set(VersionKey, []byte{Current.Version})
			})
		}
	}
	slog.Info("migrating the store's key layout", "from", max(version, V1.Version), "to", Current.Version)
	n, err := Relayout(store, V1, Current, step, opts)
	if err != nil {
		return fmt.Errorf("engine: key layout migration (it resumes on the next start): %w", err)
	}
	slog.Info("key layout migrated", "keys", n)
	return nil
}

// Read returns the store's layout version (0: none recorded) and the step
// of a migration in progress (0: none).
func Read(store storage.Store) (version, step byte, err error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return 0, 0, err
	}
	defer snap.Close()
	get := func(k []byte) (byte, error) {
		v, err := snap.Get(k)
		if errors.Is(err, storage.ErrNotFound) {
			return 0, nil
		}
		if err == nil && len(v) != 1 {
			err = fmt.Errorf("engine: bad %s record %x", k, v)
		}
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
	if version, err = get(VersionKey); err != nil {
		return 0, 0, err
	}
	step, err = get(StepKey)
	return version, step, err
}

// storeEmpty reports whether store holds no key at all.
func storeEmpty(store storage.Store) (bool, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return false, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{})
	if err != nil {
		return false, err
	}
	defer it.Close()
	found := it.Next()
	return !found, it.Err()
}

// Commit commits one durable migration transaction.
func Commit(store storage.Store, f func(txn storage.Txn) error) error {
	return storage.Update(store, storage.CommitOptions{Sync: true}, f)
}

// setStep records the migration's step.
func setStep(store storage.Store, step byte) error {
	return Commit(store, func(txn storage.Txn) error { return txn.Set(StepKey, []byte{step}) })
}

// Relayout rewrites every hashed key of store from layout from to layout
// to, resuming at step (0: from the start), and records to's version. It
// returns how many keys it wrote back.
func Relayout(store storage.Store, from, to Layout, step byte, opts Options) (int, error) {
	m := &mover{store: store, opts: opts}
	if m.opts.BatchKeys == 0 {
		m.opts.BatchKeys = 256
	}
	if m.opts.BatchBytes == 0 {
		m.opts.BatchBytes = 4 << 20
	}
	if step == 0 {
		step = stepStage
		if err := setStep(store, step); err != nil {
			return 0, err
		}
	}
	if step == stepStage {
		for _, r := range HashedRanges {
			stage := func(k, v []byte) ([]byte, []byte, bool, error) {
				return append(bytes.Clone(Staged), k...), v, true, nil
			}
			if _, err := m.moveRange(r[0], r[1], stepStage, stage); err != nil {
				return 0, err
			}
		}
		step = stepRewrite
		if err := setStep(store, step); err != nil {
			return 0, err
		}
	}
	if step != stepRewrite {
		return 0, fmt.Errorf("unknown step %d", step)
	}
	rw, err := newRekeyer(store, from, to, opts.Schemas)
	if err != nil {
		return 0, err
	}
	n, err := m.moveRange(Staged, attr.PrefixEnd(Staged), stepRewrite, func(k, v []byte) ([]byte, []byte, bool, error) {
		return rw.rewrite(k[len(Staged):], v)
	})
	if err != nil {
		return n, err
	}
	if rw.dropped > 0 {
		slog.Info("key layout migration dropped keys of deleted tables, indexes and backups", "keys", rw.dropped)
	}
	return n, Commit(store, func(txn storage.Txn) error {
		if err := txn.Set(VersionKey, []byte{to.Version}); err != nil {
			return err
		}
		return txn.Delete(StepKey)
	})
}

// mover moves keys in bounded batches.
type mover struct {
	store storage.Store
	opts  Options
}

// moveRange moves every key of [lower, upper) to where move says (keep
// false: drops it), in bounded batches, until the range is empty. It
// returns how many keys it kept. Each batch starts after the last key of
// the one before (not at lower, which would step over the deletions of
// every batch before); the keys before it are gone, so a restart that
// begins at lower again misses nothing.
func (m *mover) moveRange(lower, upper []byte, step byte, move func(k, v []byte) ([]byte, []byte, bool, error)) (int, error) {
	kept := 0
	from := lower
	for {
		n, last, err := m.moveBatch(from, upper, step, move)
		kept += n
		if err != nil || last == nil {
			return kept, err
		}
		from = append(last, 0)
	}
}

// moveBatch is one transaction of moveRange, over the keys from lower on;
// last is the last key it moved (nil: it found none).
func (m *mover) moveBatch(lower, upper []byte, step byte, move func(k, v []byte) ([]byte, []byte, bool, error)) (kept int, last []byte, err error) {
	txn, err := m.store.Begin()
	if err != nil {
		return 0, nil, err
	}
	defer txn.Rollback()
	it, err := txn.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
	if err != nil {
		return 0, nil, err
	}
	var keys, vals [][]byte
	size := 0
	for len(keys) < m.opts.BatchKeys && (len(keys) == 0 || size < m.opts.BatchBytes) && it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
		vals = append(vals, bytes.Clone(it.Value()))
		size += len(it.Key()) + len(it.Value())
	}
	err = it.Err()
	it.Close()
	if err != nil || len(keys) == 0 {
		return 0, nil, err
	}
	for i, k := range keys {
		nk, nv, keep, err := move(k, vals[i])
		if err != nil {
			return 0, nil, err
		}
		if err := txn.Delete(k); err != nil {
			return 0, nil, err
		}
		if keep {
			if err := txn.Set(nk, nv); err != nil {
				return 0, nil, err
			}
			kept++
		}
	}
	if m.opts.BatchHook != nil {
		if err := m.opts.BatchHook(step); err != nil {
			return 0, nil, err
		}
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		return 0, nil, err
	}
	return kept, keys[len(keys)-1], nil
}
