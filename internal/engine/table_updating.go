package engine

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// What DynamoDB admits while a table is UPDATING depends on the update in
// progress (live probes, October 2026: DDB-TABLE-063, 064, 119, 369, 370).
// Kura's updates only take time with --create-delay; the kind of update is
// kept in the table record (tableRecord.UpdateKind) until it settles.
const (
	updateIOPS   = "iops"   // ProvisionedThroughput or a billing mode switch
	updateStream = "stream" // a stream enabled or disabled
)

// updateKind names the update an UpdateTable starts, for the rules below;
// "" for the others (indexes, vector indexes), which keep the generic
// answers.
func updateKind(f updateFlags, switching bool) string {
	switch {
	case f.pt || switching:
		return updateIOPS
	case f.stream:
		return updateStream
	}
	return ""
}

const msgInUse = "Attempt to change a resource which is still in use: "

// admitWhileUpdating decides an UpdateTable on an UPDATING table: nil to
// go ahead (a deletion protection change is admitted during any update),
// else the refusal.
func admitWhileUpdating(t *Table, f updateFlags) *ddberr.Error {
	if f.dp {
		return nil // DeletionProtection is the only operation of its request
	}
	switch t.rec.UpdateKind {
	case updateIOPS:
		if f.pt || f.billing {
			return ddberr.ResourceInUse(msgInUse + "Table IOPS are currently being updated. Table: " + t.Name)
		}
		if f.stream {
			return ddberr.ResourceInUse(msgInUse + "Can't enable or disable stream while table IOPS are being updated. Table: " + t.Name)
		}
	case updateStream:
		if f.class {
			return ddberr.ResourceInUse(msgInUse + "Can't update table class when stream status is being updated. Table: " + t.Name)
		}
	}
	return inUse(t)
}

// deleteWhileUpdating is DeleteTable's refusal while the table is UPDATING.
func deleteWhileUpdating(t *Table) *ddberr.Error {
	switch t.rec.UpdateKind {
	case updateIOPS:
		return ddberr.ResourceInUse(msgInUse + "Table: " + t.Name + " is in the process of being updated.")
	case updateStream:
		return ddberr.ResourceInUse(msgInUse + "Cannot delete table while stream is being enabled/disabled.")
	}
	return inUse(t)
}

// deleteAllocating is DynamoDB's refusal of deleting an index that is
// being created and still in resource allocation, before its backfill:
// the text is the one captured for a vector index (eu-west-2, 2026-08, a
// public conformance suite); the rule is the one DynamoDB documents for
// GSIs too (GlobalSecondaryIndexDescription.Backfilling, aws-sdk-go-v2
// service/dynamodb v1.74.0: an index being created can be deleted while
// Backfilling is true, not while it is false).
func deleteAllocating(table, index string) *ddberr.Error {
	return ddberr.ResourceInUse(msgInUse + "Index creation is in resource allocation phase. " +
		"Retry deletion during backfilling phase or when the index is active. Table: " + table + " Index: " + index)
}

// indexChangeWhileAllocating answers an online index change (a GSI
// created or deleted, a vector index update) made while a new GSI or
// vector index is in resource allocation (the table UPDATING for it):
// deleting that index is refused in its own words, any other online index
// change by the one-online-index limit (same suite), rather than as a
// change to an UPDATING table. nil: no such change, or no allocation.
func indexChangeWhileAllocating(t *Table, in *wire.UpdateTableInput) *ddberr.Error {
	d := &t.rec.Desc
	if t.Status != StatusUpdating || t.rec.UpdateKind != "" || !gsiAllocating(d) && !vectors.Building(d) {
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
				return deleteAllocating(t.Name, n)
			}
		}
	case len(online) == 0 && len(in.VectorIndexUpdates) == 1:
		if err := vectorDeleteAllocating(d, t.Name, in.VectorIndexUpdates[0].Delete); err != nil {
			return err
		}
	}
	return ddberr.LimitExceeded(msgOnlineIndexLimit)
}

// gsiAllocating reports whether a GSI of d is being created; under an
// UPDATING table that is its resource allocation.
func gsiAllocating(d *wire.TableDescription) bool {
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == StatusCreating {
			return true
		}
	}
	return false
}
