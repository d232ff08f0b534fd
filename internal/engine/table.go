package engine

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// KeyAttr is one key attribute of a table or index.
type KeyAttr struct {
	Name string
	Type attr.Type // S, N or B
}

// Table is the in-memory form of one table's metadata. Tables are immutable
// values: a change (UpdateTable, status transition) stores a new *Table in
// the catalog and swaps the pointer, so readers never lock.
type Table struct {
	Name  string
	ID    uint64
	Hash  KeyAttr
	Range *KeyAttr // nil when the table has no sort key
	// Desc is the TableDescription as stored; dynamic figures (ItemCount,
	// TableSizeBytes, status) are filled in when described.
	Desc wire.TableDescription
}
