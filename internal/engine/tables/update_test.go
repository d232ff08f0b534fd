package tables

import (
	"fmt"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// provisioned is the definition of a PROVISIONED table of r/w capacity
// with one GSI "g" of the same.
func provisioned(r, w int64, now time.Time) wire.TableDescription {
	in := ppr()
	in.BillingMode, in.ProvisionedThroughput = "", pt(r, w)
	in.AttributeDefinitions = defs("pk", "S", "g", "S")
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: wire.Ptr("g"), KeySchema: ks("g"),
		Projection: &wire.Projection{ProjectionType: ProjectAll}, ProvisionedThroughput: pt(r, w)}}
	return acct.NewDescription(in, BillingProvisioned, now)
}

func update(t *testing.T, in *wire.UpdateTableInput, now time.Time) Update {
	t.Helper()
	in.TableName = wire.Ptr("tbl")
	f, err := ValidateUpdate(in, noIndexes{})
	if err != nil {
		t.Fatalf("ValidateUpdate: %v", err)
	}
	return Update{In: in, Flags: f, Name: "tbl", ARN: acct.TableARN("tbl"), Billing: BillingProvisioned, Now: now}
}

// TestValidateUpdate: the request on its own, before the table is looked
// up.
func TestValidateUpdate(t *testing.T) {
	_, err := ValidateUpdate(&wire.UpdateTableInput{TableName: wire.Ptr("tbl")}, noIndexes{})
	wantErr(t, err, "ValidationException", "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, "+
		"SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, "+
		"OnDemandThroughput, WarmThroughput or TableClass is required")
	cases := []struct {
		in       *wire.UpdateTableInput
		typ, msg string
	}{
		{&wire.UpdateTableInput{TableClass: "STANDARD", DeletionProtectionEnabled: wire.Ptr(true)},
			"ValidationException", ip + "TableClass modification must be the only operation in the request"},
		{&wire.UpdateTableInput{BillingMode: BillingProvisioned},
			"ValidationException", ip + "ProvisionedThroughput must be specified when BillingMode is PROVISIONED"},
		{&wire.UpdateTableInput{ProvisionedThroughput: pt(1, 1), StreamSpecification: &wire.StreamSpecification{StreamEnabled: wire.Ptr(false)}},
			"ValidationException", ip + "You cannot modify stream status while updating table IOPS"},
		{&wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{
			{Delete: &wire.DeleteGlobalSecondaryIndexAction{IndexName: wire.Ptr("a")}},
			{Delete: &wire.DeleteGlobalSecondaryIndexAction{IndexName: wire.Ptr("b")}}}},
			"LimitExceededException", MsgOnlineIndexLimit},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := ValidateUpdate(c.in, noIndexes{})
			wantErr(t, err, c.typ, c.msg)
		})
	}
}

// TestApplyTableThroughput: an unchanged capacity is refused, decreases
// are counted and dated, and the day's budget is kept.
func TestApplyTableThroughput(t *testing.T) {
	now := time.Date(2026, 10, 9, 0, 21, 34, 0, time.UTC)
	d := provisioned(10, 10, now)
	var classes []time.Time
	_, _, err := acct.ApplyTable(&d, &classes, update(t, &wire.UpdateTableInput{ProvisionedThroughput: pt(10, 10)}, now))
	wantErr(t, err, "ValidationException", "The provisioned throughput for the table will not change. The requested value equals the current value. "+
		"Current ReadCapacityUnits provisioned for the table: 10. Requested ReadCapacityUnits: 10. "+
		"Current WriteCapacityUnits provisioned for the table: 10. Requested WriteCapacityUnits: 10. "+
		"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	for _, r := range []int64{9, 8, 7, 6} {
		target, transitional, err := acct.ApplyTable(&d, &classes, update(t, &wire.UpdateTableInput{ProvisionedThroughput: pt(r, 10)}, now))
		if err != nil || target != BillingProvisioned || !transitional {
			t.Fatalf("decrease to %d: %s %v %v", r, target, transitional, err)
		}
	}
	if n := wire.Deref(d.ProvisionedThroughput.NumberOfDecreasesToday); n != 4 {
		t.Fatalf("NumberOfDecreasesToday %d", n)
	}
	_, _, err = acct.ApplyTable(&d, &classes, update(t, &wire.UpdateTableInput{ProvisionedThroughput: pt(5, 10)}, now))
	wantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. "+
		"After the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. "+
		"Number of decreases today: 4. Last decrease at Friday, October 9, 2026 at 12:21:34 AM Coordinated Universal Time. "+
		"Next decrease can be made at Friday, October 9, 2026 at 1:21:34 AM Coordinated Universal Time")
	// A new UTC day counts from 0 again.
	if n := wire.Deref(DescribeDecreases(d.ProvisionedThroughput, now.Add(24*time.Hour)).NumberOfDecreasesToday); n != 0 {
		t.Fatalf("NumberOfDecreasesToday the next day %d", n)
	}
	// Warm throughput follows the highest capacity the table had.
	if _, _, err := acct.ApplyTable(&d, &classes, update(t, &wire.UpdateTableInput{ProvisionedThroughput: pt(20, 10)}, now)); err != nil {
		t.Fatal(err)
	}
	if r := wire.Deref(d.WarmThroughput.ReadUnitsPerSecond); r != 20 {
		t.Fatalf("warm read %d", r)
	}
}

