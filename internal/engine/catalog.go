package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/insights"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Control-plane keys besides the catalog (doc.go): everything under the
// "m" prefix is engine metadata.
//
//	"m" "next-table-id"        → next table ID (uint64 BE)
//	"m" "clean"                → present after a clean Close (stats are valid)
//	"m" "stats/" tableID(8)    → ItemCount(8) TableSizeBytes(8) at last Close
//	"m" "istats/" tableID(8)   → the table's index statistics at last Close (package indexes)
//	"m" "purge/" tableID(8)    → a deleted table whose items are still being removed
var (
	metaNextIDKey = []byte("mnext-table-id")
	metaCleanKey  = []byte("mclean")
)

func metaStatsKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("mstats/"), id)
}

func metaPurgeKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("mpurge/"), id)
}

// indexRangePrefix is the common prefix of every index entry of a table.
func indexRangePrefix(tableID uint64) []byte {
	b := make([]byte, 9, 16)
	b[0] = prefixIndex
	binary.BigEndian.PutUint64(b[1:], tableID)
	return b
}

// itemSizeFromStored returns the DynamoDB size of one stored item value; it
// is used only by the statistics recount after an unclean shutdown. The
// data plane replaces it (in an init function next to its item codec) with
// the exact computation; the default approximates with the encoded length.
var itemSizeFromStored = func(value []byte) int64 { return int64(len(value)) }

// recordVersion is the catalog record format version.
const recordVersion = 1

// tableRecord is what the catalog stores for one table (JSON).
type tableRecord struct {
	Version int `json:"v"`
	// Gen counts the record's versions: putRecord stores each one with a
	// higher Gen, and metaGenKey(ID) the current one (catalog_nodes.go).
	Gen  uint64 `json:"gen,omitempty"`
	ID   uint64 `json:"id"`
	Name string `json:"name"`
	// Desc holds the static description: TableStatus and the index
	// statuses mirror Status; ItemCount/TableSizeBytes are not stored.
	Desc        wire.TableDescription `json:"desc"`
	Status      string                `json:"status"`
	ReadyAt     time.Time             `json:"readyAt,omitzero"`  // CREATING/UPDATING → ACTIVE
	DeleteAt    time.Time             `json:"deleteAt,omitzero"` // DELETING → gone
	BillingMode string                `json:"billingMode"`
	Tags        []wire.Tag            `json:"tags,omitempty"`
	PITR        pitrRecord            `json:"pitr"`
	Indexes     []indexRecord         `json:"indexes,omitempty"`
	NextIndexID uint32                `json:"nextIndexId"`
	TTL         *ttlRecord            `json:"ttl,omitempty"` // package ttl
	// ClassChanges are the times of the table class changes of the last
	// 30 days (table_throughput.go).
	ClassChanges []time.Time `json:"classChanges,omitempty"`
	// UpdateKind is the kind of update an UPDATING table is going through
	// (tables.Admit); cleared when it settles.
	UpdateKind string `json:"updateKind,omitempty"`
	// RestoreSource is the ID of the table a point-in-time restore into
	// this table reads, while it runs (pitr_restore.go).
	RestoreSource uint64 `json:"restoreSource,omitempty"`
	// Insights is the Contributor Insights state of the table ("") and
	// of its GSIs (by name) once configured (package insights).
	Insights map[string]*insights.Record `json:"insights,omitempty"`
	// Policies are the resource-based policies attached to the table
	// ("") and to its stream (by ARN) (package policies).
	Policies policies.Set `json:"policies,omitempty"`
}

type indexRecord struct {
	Name string `json:"name"`
	ID   uint32 `json:"id"`
}

type pitrRecord struct {
	Enabled              bool      `json:"enabled"`
	RecoveryPeriodInDays int32     `json:"days,omitempty"`
	EnabledAt            time.Time `json:"enabledAt,omitzero"`
}

