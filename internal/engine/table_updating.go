package engine

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// indexChangeWhileAllocating answers an online index change (a GSI
// created or deleted, a vector index update) made while a new GSI or
// vector index is in resource allocation (the table UPDATING for it):
// deleting that index is refused in its own words, any other online index
// change by the one-online-index limit (same suite), rather than as a
// change to an UPDATING table. nil: no such change, or no allocation.
func indexChangeWhileAllocating(t *Table, in *wire.UpdateTableInput) *ddberr.Error {
	d := &t.rec.Desc
	if t.Status != StatusUpdating || t.rec.UpdateKind != "" || !tables.GSIAllocating(d) && !vectors.Building(d) {
		return nil
	}
	var online []wire.GlobalSecondaryIndexUpdate
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil || u.Delete != nil {
			online = append(online, u)
		}
	}
	switch {
	case len(online)+len(in.VectorIndexUpdates) == 0:
		return nil
	case len(online) == 1 && len(in.VectorIndexUpdates) == 0 && online[0].Delete != nil:
		n := cpDeref(online[0].Delete.IndexName)
		for _, g := range d.GlobalSecondaryIndexes {
			if cpDeref(g.IndexName) == n && g.IndexStatus == StatusCreating {
				return tables.DeleteAllocating(t.Name, n)
			}
		}
	case len(online) == 0 && len(in.VectorIndexUpdates) == 1:
		if err := vectorDeleteAllocating(d, t.Name, in.VectorIndexUpdates[0].Delete); err != nil {
			return err
		}
	}
	return ddberr.LimitExceeded(tables.MsgOnlineIndexLimit)
}
