package engine

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// Index key value size limits: as for the table's own keys, a secondary
// index partition key value is at most 2048 bytes and a sort key value at
// most 1024 (the UTF-8 bytes of a string, the bytes of a binary; numbers
// are bounded by their 38 digits). Each attribute of a multi-attribute GSI
// key is held to the limit of its role.
const (
	maxIndexHashKeySize  = attr.MaxPartitionKeySize
	maxIndexRangeKeySize = attr.MaxSortKeySize
)

// isHashAttr reports whether name is one of the index's HASH attributes.
func (ix *Index) isHashAttr(name string) bool {
	for _, k := range ix.Hashes {
		if k.Name == name {
			return true
		}
	}
	return false
}

// keySizeLimit is the size limit of index key attribute name.
func (ix *Index) keySizeLimit(name string) int {
	if ix.isHashAttr(name) {
		return maxIndexHashKeySize
	}
	return maxIndexRangeKeySize
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

// checkIndexKeySize refuses an index key value over its limit, with
// DynamoDB's text.
func (ix *Index) checkIndexKeySize(name string, v attr.Value) error {
	n, limit := keyValueSize(v), ix.keySizeLimit(name)
	if n <= limit {
		return nil
	}
	return ddberr.InvalidParam("Size limit exceeded for Index Key %s Actual Size: %d bytes Max Size: %d bytes IndexName: %s", name, n, limit, ix.Name)
}

// indexKeySizesValid reports whether every index key value of it is within
// its limit (a backfill skips items that are not, as it skips items with a
// mistyped key attribute).
func (ix *Index) indexKeySizesValid(it attr.Item) bool {
	for _, k := range ix.keyAttrs() {
		if v, ok := it[k.Name]; ok && ix.checkIndexKeySize(k.Name, v) != nil {
			return false
		}
	}
	return true
}
