package engine

import "github.com/kura-db/kura/internal/ddberr"

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
