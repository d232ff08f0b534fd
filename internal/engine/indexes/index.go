package indexes

import (
	"slices"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
)

// KeyAttr is one key attribute of a table or index.
type KeyAttr = change.KeyAttr

// The statuses and projection types this package reads, as DynamoDB names
// them (the engine exports the same strings).
const (
	statusActive   = "ACTIVE"
	statusCreating = "CREATING"
	statusUpdating = "UPDATING"
	statusDeleting = "DELETING"

	projectAll     = "ALL"
	projectInclude = "INCLUDE"
)

// Index is one secondary index of a table, parsed from its description.
// Its entries live under Prefix(tableID, ID) (keys.go).
type Index struct {
	Name  string
	ID    uint32
	Local bool // LSI (same partition key as the table) vs GSI
	Hash  KeyAttr
	Range *KeyAttr // nil when the index has no sort key
	// Projection is ALL, KEYS_ONLY or INCLUDE; NonKey lists the INCLUDE
	// attributes (nil otherwise).
	Projection string
	NonKey     []string
	// Hashes and Ranges are every key attribute in key-schema order: one
	// each for tables' LSIs and classic GSIs, up to four each for
	// multi-attribute GSI keys (Hash and Range are their first elements).
	Hashes, Ranges []KeyAttr
	// Status is the GSI's IndexStatus (LSIs are always ACTIVE); Backfilling
	// is set while an index added by UpdateTable is being filled.
	Status      string
	Backfilling bool
}

// KeyAttrs lists the index key attributes, hash attributes first.
func (ix *Index) KeyAttrs() []KeyAttr {
	return append(slices.Clone(ix.Hashes), ix.Ranges...)
}

// IsKeyAttr reports whether name is one of the index's key attributes.
func (ix *Index) IsKeyAttr(name string) bool {
	return ix.IsHashAttr(name) || slices.ContainsFunc(ix.Ranges, func(k KeyAttr) bool { return k.Name == name })
}

// IsHashAttr reports whether name is one of the index's HASH attributes.
func (ix *Index) IsHashAttr(name string) bool {
	return slices.ContainsFunc(ix.Hashes, func(k KeyAttr) bool { return k.Name == name })
}

// Indexed reports whether it carries every index key attribute with the
// declared type (the sparse-index rule). Items with a mistyped key
// attribute (written before the index existed) are not indexed.
func (ix *Index) Indexed(it attr.Item) bool {
	for _, k := range ix.Hashes {
		if v, ok := it[k.Name]; !ok || v.T != k.Type {
			return false
		}
	}
	for _, k := range ix.Ranges {
		if v, ok := it[k.Name]; !ok || v.T != k.Type {
			return false
		}
	}
	return true
}

// ProjectAll reports whether ix holds whole items.
func (ix *Index) ProjectAll() bool { return ix.Projection == projectAll }

// Index key value size limits: as for the table's own keys, a secondary
// index partition key value is at most 2048 bytes and a sort key value at
// most 1024 (the UTF-8 bytes of a string, the bytes of a binary; numbers
// are bounded by their 38 digits). Each attribute of a multi-attribute GSI
// key is held to the limit of its role.
const (
	maxHashKeySize  = attr.MaxPartitionKeySize
	maxRangeKeySize = attr.MaxSortKeySize
)

// keySizeLimit is the size limit of index key attribute name.
func (ix *Index) keySizeLimit(name string) int {
	if ix.IsHashAttr(name) {
		return maxHashKeySize
	}
	return maxRangeKeySize
}

// keyValueSize is the size DynamoDB holds against an index key limit.
func keyValueSize(v attr.Value) int {
	switch v.T {
	case attr.S:
		return len(v.Str)
	case attr.B:
		return len(v.Bin)
	}
	return 0
}

// CheckKeySize refuses an index key value over its limit, with DynamoDB's
// text.
func (ix *Index) CheckKeySize(name string, v attr.Value) error {
	n, limit := keyValueSize(v), ix.keySizeLimit(name)
	if n <= limit {
		return nil
	}
	return ddberr.InvalidParam("Size limit exceeded for Index Key %s Actual Size: %d bytes Max Size: %d bytes IndexName: %s", name, n, limit, ix.Name)
}

// Backfillable reports whether a backfill indexes it: indexed, with no
// empty S/B key value and every key value within its limit (a write of
// such an item is refused; one written before the index existed is
// skipped).
func (ix *Index) Backfillable(it attr.Item) bool {
	if !ix.Indexed(it) {
		return false
	}
	for _, k := range ix.KeyAttrs() {
		v := it[k.Name]
		if (v.T == attr.S && v.Str == "") || (v.T == attr.B && len(v.Bin) == 0) || ix.CheckKeySize(k.Name, v) != nil {
			return false
		}
	}
	return true
}

// hasAnyKeyAttr reports whether it carries at least one index key
// attribute (an item a backfill skips is counted as skipped only then).
func (ix *Index) hasAnyKeyAttr(it attr.Item) bool {
	for _, k := range ix.KeyAttrs() {
		if _, ok := it[k.Name]; ok {
			return true
		}
	}
	return false
}
