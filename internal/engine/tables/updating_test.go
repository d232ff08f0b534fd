package tables

import (
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

func wantRefusal(t *testing.T, what string, err *ddberr.Error, typ, msg string) {
	t.Helper()
	if typ == "" {
		if err != nil {
			t.Errorf("%s: %v, want none", what, err)
		}
		return
	}
	if err == nil || err.Type != typ || err.Message != msg {
		t.Errorf("%s: %v, want %s %q", what, err, typ, msg)
	}
}

// TestAdmit: what an UpdateTable may do by the table's status; while a
// GSI is in resource allocation, deleting it is refused in its own words
// and another online index change by the one-index limit, before the
// refusal of a change to an UPDATING table.
func TestAdmit(t *testing.T) {
	allocating := &wire.TableDescription{GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{
		{IndexName: wire.Ptr("gsi"), IndexStatus: StatusCreating}}}
	del := &wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{
		{Delete: &wire.DeleteGlobalSecondaryIndexAction{IndexName: wire.Ptr("gsi")}}}}
	create := &wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{
		{Create: &wire.CreateGlobalSecondaryIndexAction{IndexName: wire.Ptr("other")}}}}
	plain := &wire.UpdateTableInput{}
	for _, tc := range []struct {
		what, status, kind string
		d                  *wire.TableDescription
		in                 *wire.UpdateTableInput
		f                  UpdateFlags
		typ, msg           string
	}{
		{"ACTIVE", StatusActive, "", allocating, del, UpdateFlags{}, "", ""},
		{"CREATING", StatusCreating, "", &wire.TableDescription{}, plain, UpdateFlags{PT: true}, "ResourceInUseException", msgInUse + "Table is being created: tbl"},
		{"DELETING", StatusDeleting, "", &wire.TableDescription{}, plain, UpdateFlags{PT: true}, "ResourceInUseException", msgInUse + "Table is being deleted: tbl"},
		{"deleting the allocating GSI", StatusUpdating, "", allocating, del, UpdateFlags{}, "ResourceInUseException", msgInUse + "Index creation is in resource allocation phase. Retry deletion during backfilling phase or when the index is active. Table: tbl Index: gsi"},
		{"another GSI while one allocates", StatusUpdating, "", allocating, create, UpdateFlags{}, "LimitExceededException", MsgOnlineIndexLimit},
		{"throughput while a GSI allocates", StatusUpdating, "", allocating, plain, UpdateFlags{PT: true}, "ResourceInUseException", msgInUse + "Table is being updated: tbl"},
		{"deletion protection during IOPS", StatusUpdating, UpdateIOPS, &wire.TableDescription{}, plain, UpdateFlags{DP: true}, "", ""},
		{"throughput during IOPS", StatusUpdating, UpdateIOPS, allocating, del, UpdateFlags{PT: true}, "ResourceInUseException", msgInUse + "Table IOPS are currently being updated. Table: tbl"},
	} {
		wantRefusal(t, tc.what, Admit("tbl", tc.status, tc.kind, tc.d, tc.in, tc.f, noIndexes{}), tc.typ, tc.msg)
	}
}

// TestCheckDelete: DeleteTable's refusals in DynamoDB's order.
func TestCheckDelete(t *testing.T) {
	changing := &wire.TableDescription{GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{
		{IndexName: wire.Ptr("gsi"), IndexStatus: StatusCreating}}}
	protected := &wire.TableDescription{DeletionProtectionEnabled: wire.Ptr(true)}
	for _, tc := range []struct {
		what, status, kind string
		d                  *wire.TableDescription
		typ, msg           string
	}{
		{"ACTIVE", StatusActive, "", &wire.TableDescription{}, "", ""},
		{"CREATING", StatusCreating, "", changing, "ResourceInUseException", msgInUse + "Table is being created: tbl"},
		{"indexes changing", StatusUpdating, UpdateIOPS, changing, "ResourceInUseException", msgInUse + "Cannot delete table while indexes are being created, updated, or deleted."},
		{"a stream changing", StatusUpdating, UpdateStream, protected, "ResourceInUseException", msgInUse + "Cannot delete table while stream is being enabled/disabled."},
		{"protected", StatusActive, "", protected, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."},
	} {
		wantRefusal(t, tc.what, CheckDelete("tbl", tc.status, tc.kind, tc.d), tc.typ, tc.msg)
	}
}
