package tables

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// MsgOnlineIndexLimit is DynamoDB's refusal of a second online index
// change (a GSI or vector index created or deleted) while one runs.
const MsgOnlineIndexLimit = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"

// What DynamoDB admits while a table is UPDATING depends on the update in
// progress (live probes, October 2026: DDB-TABLE-063, 064, 119, 369, 370).
// Kura's updates only take time with --create-delay; the kind of update is
// kept in the table record (the core's table record) until it settles.
const (
	UpdateIOPS   = "iops"   // ProvisionedThroughput or a billing mode switch
	UpdateStream = "stream" // a stream enabled or disabled
)

// Kind names the update an UpdateTable starts, for the rules below;
// "" for the others (indexes, vector indexes), which keep the generic
// answers.
func Kind(f UpdateFlags, switching bool) string {
	switch {
	case f.PT || switching:
		return UpdateIOPS
	case f.Stream:
		return UpdateStream
	}
	return ""
}

const msgInUse = "Attempt to change a resource which is still in use: "

// AdmitWhileUpdating decides an UpdateTable on an UPDATING table named
// name, going through an update of kind: nil to
// go ahead (a deletion protection change is admitted during any update),
// else the refusal.
func AdmitWhileUpdating(name, kind string, f UpdateFlags) *ddberr.Error {
	if f.DP {
		return nil // DeletionProtection is the only operation of its request
	}
	switch kind {
	case UpdateIOPS:
		if f.PT || f.Billing {
			return ddberr.ResourceInUse(msgInUse + "Table IOPS are currently being updated. Table: " + name)
		}
		if f.Stream {
			return ddberr.ResourceInUse(msgInUse + "Can't enable or disable stream while table IOPS are being updated. Table: " + name)
		}
	case UpdateStream:
		if f.Class {
			return ddberr.ResourceInUse(msgInUse + "Can't update table class when stream status is being updated. Table: " + name)
		}
	}
	return InUse(name, StatusUpdating)
}

// DeleteWhileUpdating is DeleteTable's refusal while the table is UPDATING.
func DeleteWhileUpdating(name, kind string) *ddberr.Error {
	switch kind {
	case UpdateIOPS:
		return ddberr.ResourceInUse(msgInUse + "Table: " + name + " is in the process of being updated.")
	case UpdateStream:
		return ddberr.ResourceInUse(msgInUse + "Cannot delete table while stream is being enabled/disabled.")
	}
	return InUse(name, StatusUpdating)
}

// DeleteAllocating is DynamoDB's refusal of deleting an index that is
// being created and still in resource allocation, before its backfill:
// the text is the one captured for a vector index (eu-west-2, 2026-08, a
// public conformance suite); the rule is the one DynamoDB documents for
// GSIs too (GlobalSecondaryIndexDescription.Backfilling, aws-sdk-go-v2
// service/dynamodb v1.74.0: an index being created can be deleted while
// Backfilling is true, not while it is false).
func DeleteAllocating(table, index string) *ddberr.Error {
	return ddberr.ResourceInUse(msgInUse + "Index creation is in resource allocation phase. " +
		"Retry deletion during backfilling phase or when the index is active. Table: " + table + " Index: " + index)
}

// InUse is the ResourceInUseException for the table name in the
// transitional state status.
func InUse(name, status string) *ddberr.Error {
	return ddberr.ResourceInUse(msgInUse + "Table is being " + statusVerb(status) + ": " + name)
}

// statusVerb is how DynamoDB's in-use messages name a table's state.
func statusVerb(status string) string {
	switch status {
	case StatusCreating:
		return "created"
	case StatusDeleting:
		return "deleted"
	}
	return "updated"
}

// IndexesChanging reports whether an index of the table (GSI or vector
// index) is being created, backfilled, updated or deleted: DynamoDB
// refuses DeleteTable then, even while the table itself is ACTIVE.
func IndexesChanging(d *wire.TableDescription) bool {
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != StatusActive || wire.Deref(g.Backfilling) {
			return true
		}
	}
	for _, v := range d.VectorIndexes {
		if v.IndexStatus != StatusActive || v.Backfilling != nil {
			return true
		}
	}
	return false
}

// GSIAllocating reports whether a GSI of d is being created; under an
// UPDATING table that is its resource allocation.
func GSIAllocating(d *wire.TableDescription) bool {
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == StatusCreating {
			return true
		}
	}
	return false
}
