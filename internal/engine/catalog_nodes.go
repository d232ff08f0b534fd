package engine

import (
	"cmp"
	"errors"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
)

// Catalog coherence between the nodes of a cluster (Config.Cluster; the
// "Several nodes" paragraph of doc.go; the generations are package
// catalog's, nodes.go): the core's side, which reloads and swaps the
// tables it built.

// catalogRecheck bounds how long a node in cluster mode serves a
// data-plane read with a cached table definition it has not compared with
// the store's generation (lookupTable): a read that names an index another
// node created a moment ago may be answered from the older definition for
// this long. Writes are always checked (checkCatalog).
const catalogRecheck = time.Second

// checkCatalog is the item write's check of t against the store, inside
// txn (cluster mode only): errStaleCatalog, after reloading the table,
// when another node changed or removed its definition.
func (e *Engine) checkCatalog(txn storage.Txn, t *Table) error {
	if !e.cfg.Cluster {
		return nil
	}
	gen, _, err := catalog.StoredGen(txn, t.ID)
	if err != nil || gen == t.rec.Gen {
		return err
	}
	if _, _, err := e.reloadTable(t.Name); err != nil {
		return err
	}
	return errStaleCatalog
}

// refreshed is t for the retry of a write that failed with err: its
// reloaded version when err is errStaleCatalog (the table as the last
// reload left it, or ResourceNotFoundException when it is gone or another
// table of the same name replaced it), else t.
func (e *Engine) refreshed(err error, t *Table) (*Table, error) {
	if !errors.Is(err, errStaleCatalog) {
		return t, nil
	}
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
	rec, ok, err := e.cat.Read(name, e.clock.Now())
	if err != nil || !ok {
		if err == nil {
			e.forgetID(name, 0)
		}
		return nil, false, err
	}
	t, err := e.buildTable(rec)
	if err != nil {
		return nil, false, err
	}
	return e.installNewer(t), true, nil
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

// installed is the installed version of the named table, as it is.
func (e *Engine) installed(name string) (*Table, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	t, ok := e.tables[name]
	return t, ok
}

// installedTables are the installed versions of every table, as they are.
func (e *Engine) installedTables() []*Table {
	e.mu.RLock()
	defer e.mu.RUnlock()
	list := make([]*Table, 0, len(e.tables))
	for _, t := range e.tables {
		list = append(list, t)
	}
	return list
}

// forgetID drops the named table from the map when it is table id (0:
// whichever it is).
func (e *Engine) forgetID(name string, id uint64) {
	e.mu.Lock()
	if cur, ok := e.tables[name]; ok && (id == 0 || cur.ID == id) {
		delete(e.tables, name)
	}
	e.mu.Unlock()
}

// recheck is lookupTable's cluster-mode check of a cached table: one not
// compared with the store for catalogRecheck is compared now (a point
// read of its generation) and reloaded when it changed. One cached while
// not Active (CREATING while another node restores or imports into it) is
// compared at every lookup, so it serves as soon as the store has it
// ACTIVE. A failed read keeps the cached table.
func (e *Engine) recheck(t *Table) (*Table, bool) {
	now := e.clock.Now().UnixNano()
	if t.Active() && now-t.checked.Load() < int64(catalogRecheck) {
		return t, true
	}
	gen, err := e.cat.Gen(t.ID)
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

// syncCatalog reconciles the cached catalog with the store's (cluster
// mode: ListTables, and a lookup that misses): tables another node created
// or changed are installed, tables it removed are forgotten.
func (e *Engine) syncCatalog() error {
	now := e.clock.Now()
	recs, err := e.cat.Records(now)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		seen[rec.Name] = true
		if cur, ok := e.installed(rec.Name); ok && cur.ID == rec.ID && cur.rec.Gen == rec.Gen {
			continue
		}
		t, err := e.buildTable(rec)
		if err != nil {
			return err
		}
		e.installNewer(t)
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

// startClusterRecount refreshes, in cluster mode, every table's ItemCount
// and TableSizeBytes, and each index's ItemCount and IndexSizeBytes,
// every Config.ClusterRecount. One node, the holder of the lease
// leaseRecount, recounts them from a snapshot and saves what it counted in
// the store (catalog.SaveCounts); each other node takes the saved figures
// in place of its own. A node counts its own writes at once (addStats)
// and the other nodes' at the round after the holder's next recount, so
// DescribeTable's figures lag other nodes' writes by at most twice the
// interval plus the time a recount takes (and more while a lapsed lease
// moves: one lease TTL). A non-holder's own writes that commit after the
// holder's snapshot drop out of its figures until the next saved recount.
// Close does not save the clean marker in cluster mode: each start
// recounts.
func (e *Engine) startClusterRecount() {
	if !e.cfg.Cluster {
		return
	}
	every := cmp.Or(e.cfg.ClusterRecount, defaultClusterRecount)
	e.goBackground(func() {
		for e.sleep(every) {
			var live []*Table
			for _, t := range e.snapshotTables() {
				if t.Status != StatusDeleting {
					live = append(live, t)
				}
			}
			e.clusterRecountRound(live)
		}
	})
}

// clusterRecountRound is one round of startClusterRecount over the tables
// live: recount and save them under the lease, else read the saved
// figures.
func (e *Engine) clusterRecountRound(live []*Table) {
	ids := make([]uint64, len(live))
	for i, t := range live {
		ids[i] = t.ID
	}
	if e.holds(leaseRecount) {
		counted := e.recount(ids)
		if len(counted) == 0 {
			return
		}
		saved := make(map[uint64]catalog.Saved, len(counted))
		for _, t := range live {
			if n, ok := counted[t.ID]; ok {
				idx, ok := e.recountIndexes(t)
				if !ok {
					return // closing: the next round counts again
				}
				saved[t.ID] = catalog.Saved{Name: t.Name, Counts: n, Indexes: idx}
			}
		}
		if err := e.cat.SaveCounts(saved); err != nil {
			slog.Warn("saving the recounted statistics", "err", err)
		}
		return
	}
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return
	}
	defer snap.Close()
	for _, id := range ids {
		n, found, err := catalog.ReadCounts(snap, id)
		if err != nil {
			return
		}
		if found {
			s := e.statsFor(id)
			s.items.Store(n.Items)
			s.bytes.Store(n.Bytes)
		}
		v, err := snap.Get(indexes.StatsKey(id))
		if err == nil {
			e.statsFor(id).indexes.Restore(v)
		} else if !errors.Is(err, storage.ErrNotFound) {
			return
		}
	}
}

// recountIndexes recounts the ItemCount and IndexSizeBytes of t's live
// indexes from a snapshot each (keeping what writes record meanwhile, as
// the table's recount does) and returns them encoded as they are saved;
// false when Close stopped a count.
func (e *Engine) recountIndexes(t *Table) ([]byte, bool) {
	s := e.statsFor(t.ID)
	live := t.liveIndexes()
	for _, ix := range live.List {
		take := func(mark func()) (*snapshot.Reader, error) { mark(); return e.openSnapshot() }
		if ok, _ := s.indexes.Recount(indexes.Ref{Table: t.ID, Index: ix.ID}, take, itemSizeFromStored, e.isClosing); !ok {
			return nil, false
		}
	}
	return s.indexes.Encode(live), true
}