// clone deep-copies the record through JSON (records are small and cloned
// only on control-plane changes).
func (r *tableRecord) clone() *tableRecord {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	var c tableRecord
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c
}

// setStatus sets the table status and mirrors it into the description.
func (r *tableRecord) setStatus(s string) {
	r.Status = s
	r.Desc.TableStatus = s
}

// settle turns an elapsed CREATING/UPDATING into ACTIVE.
func (r *tableRecord) settle(now time.Time) {
	if r.Status != StatusCreating && r.Status != StatusUpdating {
		return
	}
	if r.ReadyAt.IsZero() || now.Before(r.ReadyAt) {
		return
	}
	r.setStatus(StatusActive)
	r.ReadyAt = time.Time{}
	r.UpdateKind = ""
	for i := range r.Desc.GlobalSecondaryIndexes {
		g := &r.Desc.GlobalSecondaryIndexes[i]
		if g.IndexStatus != StatusDeleting && !cpDeref(g.Backfilling) {
			g.IndexStatus = StatusActive
		}
	}
	// GSIs deleted by UpdateTable disappear once the update settles, and
	// with them the definitions of key attributes no other key uses.
	before := len(r.Desc.GlobalSecondaryIndexes)
	kept := r.Desc.GlobalSecondaryIndexes[:0]
	for _, g := range r.Desc.GlobalSecondaryIndexes {
		if g.IndexStatus != StatusDeleting {
			kept = append(kept, g)
		} else {
			delete(r.Insights, cpDeref(g.IndexName)) // its rules go with it
		}
	}
	r.Desc.GlobalSecondaryIndexes = kept
	if len(kept) == 0 {
		r.Desc.GlobalSecondaryIndexes = nil
	}
	if len(kept) < before {
		pruneVectorDefinitions(&r.Desc)
	}
	vectors.Settle(&r.Desc)
}

func (r *tableRecord) indexID(name string) (uint32, bool) {
	for _, ix := range r.Indexes {
		if ix.Name == name {
			return ix.ID, true
		}
	}
	return 0, false
}

// addIndexID allocates an index ID for a new index name. A deleted index
// of the same name loses its record: the name now means the new index, and
// the old ID's entries (possibly still being purged) must never be taken
// for the new index's.
func (r *tableRecord) addIndexID(name string) uint32 {
	r.Indexes = slices.DeleteFunc(r.Indexes, func(ix indexRecord) bool { return ix.Name == name })
	r.NextIndexID++
	r.Indexes = append(r.Indexes, indexRecord{Name: name, ID: r.NextIndexID})
	return r.NextIndexID
}

// buildTable derives the in-memory Table from a record.
func (e *Engine) buildTable(rec *tableRecord) (*Table, error) {
	types := map[string]attr.Type{}
	for _, d := range rec.Desc.AttributeDefinitions {
		types[cpDeref(d.AttributeName)] = attrType(d.AttributeType)
	}
	t := &Table{
		Table:       change.Table{Name: rec.Name, ID: rec.ID},
		Desc:        rec.Desc,
		Status:      rec.Status,
		BillingMode: rec.BillingMode,
		rec:         rec,
		stats:       e.statsFor(rec.ID),
	}
	t.checked.Store(e.clock.Now().UnixNano())
	h, r, err := parseKeySchema(rec.Desc.KeySchema, types)
	if err != nil {
		return nil, fmt.Errorf("engine: table %s: %w", rec.Name, err)
	}
	t.Hash, t.Range = h, r
	t.Stream = streamSpec(&rec.Desc)
	for _, g := range rec.Desc.GlobalSecondaryIndexes {
		ix, err := buildIndex(rec, cpDeref(g.IndexName), g.KeySchema, g.Projection, types)
		if err != nil {
			return nil, err
		}
		ix.Status, ix.Backfilling = g.IndexStatus, cpDeref(g.Backfilling)
		t.GSIs = append(t.GSIs, ix)
	}
	for _, l := range rec.Desc.LocalSecondaryIndexes {
		ix, err := buildIndex(rec, cpDeref(l.IndexName), l.KeySchema, l.Projection, types)
		if err != nil {
			return nil, err
		}
		ix.Local = true
		ix.Status = StatusActive
		t.LSIs = append(t.LSIs, ix)
	}
	if t.Vectors, err = buildVectorIndexes(rec, types); err != nil {
		return nil, err
	}
	t.stats.live.Store(indexes.NewLive(t.LSIs, t.GSIs))
	e.pitr.SetRecording(rec.ID, rec.PITR.Enabled)
	return t, nil
}

