package layout

import (
	"encoding/binary"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/keyhash"
)

// ItemPrefix is the common prefix of every item key of a table in the
// current layout.
func ItemPrefix(tableID uint64) []byte {
	b := make([]byte, ItemPrefixLen, 64)
	b[0] = PrefixItem
	binary.BigEndian.PutUint64(b[1:], tableID)
	return b
}

// PartitionPrefix is the prefix of every item key of one partition: the
// range a Query reads.
func PartitionPrefix(tableID uint64, pk attr.Value) []byte {
	h := keyhash.Sum(pk)
	b := append(ItemPrefix(tableID), h[:]...)
	return attr.AppendKey(b, pk)
}

// ItemKey is the storage key of one item. sk is ignored when the table has
// no sort key (pass the zero Value).
func ItemKey(tableID uint64, pk, sk attr.Value) []byte {
	b := PartitionPrefix(tableID, pk)
	if sk.T != attr.TypeNone {
		b = attr.AppendKey(b, sk)
	}
	return b
}
