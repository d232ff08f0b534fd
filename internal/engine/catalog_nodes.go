package engine

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
)

// Catalog coherence between the nodes of a cluster (Config.Cluster; the
// "Several nodes" paragraph of doc.go).
//
// Every stored table record carries a generation (tableRecord.Gen), and
// "mtgen/" + tableID(8) holds the generation of the table's current record
// (uint64 BE). putRecord, the one writer of records, reads that key with
// Get in its transaction, refuses a record built on an older generation
// and writes both with the generation one higher. A write of an item in
// cluster mode reads the key with Get in its own transaction too
// (checkCatalog), so a definition change committed by another node
// either shows there (the generation differs from the cached table's: the
// node reloads the table and the write retries with it) or commits after
// the item write's snapshot (the Get makes the item write conflict and
// retry). No item write commits under a definition older than the one
// current at its commit: a GSI added through node A is maintained by
// writes through node B from the moment its CREATING record commits.

// catalogRecheck bounds how long a node in cluster mode serves a
// data-plane read with a cached table definition it has not compared with
// the store's generation (lookupTable): a read that names an index another
// node created a moment ago may be answered from the older definition for
// this long. Writes are always checked (checkCatalog).
const catalogRecheck = time.Second

// errStaleCatalog reports a table definition changed by another node since
// this one cached it. It is a storage conflict, so the write paths retry
// it, with the reloaded definition (currentTable).
var errStaleCatalog = fmt.Errorf("%w: the table's definition was changed by another node", storage.ErrConflict)

func metaGenKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("mtgen/"), id)
}