// TestApplyTableBillingSwitch: a switch to PAY_PER_REQUEST zeroes the
// capacity of the table and its GSIs; one back to PROVISIONED needs every
// GSI's capacity.
func TestApplyTableBillingSwitch(t *testing.T) {
	now := time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC)
	d := provisioned(10, 10, now)
	var classes []time.Time
	target, transitional, err := acct.ApplyTable(&d, &classes, update(t, &wire.UpdateTableInput{BillingMode: BillingPayPerRequest}, now))
	if err != nil || target != BillingPayPerRequest || !transitional {
		t.Fatalf("switch: %s %v %v", target, transitional, err)
	}
	if wire.Deref(d.ProvisionedThroughput.ReadCapacityUnits) != 0 || wire.Deref(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits) != 0 ||
		d.BillingModeSummary.BillingMode != BillingPayPerRequest || !d.BillingModeSummary.LastUpdateToPayPerRequestDateTime.Equal(now) {
		t.Fatalf("after the switch: %+v %+v", d.ProvisionedThroughput, d.BillingModeSummary)
	}
	u := update(t, &wire.UpdateTableInput{BillingMode: BillingProvisioned, ProvisionedThroughput: pt(1, 1)}, now)
	u.Billing = BillingPayPerRequest
	_, _, err = acct.ApplyTable(&d, &classes, u)
	wantErr(t, err, "ValidationException", ip+"ProvisionedThroughput must be specified for index: g")
}

// TestClassChange: two table class changes in 30 days, then refused, even
// for the current class.
func TestClassChange(t *testing.T) {
	now := time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC)
	var d wire.TableDescription
	var changes []time.Time
	for _, c := range []string{"STANDARD_INFREQUENT_ACCESS", "STANDARD"} {
		var err *ddberr.Error
		if changes, err = ClassChange(&d, changes, c, now); err != nil {
			t.Fatal(err)
		}
	}
	const msg = "Subscriber limit exceeded: Updates to TableClass are limited to 2 times in 30 day(s)."
	_, err := ClassChange(&d, changes, "STANDARD", now)
	wantErr(t, err, "LimitExceededException", msg)
	changes, err = ClassChange(&d, changes, "STANDARD_INFREQUENT_ACCESS", now.Add(30*24*time.Hour))
	if err != nil || ClassOf(&d) != "STANDARD_INFREQUENT_ACCESS" || len(changes) != 1 {
		t.Fatalf("after 30 days: %s %v %v", ClassOf(&d), changes, err)
	}
}

// TestWhileUpdating: what an UPDATING table admits, by the kind of update
// it is going through, and DeleteTable's refusals.
func TestWhileUpdating(t *testing.T) {
	const inUse = "Attempt to change a resource which is still in use: "
	f := UpdateFlags{Stream: true}
	wantErr(t, AdmitWhileUpdating("tbl", UpdateIOPS, f), "ResourceInUseException",
		inUse+"Can't enable or disable stream while table IOPS are being updated. Table: tbl")
	wantErr(t, AdmitWhileUpdating("tbl", UpdateStream, UpdateFlags{Class: true}), "ResourceInUseException",
		inUse+"Can't update table class when stream status is being updated. Table: tbl")
	wantErr(t, AdmitWhileUpdating("tbl", "", f), "ResourceInUseException", inUse+"Table is being updated: tbl")
	if err := AdmitWhileUpdating("tbl", UpdateIOPS, UpdateFlags{DP: true}); err != nil {
		t.Fatalf("deletion protection refused: %v", err)
	}
	wantErr(t, DeleteWhileUpdating("tbl", UpdateStream), "ResourceInUseException", inUse+"Cannot delete table while stream is being enabled/disabled.")
	wantErr(t, InUse("tbl", StatusCreating), "ResourceInUseException", inUse+"Table is being created: tbl")
	if Kind(UpdateFlags{PT: true}, false) != UpdateIOPS || Kind(UpdateFlags{}, true) != UpdateIOPS || Kind(UpdateFlags{Stream: true}, false) != UpdateStream {
		t.Fatal("Kind")
	}
	d := provisioned(1, 1, time.Now())
	if IndexesChanging(&d) {
		t.Fatal("ACTIVE indexes reported changing")
	}
	d.GlobalSecondaryIndexes[0].Backfilling = wire.Ptr(true)
	if !IndexesChanging(&d) {
		t.Fatal("a backfilling GSI not reported changing")
	}
}