func buildIndex(rec *tableRecord, name string, ks []wire.KeySchemaElement, p *wire.Projection, types map[string]attr.Type) (*Index, error) {
	id, ok := rec.indexID(name)
	if !ok {
		return nil, fmt.Errorf("engine: table %s: index %s has no ID", rec.Name, name)
	}
	ix := &Index{Name: name, ID: id}
	for _, k := range ks {
		kn := cpDeref(k.AttributeName)
		ka := KeyAttr{Name: kn, Type: types[kn]}
		if ka.Type == attr.TypeNone {
			return nil, fmt.Errorf("engine: table %s index %s: key attribute %s has no definition", rec.Name, name, kn)
		}
		if k.KeyType == "HASH" {
			ix.Hashes = append(ix.Hashes, ka)
		} else {
			ix.Ranges = append(ix.Ranges, ka)
		}
	}
	if len(ix.Hashes) == 0 {
		return nil, fmt.Errorf("engine: table %s index %s: no HASH key", rec.Name, name)
	}
	ix.Hash = ix.Hashes[0]
	if len(ix.Ranges) > 0 {
		ix.Range = &ix.Ranges[0]
	}
	if p != nil {
		ix.Projection = p.ProjectionType
		if p.ProjectionType == ProjectInclude {
			ix.NonKey = append([]string(nil), p.NonKeyAttributes...)
		}
	}
	return ix, nil
}

func parseKeySchema(ks []wire.KeySchemaElement, types map[string]attr.Type) (KeyAttr, *KeyAttr, error) {
	var h KeyAttr
	var r *KeyAttr
	for _, k := range ks {
		name := cpDeref(k.AttributeName)
		ka := KeyAttr{Name: name, Type: types[name]}
		if ka.Type == attr.TypeNone {
			return h, nil, fmt.Errorf("key attribute %s has no definition", name)
		}
		if k.KeyType == "HASH" {
			h = ka
		} else {
			r = &ka
		}
	}
	return h, r, nil
}

func attrType(s string) attr.Type {
	switch s {
	case "S":
		return attr.S
	case "N":
		return attr.N
	case "B":
		return attr.B
	}
	return attr.TypeNone
}

// commit runs f in a storage transaction and commits it.
func (e *Engine) commit(sync bool, f func(storage.Txn) error) error {
	return e.commitWith(storage.CommitOptions{Sync: sync}, f)
}

// commitWith is commit with every commit option.
func (e *Engine) commitWith(opts storage.CommitOptions, f func(storage.Txn) error) error {
	return commitStore(e.store, opts, f)
}

// commitStore runs f in one transaction of store and commits it.
func commitStore(store storage.Store, opts storage.CommitOptions, f func(storage.Txn) error) error {
	txn, err := store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := f(txn); err != nil {
		return err
	}
	return txn.Commit(opts)
}

// putRecord writes rec into txn as the next generation of its table's
// record (catalog_nodes.go): errStaleCatalog when the stored generation is
// not the one rec was built on (another node changed the table since).
func putRecord(txn storage.Txn, rec *tableRecord) error {
	gen, ok, err := storedGen(txn, rec.ID)
	if err != nil {
		return err
	}
	if ok && gen != rec.Gen {
		return errStaleCatalog
	}
	rec.Version = recordVersion
	rec.Gen++
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := txn.Set(metaGenKey(rec.ID), binary.BigEndian.AppendUint64(nil, rec.Gen)); err != nil {
		return err
	}
	return txn.Set(catalogKey(rec.Name), b)
}

