package engine

import (
	"encoding/binary"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/keyhash"
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
func itemPrefix(tableID uint64) []byte {
	b := make([]byte, itemPrefixLen, 64)
	b[0] = prefixItem
	binary.BigEndian.PutUint64(b[1:], tableID)
	return b
}

// hashLen is the length of the partition hash in item and index keys
// (layout version 2, package layout).
const hashLen = keyhash.Len

// partitionHash is DynamoDB's hash of a partition key (package keyhash).
func partitionHash(vals ...attr.Value) [hashLen]byte { return keyhash.Sum(vals...) }

// partitionPrefix is the prefix of every item key of one partition: the
// range a Query scans.
func partitionPrefix(tableID uint64, pk attr.Value) []byte {
	h := partitionHash(pk)
	b := append(itemPrefix(tableID), h[:]...)
	return attr.AppendKey(b, pk)
}

// itemKey is the storage key of one item. sk is ignored when the table has
// no sort key (pass the zero Value).
func itemKey(tableID uint64, pk, sk attr.Value) []byte {
	b := partitionPrefix(tableID, pk)
	if sk.T != attr.TypeNone {
		b = attr.AppendKey(b, sk)
	}
	return b
}
