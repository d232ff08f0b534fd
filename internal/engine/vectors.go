package engine

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// Vector indexes live in internal/engine/vectors (definitions, the
// in-memory graphs and their snapshots, the write bookkeeping as a
// change.Subsystem, search execution, the backfill job). The core keeps
// the request entry points and hands the package what it needs through
// vectors.Host (vectorHost below).

// VectorIndex is one vector index of a table (package vectors).
type VectorIndex = vectors.Index

// Vector settings' bounds and defaults (package vectors), as the server's
// flags name them.
const (
	DefaultVectorSnapshotInterval = vectors.DefaultSnapshotInterval
	DefaultVectorSnapshotChanges  = vectors.DefaultSnapshotChanges
	MaxVectorEfSearch             = vectors.MaxEfSearch
)

// VectorIndexes are t's vector indexes (vectors.Table).
func (t *Table) VectorIndexes() []*VectorIndex { return t.Vectors }

// VectorIndex returns the table's vector index with the given name.
func (t *Table) VectorIndex(name string) (*VectorIndex, bool) { return vectors.ByName(t.Vectors, name) }

// openVectors wires the vector-index registry and loads every index of
// the catalog's live tables (Open, after the catalog).
func (e *Engine) openVectors() error {
	return e.vec.Open(vectors.Tables(e.liveTables()))
}

// newVectorRegistry is the registry the engine wires at Open.
func (e *Engine) newVectorRegistry() *vectors.Registry {
	return vectors.New(vectors.Options{
		Host:        vectorHost{e},
		Store:       e.store,
		Prefix:      indexPrefix,
		Now:         e.clock.Now,
		CreateDelay: e.cfg.CreateDelay,
		Closing:     e.closing,
		Go:          e.goBackground,
		Sleep:       e.sleep,
		Exclusive: func(tableID uint64, indexID uint32, still func() bool, run func()) {
			e.underLease(backfillLease(tableID, indexID), still, run)
		},
		Cluster: e.cfg.Cluster,
		Lease:   func() bool { return e.holds(vectors.LeaseLog) },
		Sync: func() {
			if err := e.syncCatalog(); err != nil {
				slog.Warn("reading the catalog before trimming vector logs", "err", err)
			}
		},
	})
}

// liveTables are the current versions of the tables not being deleted.
func (e *Engine) liveTables() []*Table {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]*Table, 0, len(e.tables))
	for _, t := range e.tables {
		if t.Status != StatusDeleting {
			out = append(out, t)
		}
	}
	return out
}

// vectorHost is the core as package vectors sees it (vectors.Host).
type vectorHost struct{ e *Engine }

func (h vectorHost) Tables() []vectors.Table { return vectors.Tables(h.e.liveTables()) }

func (h vectorHost) Table(name string, id uint64) (vectors.Table, bool) {
	t, ok := h.e.lookupTable(name)
	if !ok || t.ID != id {
		return nil, false
	}
	return t, true
}

func (h vectorHost) Snapshot() (*snapshot.Reader, error) { return h.e.openSnapshot() }

func (h vectorHost) Commit(sync bool, f func(storage.Txn) error) error { return h.e.commit(sync, f) }

func (h vectorHost) Purge(lower, upper []byte) error { return h.e.purgeRange(lower, upper) }

func (h vectorHost) LockAll() func() { return h.e.locks.LockAll() }

func (h vectorHost) LockItems(keys [][]byte) func() { return h.e.locks.Lock(keys) }

func (h vectorHost) ReadItem(r storage.Reader, key []byte, keep func(string) bool) (attr.Item, error) {
	if keep == nil {
		return readItem(r, key)
	}
	return readItemOnly(r, key, keep)
}

func (h vectorHost) AwaitClock(at time.Time, still func() bool) bool {
	return h.e.awaitClock(at, still)
}

func (h vectorHost) UpdateDesc(name string, id uint64, index uint32, f func(*wire.VectorIndexDescription)) bool {
	return h.e.updateVectorDesc(name, id, index, f)
}

// purgeRange deletes every key in [lower, upper) in chunks.
func (e *Engine) purgeRange(lower, upper []byte) error {
	for {
		n, err := e.purgeSome(lower, upper)
		if err != nil || n < purgeChunk {
			return err
		}
	}
}

// updateVectorDesc changes one vector index's stored description.
func (e *Engine) updateVectorDesc(table string, tableID uint64, indexID uint32, f func(*wire.VectorIndexDescription)) bool {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.lookupTable(table)
	if !ok || t.ID != tableID {
		return false
	}
	i := slices.IndexFunc(t.Vectors, func(vx *VectorIndex) bool { return vx.ID == indexID })
	if i < 0 {
		return false
	}
	rec := t.rec.Clone()
	for j := range rec.Desc.VectorIndexes {
		if cpDeref(rec.Desc.VectorIndexes[j].IndexName) == t.Vectors[i].Name {
			f(&rec.Desc.VectorIndexes[j])
		}
	}
	_, err := e.saveRecord(rec)
	return err == nil
}

// SetVectorMaxTopK sets the SearchVectors TopK cap (the --vector-max-topk
// extension); values outside 1..vectors.MaxMaxTopK are clamped.
func (e *Engine) SetVectorMaxTopK(n int) { e.vec.SetMaxTopK(n) }

// SetVectorEfSearch sets the HNSW search beam width SearchVectors uses
// (--vector-ef-search); 0 restores the index default.
func (e *Engine) SetVectorEfSearch(n int) { e.vec.SetEfSearch(n) }

// SetVectorQuantization sets the vector indexes' traversal representation
// (--vector-quantization), for loaded and new indexes.
func (e *Engine) SetVectorQuantization(q vector.Quantization) error { return e.vec.SetQuantization(q) }

// SetVectorSnapshotPolicy starts (or retunes) the periodic snapshots of
// vector indexes (--vector-snapshot-interval, --vector-snapshot-changes).
func (e *Engine) SetVectorSnapshotPolicy(interval time.Duration, changes int) {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	e.vec.SetSnapshotPolicy(interval, changes)
}

// SearchVectors is a k-nearest-neighbour search of a vector index
// (vectors.Registry.SearchVectors: the request checked and parsed, then
// the table looked up and searched).
func (e *Engine) SearchVectors(ctx context.Context, in *wire.SearchVectorsInput) (*wire.SearchVectorsOutput, error) {
	return e.vec.SearchVectors(in, func(name *string) (vectors.Table, error) {
		t, err := e.activeTable(name)
		if err != nil {
			return nil, err
		}
		return t, nil
	})
}

// describeVectors fills the dynamic figures of the vector indexes
// (vectors.Registry.Describe).
func (e *Engine) describeVectors(t *Table, d *wire.TableDescription) { e.vec.Describe(t, d) }
