package change

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// KeyAttr is one key attribute of a table or index.
type KeyAttr struct {
	Name string
	Type attr.Type // S, N or B
}

// Table is the part of a table's definition that every version of the
// table's in-memory form carries and that subsystems read: its name, its
// ID (the storage prefix of its items and of everything derived from them),
// its key schema and its stream. The engine's Table embeds it, so a change
// points at it without copying.
type Table struct {
	Name  string
	ID    uint64
	Hash  KeyAttr
	Range *KeyAttr // nil when the table has no sort key
	// Stream is the table's stream specification.
	Stream StreamSpec
}

// StreamSpec is a table's stream as its description names it.
type StreamSpec struct {
	// Enabled is StreamSpecification.StreamEnabled; ViewType its
	// StreamViewType.
	Enabled  bool
	ViewType string
	// ARN and Label are the description's LatestStreamArn and
	// LatestStreamLabel ("" when absent).
	ARN, Label string
	// KeySchema is the table's key schema as the description lists it
	// (what DescribeStream answers).
	KeySchema []wire.KeySchemaElement
}

// Def returns t: the definition itself, so that *Table and every type
// embedding it are a TableDef.
func (t *Table) Def() *Table { return t }

// TableDef is a version of a table as the write path resolved it. The
// engine passes its own in-memory table (which embeds Table); subsystems
// read the shared definition through Def.
type TableDef interface{ Def() *Table }

// KeyItem returns the primary-key attributes of it.
func (t *Table) KeyItem(it attr.Item) attr.Item {
	out := attr.Item{t.Hash.Name: it[t.Hash.Name]}
	if t.Range != nil {
		out[t.Range.Name] = it[t.Range.Name]
	}
	return out
}

// Change is one change of one item, as the write path offers it to the
// subsystems: at least one of Old and New is set, and they may be equal (a
// Put of the same item). The write path passes it by value; subsystems
// must not keep Old or New beyond Committed, nor modify them.
type Change struct {
	// Table is the version of the table the write resolved. Another
	// version may have been swapped in since (UpdateTable): state that must
	// follow every version at once belongs to the subsystem, by the ID.
	Table TableDef
	// Key is the item's storage key; Suffix is Key without the table's
	// prefix, which names the item within its table.
	Key, Suffix []byte
	// Old and New are the item before and after the change (nil when
	// absent).
	Old, New attr.Item
	// TTL marks the TTL expirer's own deletion of an expired item (stream
	// records label it as the service's). No other write sets it.
	TTL bool
	// Whole marks a write of a whole item (a Put): every attribute in New
	// was written by the request, even one equal to its old value.
	Whole bool
	// Verbatim marks a restore's copy of an item its source table held:
	// it is written as it was, without the checks on written values.
	Verbatim bool
}

// Subsystem is what the write path offers every item change to.
type Subsystem interface {
	// Stage adds the change's derived mutations to txn, the item's own
	// storage transaction, before it commits. An error aborts the write
	// and is answered to the request as it is. Stage may be called again
	// for the same change in a new transaction (a retried conflict), and
	// must leave the subsystem's in-memory state as if the attempts that
	// did not commit had never been staged, except for what it only
	// reserves (sequence numbers, IDs).
	Stage(txn storage.Txn, c Change) error
	// Committed tells the subsystem that the transaction holding the
	// change committed. The caller still holds the item's lock.
	Committed(c Change)
}

// Subsystems is the ordered list the write path offers changes to.
type Subsystems []Subsystem

// Stage offers c to each subsystem in order, stopping at the first error.
func (s Subsystems) Stage(txn storage.Txn, c Change) error {
	for _, sub := range s {
		if err := sub.Stage(txn, c); err != nil {
			return err
		}
	}
	return nil
}

// Committed tells each subsystem in order that c committed.
func (s Subsystems) Committed(c Change) {
	for _, sub := range s {
		sub.Committed(c)
	}
}