// deleteRecord removes the named table's record and generation from txn.
func deleteRecord(txn storage.Txn, name string, id uint64) error {
	if err := txn.Delete(metaGenKey(id)); err != nil {
		return err
	}
	return txn.Delete(catalogKey(name))
}

// installTable swaps in the Table built from rec (after its commit).
func (e *Engine) installTable(rec *tableRecord) (*Table, error) {
	t, err := e.buildTable(rec)
	if err != nil {
		return nil, err
	}
	e.install(t)
	return t, nil
}

// install swaps in t, built from a committed record.
func (e *Engine) install(t *Table) {
	e.mu.Lock()
	e.tables[t.Name] = t
	e.mu.Unlock()
	e.observeStreams(t)
}

// saveRecord persists rec (callers hold e.ddl) and installs it. The Table
// is built first, so a record that cannot be loaded is never stored.
func (e *Engine) saveRecord(rec *tableRecord) (*Table, error) {
	t, err := e.buildTable(rec)
	if err != nil {
		return nil, err
	}
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return putRecord(txn, rec) }); err != nil {
		return nil, err
	}
	e.install(t)
	return t, nil
}

// loadCatalog reads every table record, the ID counter and the statistics,
// and resumes unfinished deletions.
func (e *Engine) loadCatalog() error {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	if v, err := snap.Get(metaNextIDKey); err == nil {
		if len(v) != 8 {
			return errors.New("engine: corrupt table ID counter")
		}
		e.nextID = binary.BigEndian.Uint64(v)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte{prefixCatalog}, Upper: []byte{prefixCatalog + 1}})
	if err != nil {
		return err
	}
	now := e.clock.Now()
	var recs []*tableRecord
	for it.Next() {
		var rec tableRecord
		if err := json.Unmarshal(it.Value(), &rec); err != nil {
			it.Close()
			return fmt.Errorf("engine: catalog record %q: %w", it.Key()[1:], err)
		}
		rec.settle(now)
		recs = append(recs, &rec)
	}
	if err := it.Err(); err != nil {
		it.Close()
		return err
	}
	it.Close()
	for _, rec := range recs {
		t, err := e.buildTable(rec)
		if err != nil {
			return err
		}
		e.tables[rec.Name] = t
		if rec.ID >= e.nextID {
			e.nextID = rec.ID + 1
		}
	}

	clean := false
	if _, err := snap.Get(metaCleanKey); err == nil {
		clean = true
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	restored := map[indexes.Ref]bool{}
	if clean {
		for _, rec := range recs {
			v, err := snap.Get(metaStatsKey(rec.ID))
			if err == nil && len(v) == 16 {
				s := e.statsFor(rec.ID)
				s.items.Store(int64(binary.BigEndian.Uint64(v)))
				s.bytes.Store(int64(binary.BigEndian.Uint64(v[8:])))
			}
			if err := e.loadIndexStats(snap, rec.ID, restored); err != nil {
				return err
			}
		}
		// From now on the stored statistics are stale until the next Close.
		// No fsync of its own: commits become durable in order
		// (storage.Txn.Commit), so a crash that keeps any later write keeps
		// this delete too, and one that loses it lost every later write
		// (the statistics still hold). It may use the store's reserve, so
		// that a restart on a nearly full disk serves reads.
		if err := e.commitWith(storage.CommitOptions{Reserve: true}, func(txn storage.Txn) error { return txn.Delete(metaCleanKey) }); err != nil {
			return err
		}
	} else if len(recs) > 0 {
		ids := make([]uint64, 0, len(recs))
		for _, rec := range recs {
			if rec.Status != StatusDeleting {
				ids = append(ids, rec.ID)
			}
		}
		e.goBackground(func() { e.recount(ids) })
	}

	// Resume purges of deleted tables and pending DELETING removals.
	pit, err := snap.NewIterator(storage.IterOptions{Lower: []byte("mpurge/"), Upper: []byte("mpurge0")})
	if err != nil {
		return err
	}
	type pending struct {
		id        uint64
		keepItems bool
	}
	var purges []pending
	for pit.Next() {
		if k := pit.Key(); len(k) == len("mpurge/")+8 {
			purges = append(purges, pending{binary.BigEndian.Uint64(k[len("mpurge/"):]), bytes.Equal(pit.Value(), purgeKeepItems)})
		}
	}
	err = pit.Err()
	pit.Close()
	if err != nil {
		return err
	}
	for _, p := range purges {
		if p.id >= e.nextID {
			e.nextID = p.id + 1
		}
		e.goBackground(func() { e.purge(p.id, p.keepItems) })
	}
	for _, rec := range recs {
		if rec.Status == StatusDeleting {
			e.scheduleRemoval(rec.Name, rec.ID, rec.DeleteAt)
		}
	}
	return e.resumeIndexWork(restored)
}

