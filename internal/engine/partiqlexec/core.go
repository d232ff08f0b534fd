package partiqlexec

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/wire"
)

// Core is what statements are lowered onto: the core's item operations, in
// the JSON API's wire shapes, and its table lookup. The engine implements
// it; every answer (items, capacity, errors) is the operation's own.
type Core interface {
	// Table is the table a statement names, looked up as the data-plane
	// operations look tables up (ResourceNotFoundException for a missing
	// one, or one that is not ACTIVE or UPDATING).
	Table(name *string) (Table, error)

	PutItem(ctx context.Context, in *wire.PutItemInput) (*wire.PutItemOutput, error)
	// UpdateItem is UpdateItem as a statement runs it: the written item is
	// sized as stored, not as UpdateItem's own size check counts it.
	UpdateItem(ctx context.Context, in *wire.UpdateItemInput) (*wire.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *wire.DeleteItemInput) (*wire.DeleteItemOutput, error)
	Query(ctx context.Context, in *wire.QueryInput) (*wire.QueryOutput, error)
	// Scan is Scan as a SELECT runs it (a filter on a path through a key
	// attribute matches nothing rather than being refused).
	Scan(ctx context.Context, in *wire.ScanInput) (*wire.ScanOutput, error)

	// Get reads one item by its full key (a batch's SELECT), projected,
	// and the read units it consumed. An error the table's throughput
	// refused is a *ddberr.Error; any other failure after validation (a
	// storage error) is not one.
	Get(ctx context.Context, g *wire.Get, consistent bool) (attr.Item, float64, error)

	// TransactWrite runs items as one TransactWriteItems would, once per
	// ClientRequestToken token for the request in (a repeat is answered
	// without applying it again), and returns the consumed capacity
	// mode (ReturnConsumedCapacity) asks for.
	TransactWrite(ctx context.Context, items []wire.TransactWriteItem, token *string, in any, mode string) ([]wire.ConsumedCapacity, error)
	// TransactGet reads items as one TransactGetItems would, projected
	// (nil for a missing item), with the capacity mode asks for.
	TransactGet(ctx context.Context, items []wire.TransactGetItem, mode string) ([]attr.Item, []wire.ConsumedCapacity, error)
}

// Table is the part of a table's definition lowering reads.
type Table interface {
	// Def is the table's name and key schema.
	Def() *change.Table
	// Index is the table's secondary index (GSI or LSI) named name.
	Index(name string) (Index, bool)
	// CheckScanIndex refuses a read, as Scan refuses it, of an index that
	// no Scan may read (a vector index); nil for any other name.
	CheckScanIndex(name string) error
}

// Index is one secondary index as lowering sees it.
type Index struct {
	Name  string
	Local bool // an LSI
	// Hashes and Ranges are its key attributes in key-schema order (more
	// than one each only for a multi-attribute GSI key).
	Hashes, Ranges []change.KeyAttr
	// Projects reports whether the index's entries hold an attribute.
	Projects func(name string) bool
}

// hash and rng are the index's (first) partition and sort key attribute;
// rng is "" when it has no sort key.
func (ix Index) hash() string { return ix.Hashes[0].Name }

func (ix Index) rng() string {
	if len(ix.Ranges) == 0 {
		return ""
	}
	return ix.Ranges[0].Name
}

// keyAttrs lists a table's key attributes, partition key first.
func keyAttrs(t *change.Table) []change.KeyAttr {
	if t.Range == nil {
		return []change.KeyAttr{t.Hash}
	}
	return []change.KeyAttr{t.Hash, *t.Range}
}

// isKeyAttr reports whether name is one of a table's key attributes.
func isKeyAttr(t *change.Table, name string) bool {
	return name == t.Hash.Name || (t.Range != nil && name == t.Range.Name)
}
