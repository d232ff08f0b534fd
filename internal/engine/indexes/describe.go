package indexes

import "github.com/kura-db/kura/internal/wire"

// Describe fills the dynamic figures of every index into d, a table's
// description as stored: Backfilling, ItemCount and IndexSizeBytes (from
// s, clamped at zero while a backfill lets them drift). lookup is the
// table's index by name; updating is set while the table is UPDATING (a
// GSI being created then reports Backfilling false: DynamoDB's resource
// allocation comes before the backfill). Each GSI's ProvisionedThroughput
// is copied, so that d can be changed without changing the stored one.
func Describe(d *wire.TableDescription, lookup func(name string) (*Index, bool), s *Stats, updating bool) {
	figures := func(ix *Index) (items, bytes *int64) {
		f := s.Of(ix.ID)
		return wire.Ptr(max(f.Items.Load(), 0)), wire.Ptr(max(f.Bytes.Load(), 0))
	}
	for i := range d.GlobalSecondaryIndexes {
		g := &d.GlobalSecondaryIndexes[i]
		ix, ok := lookup(wire.Deref(g.IndexName))
		if !ok {
			continue
		}
		if g.ProvisionedThroughput != nil {
			pt := *g.ProvisionedThroughput
			g.ProvisionedThroughput = &pt
		}
		switch {
		case g.IndexStatus == statusCreating && updating:
			g.Backfilling = wire.Ptr(false)
		case ix.Backfilling:
			g.Backfilling = wire.Ptr(true)
		default:
			g.Backfilling = nil
		}
		g.ItemCount, g.IndexSizeBytes = figures(ix)
	}
	for i := range d.LocalSecondaryIndexes {
		l := &d.LocalSecondaryIndexes[i]
		if ix, ok := lookup(wire.Deref(l.IndexName)); ok {
			l.ItemCount, l.IndexSizeBytes = figures(ix)
		}
	}
}
