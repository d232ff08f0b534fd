package engine

import (
	"context"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/tags"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/wire"
)

func TestCtlPersistencePebble(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*pebble.Store, *Engine) {
		st, err := pebble.Open(dir, pebble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		e, err := Open(st, Config{Sync: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Logf("Open took %v", d)
		}
		return st, e
	}
	st, e := open()
	in := ctlPPR("keep")
	in.Tags = []wire.Tag{{Key: cpPtr("k"), Value: cpPtr("v")}}
	if _, err := e.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(ctx, ctlPPR("gone")); err != nil {
		t.Fatal(err)
	}
	keep, _ := e.lookupTable("keep")
	gone, _ := e.lookupTable("gone")
	// Items of the table to delete: a purge must remove them.
	if err := e.commit(true, func(txn storage.Txn) error {
		for i := 0; i < 1200; i++ {
			k := append(itemPrefix(gone.ID), byte(i>>8), byte(i))
			if err := txn.Set(k, []byte("x")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.addStats(keep, 7, 70)
	if _, err := e.UpdateContinuousBackups(ctx, &wire.UpdateContinuousBackupsInput{TableName: cpPtr("keep"),
		PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: cpPtr(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: cpPtr("gone")}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, e = open()
	defer st.Close()
	defer e.Close()
	k2, ok := e.lookupTable("keep")
	if !ok || k2.ID != keep.ID || k2.stats.items.Load() != 7 || k2.stats.bytes.Load() != 70 {
		t.Fatalf("reloaded keep: %+v", k2)
	}
	if _, ok := e.lookupTable("gone"); ok {
		t.Fatal("deleted table came back")
	}
	tags, err := e.ListTagsOfResource(ctx, &wire.ListTagsOfResourceInput{ResourceArn: k2.Desc.TableArn})
	if err != nil || len(tags.Tags) != 1 || *tags.Tags[0].Key != "k" {
		t.Fatalf("tags: %v %v", tags, err)
	}
	cb, err := e.DescribeContinuousBackups(ctx, &wire.DescribeContinuousBackupsInput{TableName: cpPtr("keep")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != "ENABLED" {
		t.Fatalf("pitr: %v", err)
	}
	out, err := e.CreateTable(ctx, ctlPPR("gone"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := e.lookupTable("gone"); n.ID <= gone.ID || *out.TableDescription.ItemCount != 0 {
		t.Fatal("table ID reused")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap, _ := st.NewSnapshot()
		it, _ := snap.NewIterator(storage.IterOptions{Lower: itemPrefix(gone.ID), Upper: itemPrefix(gone.ID + 1)})
		left := it.Next()
		it.Close()
		snap.Close()
		if !left {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("items of the deleted table were not purged")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCtlUpdateTagsMisc(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	in := ctlPPR("tbl")
	in.BillingMode = ""
	in.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](5), WriteCapacityUnits: cpPtr[int64](5)}
	if _, err := e.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	name := cpPtr("tbl")
	_, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name})
	ctlWantErr(t, err, "ValidationException", "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, ProvisionedThroughput: in.ProvisionedThroughput})
	ctlWantErr(t, err, "ValidationException", "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, TableClass: "STANDARD", DeletionProtectionEnabled: cpPtr(true)})
	ctlWantErr(t, err, "ValidationException", ctlIP+"TableClass modification must be the only operation in the request")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, StreamSpecification: &wire.StreamSpecification{StreamEnabled: cpPtr(false)}})
	ctlWantErr(t, err, "ValidationException", "Table has no stream to disable: TableName: tbl")
	up, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, ProvisionedThroughput: &wire.ProvisionedThroughput{ReadCapacityUnits: cpPtr[int64](10), WriteCapacityUnits: cpPtr[int64](2)}})
	// The response shows the figures from before the change (the decrease
	// time already set); DescribeTable the new ones.
	if err != nil || up.TableDescription.TableStatus != StatusUpdating || *up.TableDescription.ProvisionedThroughput.NumberOfDecreasesToday != 0 ||
		*up.TableDescription.ProvisionedThroughput.ReadCapacityUnits != 5 || up.TableDescription.ProvisionedThroughput.LastDecreaseDateTime == nil {
		t.Fatalf("update pt: %v %+v", err, up.TableDescription.ProvisionedThroughput)
	}
	if d, _ := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: name}); *d.Table.ProvisionedThroughput.NumberOfDecreasesToday != 1 ||
		*d.Table.ProvisionedThroughput.ReadCapacityUnits != 10 || *d.Table.WarmThroughput.ReadUnitsPerSecond != 10 || *d.Table.WarmThroughput.WriteUnitsPerSecond != 5 {
		t.Fatalf("described after the update: %+v %+v", d.Table.ProvisionedThroughput, d.Table.WarmThroughput)
	}
	up, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, BillingMode: BillingPayPerRequest})
	if err != nil || up.TableDescription.BillingModeSummary.BillingMode != BillingPayPerRequest || *up.TableDescription.ProvisionedThroughput.ReadCapacityUnits != 0 {
		t.Fatalf("switch billing: %v", err)
	}
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: name, ProvisionedThroughput: in.ProvisionedThroughput})
	ctlWantErr(t, err, "ValidationException", ctlIP+"Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("nope"), DeletionProtectionEnabled: cpPtr(true)})
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")

	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"
	_, err = e.TagResource(ctx, &wire.TagResourceInput{ResourceArn: cpPtr(arn)})
	ctlWantErr(t, err, "ValidationException", "Atleast one Tag needs to be provided as Input.")
	_, err = e.TagResource(ctx, &wire.TagResourceInput{ResourceArn: cpPtr("a:b:c:d:e:f/g"), Tags: []wire.Tag{}})
	ctlWantErr(t, err, "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:': a:b:c:d:e:f/g")
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/other"
	_, err = e.TagResource(ctx, &wire.TagResourceInput{ResourceArn: cpPtr(missing), Tags: []wire.Tag{{Key: cpPtr("a"), Value: cpPtr("b")}}})
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+missing+" not found")
	_, err = e.TagResource(ctx, &wire.TagResourceInput{ResourceArn: cpPtr(arn), Tags: []wire.Tag{{Key: cpPtr("aws:x"), Value: cpPtr("b")}}})
	ctlWantErr(t, err, "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x")
	var many []wire.Tag
	for i := 0; i < 51; i++ {
		many = append(many, wire.Tag{Key: cpPtr(string(rune('A'+i%26)) + string(rune('a'+i/26))), Value: cpPtr("v")})
	}
	_, err = e.TagResource(ctx, &wire.TagResourceInput{ResourceArn: cpPtr(arn), Tags: many})
	ctlWantErr(t, err, "ValidationException", tags.MsgTooMany)
	if _, err := e.TagResource(ctx, &wire.TagResourceInput{ResourceArn: cpPtr(arn), Tags: many[:2]}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UntagResource(ctx, &wire.UntagResourceInput{ResourceArn: cpPtr(arn), TagKeys: []string{*many[0].Key}}); err != nil {
		t.Fatal(err)
	}
	lt, _ := e.ListTagsOfResource(ctx, &wire.ListTagsOfResourceInput{ResourceArn: cpPtr(arn)})
	if len(lt.Tags) != 1 || *lt.Tags[0].Key != *many[1].Key {
		t.Fatalf("tags %v", lt.Tags)
	}

	lim, _ := e.DescribeLimits(ctx, &wire.DescribeLimitsInput{})
	if *lim.AccountMaxReadCapacityUnits != 80000 || *lim.TableMaxWriteCapacityUnits != 40000 {
		t.Fatal("limits")
	}
	ep, _ := e.DescribeEndpoints(ctx, &wire.DescribeEndpointsInput{})
	if *ep.Endpoints[0].Address != "dynamodb.us-east-1.amazonaws.com" || *ep.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Fatal("endpoints")
	}
	ttl, err := e.DescribeTimeToLive(ctx, &wire.DescribeTimeToLiveInput{TableName: name})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != "DISABLED" {
		t.Fatal("ttl")
	}
	_, err = e.UpdateContinuousBackups(ctx, &wire.UpdateContinuousBackupsInput{TableName: name,
		PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: cpPtr(false), RecoveryPeriodInDays: cpPtr[int32](3)}})
	ctlWantErr(t, err, "ValidationException", "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	_, err = e.DescribeContinuousBackups(ctx, &wire.DescribeContinuousBackupsInput{TableName: cpPtr("nope")})
	ctlWantErr(t, err, "TableNotFoundException", "Table not found: nope")
}
