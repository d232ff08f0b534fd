package engine

import (
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/wire"
)

// KeyAttr is one key attribute of a table or index.
type KeyAttr = change.KeyAttr

// Table statuses as DynamoDB reports them.
const (
	StatusCreating = tables.StatusCreating
	StatusActive   = tables.StatusActive
	StatusUpdating = tables.StatusUpdating
	StatusDeleting = tables.StatusDeleting
)

// Billing modes.
const (
	BillingProvisioned   = tables.BillingProvisioned
	BillingPayPerRequest = tables.BillingPayPerRequest
)

// Projection types of secondary indexes.
const (
	ProjectAll      = tables.ProjectAll
	ProjectKeysOnly = tables.ProjectKeysOnly
	ProjectInclude  = tables.ProjectInclude
)

// Index is one secondary index of a table (package indexes).
type Index = indexes.Index

// Table is the in-memory form of one table's metadata. Tables are immutable
// values: a change (UpdateTable, status transition) stores a new *Table in
// the catalog and swaps the pointer, so readers never lock.
type Table struct {
	// Table is the name, ID and key schema, the part of the definition
	// the write path's subsystems see (change.Change.Table).
	change.Table
	// Desc is the TableDescription as stored; dynamic figures (ItemCount,
	// TableSizeBytes, status) are filled in when described.
	Desc wire.TableDescription

	// Status is CREATING, ACTIVE, UPDATING or DELETING.
	Status string
	// BillingMode is PROVISIONED or PAY_PER_REQUEST.
	BillingMode string
	// GSIs and LSIs in the order they were defined.
	GSIs []*Index
	LSIs []*Index
	// Vectors are the vector indexes (internal/engine/vectors).
	Vectors []*VectorIndex

	rec   *tableRecord // the persisted record this Table was built from
	stats *tableStats  // shared by every version of the same table ID
	// checked is when (Unix ns, the engine's clock) this version was
	// built or last found current in the store (cluster mode: recheck).
	checked atomic.Int64
}

// Active reports whether data-plane operations may use the table. DynamoDB
// answers ResourceNotFoundException ("Requested resource not found") for
// item operations on a table that is still CREATING or already DELETING;
// UPDATING tables serve reads and writes.
func (t *Table) Active() bool {
	return t.Status == StatusActive || t.Status == StatusUpdating
}

// Index returns the secondary index (GSI or LSI) with the given name.
func (t *Table) Index(name string) (*Index, bool) {
	for _, ix := range t.GSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	for _, ix := range t.LSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	return nil, false
}

// ARN is the table's ARN.
func (t *Table) ARN() string { return cpDeref(t.Desc.TableArn) }

// tableStats holds the live ItemCount / TableSizeBytes of one table ID.
type tableStats struct {
	items atomic.Int64
	bytes atomic.Int64
	// live is the set of indexes every write maintains (indexes.go);
	// indexes holds each index's statistics by index ID.
	live    atomic.Pointer[indexes.Live]
	indexes indexes.Stats
	// capacity counts consumed capacity (package throttle).
	capacity throttle.Meters
}

// pendingUntil is when a transitional status (CREATING/UPDATING) ends, or
// the zero time.
func (t *Table) pendingUntil() time.Time {
	if t.rec == nil {
		return time.Time{}
	}
	return t.rec.ReadyAt
}

func cpDeref[T any](p *T) T { return wire.Deref(p) }

func cpPtr[T any](v T) *T { return wire.Ptr(v) }
