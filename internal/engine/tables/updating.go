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

// Admit decides whether an UpdateTable (in, with flags f) may change the
// table name now: its status, the kind of update an UPDATING table is
// going through, and its stored definition d. nil to go ahead; else the
// refusal: an online index change while an index is in resource
// allocation first, then what AdmitWhileUpdating refuses, then a table
// CREATING or DELETING.
func Admit(name, status, kind string, d *wire.TableDescription, in *wire.UpdateTableInput, f UpdateFlags, ix Indexes) *ddberr.Error {
	switch status {
	case StatusActive:
		return nil
	case StatusUpdating:
		if err := indexChangeWhileAllocating(name, kind, d, in, ix); err != nil {
			return err
		}
		return AdmitWhileUpdating(name, kind, f)
	}
	return InUse(name, status)
}

// indexChangeWhileAllocating answers an online index change (a GSI
// created or deleted, a vector index update) made while a new GSI or
// vector index is in resource allocation (the table UPDATING for it):
// deleting that index is refused in its own words, any other online index
// change by the one-online-index limit (same suite), rather than as a
// change to an UPDATING table. nil: no such change, or no allocation.
func indexChangeWhileAllocating(name, kind string, d *wire.TableDescription, in *wire.UpdateTableInput, ix Indexes) *ddberr.Error {
	if kind != "" || !GSIAllocating(d) && !ix.VectorBuilding(d) {
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
		n := wire.Deref(online[0].Delete.IndexName)
		for _, g := range d.GlobalSecondaryIndexes {
			if wire.Deref(g.IndexName) == n && g.IndexStatus == StatusCreating {
				return DeleteAllocating(name, n)
			}
		}
	case len(online) == 0 && len(in.VectorIndexUpdates) == 1:
		if err := ix.VectorDeleteAllocating(d, name, in.VectorIndexUpdates[0].Delete); err != nil {
			return err
		}
	}
	return ddberr.LimitExceeded(MsgOnlineIndexLimit)
}

// CheckDelete decides whether DeleteTable may delete the table name now
// (its status, the kind of update an UPDATING table is going through,
// its definition d): nil to go ahead, else the refusal in DynamoDB's
// order.
func CheckDelete(name, status, kind string, d *wire.TableDescription) *ddberr.Error {
	if status == StatusCreating || status == StatusDeleting {
		return InUse(name, status)
	}
	if IndexesChanging(d) {
		return ddberr.ResourceInUse(msgInUse + "Cannot delete table while indexes are being created, updated, or deleted.")
	}
	if status == StatusUpdating {
		return DeleteWhileUpdating(name, kind)
	}
	if wire.Deref(d.DeletionProtectionEnabled) {
		return ddberr.Validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	return nil
}

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
