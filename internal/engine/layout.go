package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Key-layout versions. The keys that begin with a partition hash (items,
// index entries and vector-index mappings, backups' item copies, and the
// item keys inside point-in-time entries) changed with it:
//
//	1: hash(pk) is 2 bytes, FNV-1a of the key encodings folded to 16 bits
//	2: hash(pk) is 8 bytes of DynamoDB's hash (package keyhash)
//
// A store records its version under metaLayoutKey (one byte). One without
// it is new (empty: it gets the current version) or was written in layout 1,
// which Open migrates before anything else reads the store
// (migrateLayout).
var (
	metaLayoutKey = []byte("mlayout")
	// metaLayoutStep holds the migration's step while one runs.
	metaLayoutStep = []byte("mlayoutstep")
	// layoutStaged is where the migration parks the old keys: layoutStaged
	// + old key → its value.
	layoutStaged = []byte("mrelayout/")
)

// layout is one key-layout version: its partition hash.
type layout struct {
	version byte
	hashLen int
	hash    func(vals ...attr.Value) []byte
}

var (
	layoutV1 = layout{1, 2, fnvHash}
	layoutV2 = layout{2, hashLen, func(vals ...attr.Value) []byte { h := partitionHash(vals...); return h[:] }}
	// layoutCurrent is the layout this code reads and writes.
	layoutCurrent = layoutV2
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

// Migration steps (metaLayoutStep's value).
const (
	stepStage   = 1 // moving every hashed key under layoutStaged
	stepRewrite = 2 // writing each staged key back in the new layout
)

// layoutBatchKeys and layoutBatchBytes bound one migration transaction
// (TiKV and PostgreSQL limit a transaction's size); a batch holds at least
// one key.
var (
	layoutBatchKeys  = 256
	layoutBatchBytes = 4 << 20
)

// layoutBatchHook, when set (tests), runs before each migration batch
// commits; an error stops the migration there, as a crash would.
var layoutBatchHook func(step byte) error

// hashedRanges are the key ranges whose keys or values hold a partition
// hash: items, index entries (with vector-index mappings), backups' item
// copies, point-in-time entries.
var hashedRanges = [][2][]byte{
	{{prefixItem}, {prefixItem + 1}},
	{{prefixIndex}, {prefixIndex + 1}},
	{{prefixBackupItem}, {prefixBackupItem + 1}},
	pitrRange(),
}

func pitrRange() [2][]byte {
	lower, upper := pitr.Range()
	return [2][]byte{lower, upper}
}

// migrateLayout brings store to the current layout. The migration is
// crash-safe without a cursor: first every hashed key moves, batch by
// batch, under layoutStaged (the hashed ranges then hold nothing), then
// every staged key is written back rewritten, batch by batch, each batch
// deleting what it wrote back. Each batch commits atomically, so after a
// crash each key is either still staged or written back, never both; the
// step key says which phase to resume, and once nothing is staged one
// last commit records the version and drops the step key.
func migrateLayout(store storage.Store) error {
	version, step, err := readLayout(store)
	if err != nil || version == layoutCurrent.version {
		return err
	}
	if version > layoutCurrent.version {
		return fmt.Errorf("engine: the store's key layout %d is newer than this Kura reads (%d): run a Kura at least as new as the one that last wrote it", version, layoutCurrent.version)
	}
	if version == 0 {
		empty, err := storeEmpty(store)
		if err != nil {
			return err
		}
		if empty {
			// Bookkeeping a start needs: it may use the disk's reserve.
			return commitStore(store, storage.CommitOptions{Sync: true, Reserve: true}, func(txn storage.Txn) error {
				return txn.Set(metaLayoutKey, []byte{layoutCurrent.version})
			})
		}
		version = layoutV1.version
	}
	slog.Info("migrating the store's key layout", "from", version, "to", layoutCurrent.version)
	n, err := relayout(store, layoutV1, layoutCurrent, step)
	if err != nil {
		return fmt.Errorf("engine: key layout migration (it resumes on the next start): %w", err)
	}
	slog.Info("key layout migrated", "keys", n)
	return nil
}

// readLayout returns the store's layout version (0: none recorded) and the
// step of a migration in progress (0: none).
func readLayout(store storage.Store) (version, step byte, err error) {
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
	if version, err = get(metaLayoutKey); err != nil {
		return 0, 0, err
	}
	step, err = get(metaLayoutStep)
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

// commitLayout commits one durable migration transaction.
func commitLayout(store storage.Store, f func(txn storage.Txn) error) error {
	return commitStore(store, storage.CommitOptions{Sync: true}, f)
}

// relayout rewrites every hashed key of store from layout from to layout
// to, resuming at step, and records to's version. It returns how many
// keys it wrote back.
func relayout(store storage.Store, from, to layout, step byte) (int, error) {
	if step == 0 {
		step = stepStage
		if err := commitLayout(store, func(txn storage.Txn) error { return txn.Set(metaLayoutStep, []byte{step}) }); err != nil {
			return 0, err
		}
	}
	if step == stepStage {
		for _, r := range hashedRanges {
			stage := func(k, v []byte) ([]byte, []byte, bool, error) {
				return append(bytes.Clone(layoutStaged), k...), v, true, nil
			}
			if _, err := moveRange(store, r[0], r[1], stepStage, stage); err != nil {
				return 0, err
			}
		}
		step = stepRewrite
		if err := commitLayout(store, func(txn storage.Txn) error { return txn.Set(metaLayoutStep, []byte{step}) }); err != nil {
			return 0, err
		}
	}
	if step != stepRewrite {
		return 0, fmt.Errorf("unknown step %d", step)
	}
	rw, err := newRekeyer(store, from, to)
	if err != nil {
		return 0, err
	}
	n, err := moveRange(store, layoutStaged, attr.PrefixEnd(layoutStaged), stepRewrite, func(k, v []byte) ([]byte, []byte, bool, error) {
		return rw.rewrite(k[len(layoutStaged):], v)
	})
	if err != nil {
		return n, err
	}
	if rw.dropped > 0 {
		slog.Info("key layout migration dropped keys of deleted tables, indexes and backups", "keys", rw.dropped)
	}
	return n, commitLayout(store, func(txn storage.Txn) error {
		if err := txn.Set(metaLayoutKey, []byte{to.version}); err != nil {
			return err
		}
		return txn.Delete(metaLayoutStep)
	})
}

// moveRange moves every key of [lower, upper) to where move says (keep
// false: drops it), in bounded batches, until the range is empty. It
// returns how many keys it kept. Each batch starts after the last key of
// the one before (not at lower, which would step over the deletions of
// every batch before); the keys before it are gone, so a restart that
// begins at lower again misses nothing.
func moveRange(store storage.Store, lower, upper []byte, step byte, move func(k, v []byte) ([]byte, []byte, bool, error)) (int, error) {
	kept := 0
	from := lower
	for {
		n, last, err := moveBatch(store, from, upper, step, move)
		kept += n
		if err != nil || last == nil {
			return kept, err
		}
		from = append(last, 0)
	}
}

// moveBatch is one transaction of moveRange, over the keys from lower on;
// last is the last key it moved (nil: it found none).
func moveBatch(store storage.Store, lower, upper []byte, step byte, move func(k, v []byte) ([]byte, []byte, bool, error)) (kept int, last []byte, err error) {
	txn, err := store.Begin()
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
	for len(keys) < layoutBatchKeys && (len(keys) == 0 || size < layoutBatchBytes) && it.Next() {
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
	if layoutBatchHook != nil {
		if err := layoutBatchHook(step); err != nil {
			return 0, nil, err
		}
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		return 0, nil, err
	}
	return kept, keys[len(keys)-1], nil
}

// rekeyer rewrites hashed keys from one layout to another, knowing the
// key schemas of the tables, indexes and backups from the catalog and the
// backup records (which the migration does not move).
type rekeyer struct {
	from, to layout
	tables   map[uint64]*keySchema // by table ID; system backups' sources too
	backups  map[uint64]*keySchema // a backup's source, by backup ID
	dropped  int
}

// keySchema is what the rewrite needs of a table record.
type keySchema struct {
	name    string
	hash    KeyAttr
	indexes map[uint32][]KeyAttr // GSIs' and LSIs' hash attributes by index ID
	vectors map[uint32]bool      // vector index IDs
}

func newKeySchema(rec *tableRecord) (*keySchema, error) {
	types := map[string]attr.Type{}
	for _, d := range rec.Desc.AttributeDefinitions {
		types[cpDeref(d.AttributeName)] = attrType(d.AttributeType)
	}
	h, _, err := parseKeySchema(rec.Desc.KeySchema, types)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", rec.Name, err)
	}
	ks := &keySchema{name: rec.Name, hash: h, indexes: map[uint32][]KeyAttr{}, vectors: map[uint32]bool{}}
	add := func(name string, schema []wire.KeySchemaElement) error {
		ix, err := buildIndex(rec, name, schema, nil, types)
		if err == nil {
			ks.indexes[ix.ID] = ix.Hashes
		}
		return err
	}
	for _, g := range rec.Desc.GlobalSecondaryIndexes {
		if err := add(cpDeref(g.IndexName), g.KeySchema); err != nil {
			return nil, err
		}
	}
	for _, l := range rec.Desc.LocalSecondaryIndexes {
		if err := add(cpDeref(l.IndexName), l.KeySchema); err != nil {
			return nil, err
		}
	}
	vxs, err := buildVectorIndexes(rec, types)
	if err != nil {
		return nil, err
	}
	for _, vx := range vxs {
		ks.vectors[vx.ID] = true
	}
	return ks, nil
}

func newRekeyer(store storage.Store, from, to layout) (*rekeyer, error) {
	rw := &rekeyer{from: from, to: to, tables: map[uint64]*keySchema{}, backups: map[uint64]*keySchema{}}
	snap, err := store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	err = eachRecord(snap, prefixCatalog, func(v []byte) error {
		var rec tableRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		ks, err := newKeySchema(&rec)
		rw.tables[rec.ID] = ks
		return err
	})
	if err != nil {
		return nil, err
	}
	err = eachRecord(snap, prefixBackup, func(v []byte) error {
		var b backupRecord
		if err := json.Unmarshal(v, &b); err != nil {
			return err
		}
		ks, err := newKeySchema(&b.Source)
		rw.backups[b.ID] = ks
		if _, ok := rw.tables[b.Source.ID]; !ok && b.System {
			rw.tables[b.Source.ID] = ks // a deleted table's items its system backup keeps
		}
		return err
	})
	return rw, err
}

// eachRecord hands f the value of every key beginning with prefix.
func eachRecord(snap storage.Snapshot, prefix byte, f func(v []byte) error) error {
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte{prefix}, Upper: []byte{prefix + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		if err := f(it.Value()); err != nil {
			return fmt.Errorf("record %q: %w", it.Key(), err)
		}
	}
	return it.Err()
}

// rewrite returns key k (with value v) in the new layout; keep is false for
// the keys of a table, index or backup that no longer exists (their purge
// was pending).
func (rw *rekeyer) rewrite(k, v []byte) (nk, nv []byte, keep bool, err error) {
	if len(k) < 9 {
		return nil, nil, false, fmt.Errorf("short key %x", k)
	}
	id := binary.BigEndian.Uint64(k[1:9])
	switch k[0] {
	case prefixItem:
		nk, err = rw.itemKey(rw.tables[id], k)
		return nk, v, nk != nil, err
	case prefixBackupItem:
		nk, err = rw.suffixed(rw.backups[id], k, 9)
		return nk, v, nk != nil, err
	case pitrRange()[0][0]:
		nv, err = rw.pitrValue(rw.tables[id], v)
		return k, nv, nv != nil, err
	case prefixIndex:
		return rw.indexKey(rw.tables[id], k, v)
	}
	return nil, nil, false, fmt.Errorf("unexpected key %x", k)
}

// itemKey rewrites a table item key (nil: the table is gone).
func (rw *rekeyer) itemKey(t *keySchema, k []byte) ([]byte, error) {
	return rw.suffixed(t, k, itemPrefixLen)
}

// suffixed rewrites a key whose bytes from at on are an item suffix:
// hash(pk) + key(pk) + key(sk). nil when t is nil (the owner is gone).
func (rw *rekeyer) suffixed(t *keySchema, k []byte, at int) ([]byte, error) {
	if t == nil {
		rw.dropped++
		return nil, nil
	}
	out, err := rw.rehash(k[:at], k[at:], []KeyAttr{t.hash})
	if err != nil {
		return nil, fmt.Errorf("key %x of table %s: %w", k, t.name, err)
	}
	return out, nil
}

// rehash is head + the partition hash of the values of attrs that follow
// the old hash in rest + the rest after the old hash.
func (rw *rekeyer) rehash(head, rest []byte, attrs []KeyAttr) ([]byte, error) {
	oldLen := rw.from.hashLen
	if len(rest) < oldLen {
		return nil, attr.ErrBadKey
	}
	body := rest[oldLen:]
	vals := make([]attr.Value, len(attrs))
	r := body
	for i, a := range attrs {
		var err error
		if vals[i], r, err = attr.DecodeKey(r, a.Type); err != nil {
			return nil, err
		}
	}
	if !bytes.Equal(rest[:oldLen], rw.from.hash(vals...)) {
		return nil, errors.New("the key's hash is not its layout's")
	}
	out := append(bytes.Clone(head), rw.to.hash(vals...)...)
	return append(out, body...), nil
}

// pitrValue rewrites the item key inside a point-in-time entry.
func (rw *rekeyer) pitrValue(t *keySchema, v []byte) ([]byte, error) {
	if t == nil {
		rw.dropped++
		return nil, nil
	}
	suffix, _, err := pitr.DecodeEntry(v)
	if err != nil {
		return nil, err
	}
	ns, err := rw.rehash(nil, suffix, []KeyAttr{t.hash})
	if err != nil {
		return nil, fmt.Errorf("point-in-time entry of table %s: %w", t.name, err)
	}
	return pitr.WithSuffix(v, ns)
}

// indexKey rewrites an index entry or a vector-index mapping, and keeps
// an item collection's size counter (package indexes) as it is.
func (rw *rekeyer) indexKey(t *keySchema, k, v []byte) ([]byte, []byte, bool, error) {
	if t == nil || len(k) < 13 {
		rw.dropped++
		return nil, nil, false, nil
	}
	id := binary.BigEndian.Uint32(k[9:13])
	if id == indexes.CollectionIndexID {
		return k, v, true, nil // item collection sizes: keyed by key(pk), no hash
	}
	if hashes, ok := t.indexes[id]; ok {
		nk, err := rw.rehash(k[:13], k[13:], hashes)
		if err != nil {
			return nil, nil, false, fmt.Errorf("entry %x of index %d of %s: %w", k, id, t.name, err)
		}
		return nk, v, true, nil
	}
	if !t.vectors[id] || len(k) < 14 {
		rw.dropped++
		return nil, nil, false, nil
	}
	switch k[13] {
	case vectors.KeyMap: // P 'k' itemKey → id
		nk, err := rw.itemKey(t, k[14:])
		return append(bytes.Clone(k[:14]), nk...), v, err == nil, err
	case vectors.KeyID: // P 'n' id → itemKey
		nv, err := rw.itemKey(t, v)
		return k, nv, err == nil, err
	}
	return k, v, true, nil
}