// TestApplyGSIUpdates: a new GSI's definitions, the GSI limit, deleting
// and updating one.
func TestApplyGSIUpdates(t *testing.T) {
	now := time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC)
	d := provisioned(5, 5, now)
	create := &wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Create: &wire.CreateGlobalSecondaryIndexAction{
		IndexName: wire.Ptr("h"), KeySchema: ks("h"), Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}, ProvisionedThroughput: pt(1, 1)}}}}
	_, _, err := acct.ApplyGSIUpdates(&d, "tbl", BillingProvisioned, true, create, now, noIndexes{})
	wantErr(t, err, "ValidationException", ip+"AttributeDefinitions is not specified for index: h")
	create.AttributeDefinitions = defs("h", "N")
	changed, created, err := acct.ApplyGSIUpdates(&d, "tbl", BillingProvisioned, true, create, now, noIndexes{})
	if err != nil || !changed || created != "h" {
		t.Fatalf("create: %v %q %v", changed, created, err)
	}
	g := d.GlobalSecondaryIndexes[1]
	if g.IndexStatus != StatusCreating || !wire.Deref(g.Backfilling) || wire.Deref(g.IndexArn) != acct.TableARN("tbl")+"/index/h" {
		t.Fatalf("new GSI %+v", g)
	}
	_, _, err = acct.ApplyGSIUpdates(&d, "tbl", BillingProvisioned, true, create, now, noIndexes{})
	wantErr(t, err, "ValidationException", "Attempting to create an index which already exists")

	upd := &wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Update: &wire.UpdateGlobalSecondaryIndexAction{
		IndexName: wire.Ptr("nope"), ProvisionedThroughput: pt(2, 2)}}}}
	_, _, err = acct.ApplyGSIUpdates(&d, "tbl", BillingProvisioned, true, upd, now, noIndexes{})
	wantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Index nope for table tbl")
	upd.GlobalSecondaryIndexUpdates[0].Update.IndexName = wire.Ptr("g")
	if _, _, err := acct.ApplyGSIUpdates(&d, "tbl", BillingProvisioned, true, upd, now, noIndexes{}); err != nil {
		t.Fatal(err)
	}
	if r := wire.Deref(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits); r != 2 {
		t.Fatalf("GSI read capacity %d", r)
	}

	del := &wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Delete: &wire.DeleteGlobalSecondaryIndexAction{IndexName: wire.Ptr("g")}}}}
	if changed, _, err := acct.ApplyGSIUpdates(&d, "tbl", BillingProvisioned, true, del, now, noIndexes{}); err != nil || !changed ||
		d.GlobalSecondaryIndexes[0].IndexStatus != StatusDeleting {
		t.Fatalf("delete: %v %v %+v", changed, err, d.GlobalSecondaryIndexes[0])
	}

	full := wire.TableDescription{TableArn: wire.Ptr(acct.TableARN("tbl"))}
	for i := range MaxGSIs {
		full.GlobalSecondaryIndexes = append(full.GlobalSecondaryIndexes, wire.GlobalSecondaryIndexDescription{IndexName: wire.Ptr(fmt.Sprint("g", i))})
	}
	_, _, err = acct.ApplyGSIUpdates(&full, "tbl", BillingProvisioned, true, create, now, noIndexes{})
	wantErr(t, err, "LimitExceededException", "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20")
}

// TestReplicaUpdatesFault: ReplicaUpdates are refused, the local region's
// in DynamoDB's words.
func TestReplicaUpdatesFault(t *testing.T) {
	local := []wire.ReplicationGroupUpdate{{Create: &wire.CreateReplicationGroupMemberAction{RegionName: wire.Ptr("us-east-1")}}}
	wantErr(t, acct.ReplicaUpdatesFault(local, ""), "ValidationException",
		"Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
	other := []wire.ReplicationGroupUpdate{{Create: &wire.CreateReplicationGroupMemberAction{RegionName: wire.Ptr("eu-west-1")}}}
	wantErr(t, acct.ReplicaUpdatesFault(other, "no global tables here"), "ValidationException", "no global tables here")
	wantErr(t, acct.ReplicaUpdatesFault(other, ""), "ValidationException",
		"ReplicaUpdates are not supported: Kura serves a single region (us-east-1) and has no global tables")
	if acct.ReplicaUpdatesFault(nil, "") != nil {
		t.Fatal("no ReplicaUpdates refused")
	}
}

// TestDeletedDescription: DeleteTable shows no schema, indexes or
// creation time.
func TestDeletedDescription(t *testing.T) {
	d := provisioned(1, 1, time.Now())
	got := DeletedDescription(&d)
	if got.KeySchema != nil || got.AttributeDefinitions != nil || got.GlobalSecondaryIndexes != nil || got.CreationDateTime != nil ||
		wire.Deref(got.TableArn) != wire.Deref(d.TableArn) || got.ProvisionedThroughput != d.ProvisionedThroughput {
		t.Fatalf("%+v", got)
	}
}