// storedGen reads the generation of table id's current record: 0 and
// false when the key is missing (a table stored before generations were
// kept, a new table, or a table whose record is gone).
func storedGen(r storage.Reader, id uint64) (uint64, bool, error) {
	v, err := r.Get(metaGenKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if len(v) != 8 {
		return 0, false, fmt.Errorf("engine: corrupt table generation of table %d", id)
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// checkCatalog is the item write's check of t against the store, inside
// txn (cluster mode only): errStaleCatalog, after reloading the table,
// when another node changed or removed its definition.
func (e *Engine) checkCatalog(txn storage.Txn, t *Table) error {
	if !e.cfg.Cluster {
		return nil
	}
	gen, _, err := storedGen(txn, t.ID)
	if err != nil {
		return err
	}
	if gen == t.rec.Gen {
		return nil
	}
	if _, _, err := e.reloadTable(t.Name); err != nil {
		return err
	}
	return errStaleCatalog
}

// refreshed is t for the retry of a write that failed with err: its
// reloaded version when err is errStaleCatalog (currentTable), else t.
func (e *Engine) refreshed(err error, t *Table) (*Table, error) {
	if !errors.Is(err, errStaleCatalog) {
		return t, nil
	}
	return e.currentTable(t)
}

// currentTable is the installed version of t's table for a retry after
// errStaleCatalog: the table as the last reload left it, or
// ResourceNotFoundException when it is gone (or another table of the same
// name replaced it).
func (e *Engine) currentTable(t *Table) (*Table, error) {
	cur, ok := e.lookupTable(t.Name)
	if !ok || cur.ID != t.ID || !cur.Active() {
		return nil, ddberr.TableNotFound()
	}
	return cur, nil
}

// reloadTable reads the named table's record from the store and installs
// it (or forgets the table when it has none): the table as the store has
// it now, and whether it exists.
func (e *Engine) reloadTable(name string) (*Table, bool, error) {
	name = tableNameOf(name)
	var b []byte
	var err error
	if e.point != nil {
		b, err = e.point.Get(catalogKey(name))
	} else {
		b, err = readOnce(e.store, catalogKey(name))
	}
	if errors.Is(err, storage.ErrNotFound) {
		e.forget(name)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var rec tableRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, false, fmt.Errorf("engine: catalog record %q: %w", name, err)
	}
	rec.settle(e.clock.Now())
	t, err := e.buildTable(&rec)
	if err != nil {
		return nil, false, err
	}
	return e.installNewer(t), true, nil
}

// readOnce reads one key through a snapshot of store.
func readOnce(store storage.Store, key []byte) ([]byte, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	return snap.Get(key)
}

// installNewer installs t unless the installed version of the same table
// is of a later generation (a concurrent reload got there first), and
// returns the installed one.
func (e *Engine) installNewer(t *Table) *Table {
	e.mu.Lock()
	cur, ok := e.tables[t.Name]
	if ok && cur.ID == t.ID && cur.rec.Gen > t.rec.Gen {
		e.mu.Unlock()
		return cur
	}
	e.tables[t.Name] = t
	e.mu.Unlock()
	e.observeStreams(t)
	return t
}

// forget drops a table another node removed from the catalog.
func (e *Engine) forget(name string) {
	e.mu.Lock()
	delete(e.tables, name)
	e.mu.Unlock()
}

// recheck is lookupTable's cluster-mode check of a cached table: one not
// compared with the store for catalogRecheck is compared now (a point
// read of its generation) and reloaded when it changed. A failed read
// keeps the cached table.
func (e *Engine) recheck(t *Table) (*Table, bool) {
	now := e.clock.Now().UnixNano()
	if now-t.checked.Load() < int64(catalogRecheck) {
		return t, true
	}
	var gen uint64
	var err error
	if e.point != nil {
		gen, err = pointGen(e.point, t.ID)
	} else {
		gen, err = snapshotGen(e.store, t.ID)
	}
	if err != nil {
		return t, true
	}
	if gen == t.rec.Gen {
		t.checked.Store(now)
		return t, true
	}
	nt, ok, err := e.reloadTable(t.Name)
	if err != nil {
		return t, true
	}
	return nt, ok
}

// freshForIndex is t for a read of index (nil: the table itself): in
// cluster mode, when the cached t lacks the index or has it still
// CREATING or backfilling, the table as the store has it now (another node
// may have added the index, or finished filling it, within the
// catalogRecheck of t).
func (e *Engine) freshForIndex(t *Table, index *string) *Table {
	if !e.cfg.Cluster || index == nil {
		return t
	}
	if ix, ok := t.Index(*index); ok && ix.Status == StatusActive && !ix.Backfilling {
		return t
	}
	nt, ok, err := e.reloadTable(t.Name)
	if err != nil || !ok || nt.ID != t.ID {
		return t
	}
	if st, ok := e.settle(nt); ok {
		return st
	}
	return t
}

// pointGen is storedGen through a PointReader.
func pointGen(p storage.PointReader, id uint64) (uint64, error) {
	gen, _, err := storedGen(pointReader{p}, id)
	return gen, err
}

// snapshotGen is storedGen through a snapshot of store.
func snapshotGen(store storage.Store, id uint64) (uint64, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	gen, _, err := storedGen(snap, id)
	return gen, err
}

// pointReader lets a PointReader serve as the Get of a storage.Reader.
type pointReader struct{ storage.PointReader }

func (pointReader) NewIterator(storage.IterOptions) (storage.Iterator, error) {
	return nil, errors.New("engine: no iterator on a point reader")
}

// syncCatalog reconciles the cached catalog with the store's (cluster
// mode: ListTables, and a lookup that misses): tables another node created
// or changed are installed, tables it removed are forgotten.
func (e *Engine) syncCatalog() error {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte{prefixCatalog}, Upper: []byte{prefixCatalog + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	now := e.clock.Now()
	seen := map[string]bool{}
	for it.Next() {
		var rec tableRecord
		if err := json.Unmarshal(it.Value(), &rec); err != nil {
			return fmt.Errorf("engine: catalog record %q: %w", it.Key()[1:], err)
		}
		seen[rec.Name] = true
		e.mu.RLock()
		cur, ok := e.tables[rec.Name]
		e.mu.RUnlock()
		if ok && cur.ID == rec.ID && cur.rec.Gen == rec.Gen {
			continue
		}
		rec.settle(now)
		t, err := e.buildTable(&rec)
		if err != nil {
			return err
		}
		e.installNewer(t)
	}
	if err := it.Err(); err != nil {
		return err
	}
	e.mu.Lock()
	for name, t := range e.tables {
		// A table installed since the snapshot (created here meanwhile)
		// is not in it, and stays.
		if !seen[name] && t.checked.Load() < now.UnixNano() {
			delete(e.tables, name)
		}
	}
	e.mu.Unlock()
	return nil
}

// defaultClusterRecount is Config.ClusterRecount's default.
const defaultClusterRecount = time.Minute

// startClusterRecount recounts, in cluster mode, every table's ItemCount
// and TableSizeBytes from a snapshot every Config.ClusterRecount: a node
// counts its own writes at once (addStats) and the other nodes' at its
// next recount, so DescribeTable's figures lag other nodes' writes by at
// most the interval plus the time a recount takes. (Per-index figures
// count this node's writes only.) Close does not save the figures in
// cluster mode: each start recounts.
func (e *Engine) startClusterRecount() {
	if !e.cfg.Cluster {
		return
	}
	every := cmp.Or(e.cfg.ClusterRecount, defaultClusterRecount)
	e.goBackground(func() {
		for e.sleep(every) {
			var ids []uint64
			for _, t := range e.snapshotTables() {
				if t.Status != StatusDeleting {
					ids = append(ids, t.ID)
				}
			}
			e.recount(ids)
		}
	})
}