// allocTableID reserves a new table ID inside txn (callers hold e.ddl).
// The counter is read with Get, so that nodes sharing the store never
// allocate one ID twice (the second commit conflicts).
func (e *Engine) allocTableID(txn storage.Txn) (uint64, error) {
	id := e.nextID
	v, err := txn.Get(metaNextIDKey)
	switch {
	case err == nil && len(v) == 8:
		id = max(id, binary.BigEndian.Uint64(v))
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		return 0, err
	}
	if err := txn.Set(metaNextIDKey, binary.BigEndian.AppendUint64(nil, id+1)); err != nil {
		return 0, err
	}
	return id, nil
}

// commitNewID allocates the next ID of the counter tables and backups
// share and commits what put writes under it; a conflict (another node
// took the ID meanwhile) runs put again with the next one. Callers hold
// e.ddl.
func (e *Engine) commitNewID(put func(txn storage.Txn, id uint64) error) (uint64, error) {
	var id uint64
	var err error
	for attempt := 0; attempt <= maxConflictRetries; attempt++ {
		err = e.commit(e.cfg.Sync, func(txn storage.Txn) error {
			var err error
			if id, err = e.allocTableID(txn); err != nil {
				return err
			}
			return put(txn, id)
		})
		if !errors.Is(err, storage.ErrConflict) {
			break
		}
		conflictPause(attempt)
	}
	if err != nil {
		return 0, err
	}
	e.nextID = id + 1
	return id, nil
}

// scheduleRemoval drops a DELETING table's catalog entry at deleteAt.
// Callers hold e.ddl or are in Open.
func (e *Engine) scheduleRemoval(name string, id uint64, at time.Time) {
	e.goBackground(func() {
		if !e.sleep(at.Sub(e.clock.Now())) {
			return
		}
		e.ddl.Lock()
		defer e.ddl.Unlock()
		e.mu.RLock()
		cur, ok := e.tables[name]
		e.mu.RUnlock()
		if !ok || cur.ID != id {
			return
		}
		if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return deleteRecord(txn, name, id) }); err != nil {
			return
		}
		e.mu.Lock()
		if cur, ok := e.tables[name]; ok && cur.ID == id {
			delete(e.tables, name)
		}
		e.mu.Unlock()
	})
}

// purgeChunk is how many keys one purge transaction deletes, so that
// deleting a large table does not hold up other traffic.
const purgeChunk = 512

// purgeKeepItems is the value of a purge marker whose table's items a
// system backup keeps (backup_system.go).
var purgeKeepItems = []byte{1}

