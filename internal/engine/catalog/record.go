package catalog

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/engine/insights"
	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/ttl"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// RecordVersion is the table record format version.
const RecordVersion = 1

// Record is what the catalog stores for one table (JSON, under Key(Name)).
type Record struct {
	Version int `json:"v"`
	// Gen counts the record's versions: Put stores each one with a higher
	// Gen, and GenKey(ID) the current one (nodes.go).
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
	PITR        PITRRecord            `json:"pitr"`
	Indexes     []IndexRecord         `json:"indexes,omitempty"`
	NextIndexID uint32                `json:"nextIndexId"`
	TTL         *ttl.Record           `json:"ttl,omitempty"` // package ttl
	// ClassChanges are the times of the table class changes of the last
	// 30 days (package tables' throughput rules).
	ClassChanges []time.Time `json:"classChanges,omitempty"`
	// UpdateKind is the kind of update an UPDATING table is going through
	// (tables.Admit); cleared when it settles.
	UpdateKind string `json:"updateKind,omitempty"`
	// RestoreSource is the ID of the table a point-in-time restore into
	// this table reads, while it runs (the core's pitr_restore.go).
	RestoreSource uint64 `json:"restoreSource,omitempty"`
	// Insights is the Contributor Insights state of the table ("") and
	// of its GSIs (by name) once configured (package insights).
	Insights map[string]*insights.Record `json:"insights,omitempty"`
	// Policies are the resource-based policies attached to the table
	// ("") and to its stream (by ARN) (package policies).
	Policies policies.Set `json:"policies,omitempty"`
}

// IndexRecord gives one secondary or vector index of a table its ID, the
// ID its entries are stored under.
type IndexRecord struct {
	Name string `json:"name"`
	ID   uint32 `json:"id"`
}

// PITRRecord is a table's point-in-time recovery setting.
type PITRRecord struct {
	Enabled              bool      `json:"enabled"`
	RecoveryPeriodInDays int32     `json:"days,omitempty"`
	EnabledAt            time.Time `json:"enabledAt,omitzero"`
}

// Clone deep-copies the record through JSON (records are small and cloned
// only on control-plane changes).
func (r *Record) Clone() *Record {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	var c Record
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c
}

// SetStatus sets the table status and mirrors it into the description.
func (r *Record) SetStatus(s string) {
	r.Status = s
	r.Desc.TableStatus = s
}

// Settle turns an elapsed CREATING/UPDATING into ACTIVE.
func (r *Record) Settle(now time.Time) {
	if r.Status != tables.StatusCreating && r.Status != tables.StatusUpdating {
		return
	}
	if r.ReadyAt.IsZero() || now.Before(r.ReadyAt) {
		return
	}
	r.SetStatus(tables.StatusActive)
	r.ReadyAt = time.Time{}
	r.UpdateKind = ""
	for i := range r.Desc.GlobalSecondaryIndexes {
		g := &r.Desc.GlobalSecondaryIndexes[i]
		if g.IndexStatus != tables.StatusDeleting && !wire.Deref(g.Backfilling) {
			g.IndexStatus = tables.StatusActive
		}
	}
	// GSIs deleted by UpdateTable disappear once the update settles, and
	// with them the definitions of key attributes no other key uses.
	before := len(r.Desc.GlobalSecondaryIndexes)
	kept := r.Desc.GlobalSecondaryIndexes[:0]
	for _, g := range r.Desc.GlobalSecondaryIndexes {
		if g.IndexStatus != tables.StatusDeleting {
			kept = append(kept, g)
		} else {
			delete(r.Insights, wire.Deref(g.IndexName)) // its rules go with it
		}
	}
	r.Desc.GlobalSecondaryIndexes = kept
	if len(kept) == 0 {
		r.Desc.GlobalSecondaryIndexes = nil
	}
	if len(kept) < before {
		vectors.PruneDefinitions(&r.Desc)
	}
	vectors.Settle(&r.Desc)
}

// IndexID is the ID of the index named name.
func (r *Record) IndexID(name string) (uint32, bool) {
	for _, ix := range r.Indexes {
		if ix.Name == name {
			return ix.ID, true
		}
	}
	return 0, false
}

// AddIndexID allocates an index ID for a new index name. A deleted index
// of the same name loses its record: the name now means the new index, and
// the old ID's entries (possibly still being purged) must never be taken
// for the new index's.
func (r *Record) AddIndexID(name string) uint32 {
	r.Indexes = slices.DeleteFunc(r.Indexes, func(ix IndexRecord) bool { return ix.Name == name })
	r.NextIndexID++
	r.Indexes = append(r.Indexes, IndexRecord{Name: name, ID: r.NextIndexID})
	return r.NextIndexID
}
