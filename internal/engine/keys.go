package engine

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/kura-db/kura/internal/attr"
)

// Key-space prefixes; see doc.go.
const (
	prefixCatalog = 'c'
	prefixItem    = 'i'
	prefixIndex   = 'x'
)

// catalogKey is the storage key of a table's metadata.
func catalogKey(name string) []byte {
	return append([]byte{prefixCatalog}, name...)
}

// itemPrefixLen is the length of itemPrefix.
const itemPrefixLen = 9

// itemPrefix is the common prefix of every item key of a table.
func itemPrefix(tableID uint64) []byte {
	b := make([]byte, itemPrefixLen, 64)
	b[0] = prefixItem
	binary.BigEndian.PutUint64(b[1:], tableID)
	return b
}

// partitionHash spreads partition keys over 65536 buckets, like DynamoDB's
// internal hashing: Scan order follows it and parallel Scan segments are
// contiguous bucket ranges.
func partitionHash(encodedPK []byte) uint16 {
	h := fnv.New32a()
	h.Write(encodedPK)
	s := h.Sum32()
	return uint16(s>>16) ^ uint16(s)
}

// partitionPrefix is the prefix of every item key of one partition: the
// range a Query scans.
func partitionPrefix(tableID uint64, pk attr.Value) []byte {
	enc := attr.AppendKey(nil, pk)
	b := itemPrefix(tableID)
	b = binary.BigEndian.AppendUint16(b, partitionHash(enc))
	return append(b, enc...)
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