// purge removes every item and index entry of a deleted table, in chunks,
// then its statistics and purge marker; keepItems leaves the items to the
// system backup that holds them. It stops early on Close (the marker makes
// the next Open resume it).
func (e *Engine) purge(id uint64, keepItems bool) {
	ranges := [][2][]byte{
		{indexRangePrefix(id), indexRangePrefix(id + 1)},
		{pitr.Prefix(id), pitr.Prefix(id + 1)},
	}
	if !keepItems {
		ranges = append(ranges, [2][]byte{itemPrefix(id), itemPrefix(id + 1)})
	}
	for _, r := range ranges {
		if !e.purgeUntilClose(r[0], r[1]) {
			return
		}
	}
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error {
		if err := txn.Delete(metaStatsKey(id)); err != nil {
			return err
		}
		if err := txn.Delete(indexes.StatsKey(id)); err != nil {
			return err
		}
		return txn.Delete(metaPurgeKey(id))
	}); err != nil {
		return
	}
	e.statsMu.Lock()
	delete(e.stats, id)
	e.statsMu.Unlock()
	e.quota.Buckets().Forget(id)
}

// purgeUntilClose deletes every key of [lower, upper), purgeChunk keys
// per transaction, as background work: false when Close or an error
// stopped it first (purgeRange is the same without the stop, for Close's
// own work).
func (e *Engine) purgeUntilClose(lower, upper []byte) bool {
	for {
		select {
		case <-e.closing:
			return false
		default:
		}
		n, err := e.purgeSome(lower, upper)
		if err != nil {
			return false
		}
		if n < purgeChunk {
			return true
		}
	}
}

func (e *Engine) purgeSome(lower, upper []byte) (int, error) {
	n := 0
	err := e.commit(false, func(txn storage.Txn) error {
		it, err := txn.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
		if err != nil {
			return err
		}
		var keys [][]byte
		for len(keys) < purgeChunk && it.Next() {
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

// recount recomputes ItemCount/TableSizeBytes of the given tables from
// storage after an unclean shutdown. Writes that commit while it runs are
// kept: the deltas recorded before the snapshot are replaced by the count.
func (e *Engine) recount(ids []uint64) {
	for _, id := range ids {
		s := e.statsFor(id)
		i0, b0 := s.items.Load(), s.bytes.Load()
		snap, err := e.openSnapshot()
		if err != nil {
			return
		}
		var items, size int64
		done, err := snap.Items(id, func(_, stored []byte) (bool, error) {
			items++
			size += itemSizeFromStored(stored)
			if items%4096 == 0 {
				select {
				case <-e.closing:
					return false, nil
				default:
				}
			}
			return true, nil
		})
		snap.Close()
		if err != nil || !done { // the next start counts again
			e.statsDirty.Store(true)
			return
		}
		s.items.Add(items - i0)
		s.bytes.Add(size - b0)
	}
}

// saveStats persists every table's statistics and the clean marker.
func (e *Engine) saveStats() error {
	if e.statsDirty.Load() || e.cfg.Cluster {
		// In cluster mode this node's figures may lag other nodes'
		// writes: the next start recounts.
		return nil
	}
	e.mu.RLock()
	list := make([]*Table, 0, len(e.tables))
	for _, t := range e.tables {
		list = append(list, t)
	}
	e.mu.RUnlock()
	// A few bytes per table: the store's reserve may take them, so that a
	// shutdown on a nearly full disk still saves the statistics.
	return e.commitWith(storage.CommitOptions{Sync: true, Reserve: true}, func(txn storage.Txn) error {
		for _, t := range list {
			s := e.statsFor(t.ID)
			v := binary.BigEndian.AppendUint64(nil, uint64(s.items.Load()))
			v = binary.BigEndian.AppendUint64(v, uint64(s.bytes.Load()))
			if err := txn.Set(metaStatsKey(t.ID), v); err != nil {
				return err
			}
			if err := txn.Set(indexes.StatsKey(t.ID), t.stats.indexes.Encode(t.liveIndexes())); err != nil {
				return err
			}
		}
		return txn.Set(metaCleanKey, []byte{1})
	})
}
