package engine

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/layout"
)

// Key-space prefixes; see doc.go.
const (
	prefixCatalog = catalog.Prefix
	prefixItem    = layout.PrefixItem
	prefixIndex   = indexes.KeyPrefix
)

// itemPrefixLen is the length of itemPrefix.
const itemPrefixLen = layout.ItemPrefixLen

// itemPrefix is the common prefix of every item key of a table.
func itemPrefix(tableID uint64) []byte { return layout.ItemPrefix(tableID) }

// partitionPrefix is the prefix of every item key of one partition.
func partitionPrefix(tableID uint64, pk attr.Value) []byte {
	return layout.PartitionPrefix(tableID, pk)
}

// itemKey is the storage key of one item. sk is ignored when the table has
// no sort key (pass the zero Value).
func itemKey(tableID uint64, pk, sk attr.Value) []byte { return layout.ItemKey(tableID, pk, sk) }
