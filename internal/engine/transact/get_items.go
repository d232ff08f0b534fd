package transact

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// Reads are a read transaction's Gets as the core validates (Gets), reads
// and bills them.
type Reads interface {
	Gets
	// Admit admits every Get's read of its table, or cancels the
	// transaction (throttling reasons on the refused Gets, None on the
	// others) when capacity is enforced and a table is out of it.
	Admit() error
	// Read reads the items at keys from one snapshot (nil for a missing
	// item).
	Read(keys [][]byte) ([]attr.Item, error)
	// Charge pays the reads, items[i] being what Get i read.
	Charge(items []attr.Item)
	// Bill is Get i's table and the units of its read of item (nil when
	// missing), as DynamoDB bills a transactional read: twice a strongly
	// consistent one.
	Bill(i int, item attr.Item) (table string, units float64)
	// Project is item as Get i's projection asks.
	Project(i int, item attr.Item) attr.Item
}

// GetItems runs a read transaction (TransactGetItems, ExecuteTransaction's
// reads): validated in DynamoDB's order (PrepareGets), cancelled when a
// write transaction holding one of its items is still preparing
// (CheckReads), admitted, read from one snapshot and charged. With
// limitSize, items adding up to more than MaxBytes refuse it
// (CheckReadSize; ExecuteTransaction's reads have no such check). It
// returns the items, projected (nil for a missing item), with the
// capacity mode asks for.
func (s *State) GetItems(r Reads, mode string, limitSize bool) ([]attr.Item, []wire.ConsumedCapacity, error) {
	keys, err := PrepareGets(r)
	if err != nil {
		return nil, nil, err
	}
	if err := s.CheckReads(keys); err != nil {
		return nil, nil, err
	}
	if err := r.Admit(); err != nil {
		return nil, nil, err
	}
	items, err := r.Read(keys)
	if err != nil {
		return nil, nil, err
	}
	r.Charge(items)
	if limitSize {
		size := 0
		for _, it := range items {
			if it != nil {
				size += attr.ItemSize(it)
			}
		}
		if err := CheckReadSize(size); err != nil {
			return nil, nil, err
		}
	}
	var c Tally
	for i, it := range items {
		table, units := r.Bill(i, it)
		c.Add(table, Units{Table: units}, true)
		if it != nil {
			items[i] = r.Project(i, it)
		}
	}
	return items, c.List(mode), nil
}
