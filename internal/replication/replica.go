package replication

import (
	"context"
	"reflect"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Texts of UpdateTable's ReplicaUpdates refusals. The local-region one and
// replicaTableExists are DynamoDB's (the first quoted by ScyllaDB's
// Alternator tests, run against DynamoDB; the second, "a the" included, as
// DynamoDB answers CreateReplicationGroupMemberAction for a region that
// already has a table of the name); so are msgOneChange, msgMixedActions,
// msgCombined, msgNotMember's and msgInUseReplicas, as the ack-api-quirks
// lab recorded them from DynamoDB (October 2026: DDB-TABLE-203, 223, 224,
// 227, 265). The others are Kura's: no capture of DynamoDB's words was
// found.
const (
	msgLocalRegion   = "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
	msgOneChange     = "Update table operation with more than one create or delete replica actions not allowed"
	msgMixedActions  = "Update table operation with more than one type of replica actions not allowed."
	msgCombined      = "One or more parameter values were invalid: Replica modification must be the only operation in the request"
	msgNeedsStream   = "A replica can be added only to a table with DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES."
	msgInUseReplicas = "The resource which you are attempting to change is in use."
)

func msgUnknownRegion(region string) string {
	return "Region '" + region + "' is not a region this Kura serves (--regions)."
}

func msgReplicaTableExists(table string) string {
	return "Failed to create a the new replica of table with name: '" + table + "' because one or more replicas already existed as tables."
}

// msgNotMember refuses an Update or Delete of a region that has no replica
// of the table.
func msgNotMember(region string) string {
	return "Update global table operation failed because one or more replicas were not part of the global table. " +
		"Please retry the request without these replicas: [" + region + "]."
}

// updateReplicas answers an UpdateTable with ReplicaUpdates in region: one
// replica created, updated or deleted, after DynamoDB's checks (the only
// operation of the request first, DDB-TABLE-224; repeats of one element
// count once, DDB-TABLE-265).
func (g *Group) updateReplicas(ctx context.Context, region string, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
	if g.strongRequest(in) {
		if combined(in) {
			return nil, ddberr.Validation(msgCombined)
		}
		return g.updateStrong(ctx, region, in)
	}
	if in.MultiRegionConsistency != "" && !hasCreate(in) {
		return nil, ddberr.Validation(msgNeedsCreate)
	}
	if combined(in) {
		return nil, ddberr.Validation(msgCombined)
	}
	for _, u := range in.ReplicaUpdates[1:] {
		if !reflect.DeepEqual(u, in.ReplicaUpdates[0]) {
			return nil, ddberr.Validation(msgOneChange)
		}
	}
	u := in.ReplicaUpdates[0]
	target, actions := actionOf(u)
	if actions > 1 {
		return nil, ddberr.Validation(msgMixedActions)
	}
	if target == nil {
		return nil, ddberr.Validation(msgNoActions)
	}
	if *target == region && u.Disassociate == nil {
		// An Update of the local region too: DynamoDB's older wording of
		// this refusal named it ("Cannot add, delete, or update the local
		// region", quoted by Terraform's AWS provider).
		return nil, ddberr.Validation(msgLocalRegion)
	}
	if g.cfg.Regions[*target] == nil {
		return nil, ddberr.Validation(msgUnknownRegion(*target))
	}
	desc, err := g.cfg.Regions[region].DescribeTable(ctx, &wire.DescribeTableInput{TableName: in.TableName})
	if err != nil {
		return nil, err
	}
	d := desc.Table
	switch {
	case u.Create != nil:
		err = g.createReplica(ctx, region, d, u.Create)
	case u.Delete != nil:
		if err = g.checkProtection(ctx, *target, *d.TableName); err == nil {
			err = g.deleteReplica(region, *d.TableName, *target)
		}
	case u.Update != nil:
		if err = g.updateReplica(ctx, region, *target, d, u.Update); err == nil {
			g.describe(region, d)
			showUpdating(d, *target)
			return &wire.UpdateTableOutput{TableDescription: d}, nil
		}
	default:
		err = ddberr.Validation("Kura does not support ReplicaUpdates Disassociate: its global tables are of one account")
	}
	if err != nil {
		return nil, err
	}
	g.describe(region, d)
	return &wire.UpdateTableOutput{TableDescription: d}, nil
}

// showUpdating makes the description d, an UpdateTable's answer, show the
// replica in target UPDATING, and so the table, however short the update
// lasts (Config.UpdateDelay).
func showUpdating(d *wire.TableDescription, target string) {
	d.TableStatus = "UPDATING"
	for i := range d.Replicas {
		if deref(d.Replicas[i].RegionName) == target {
			d.Replicas[i].ReplicaStatus = statusUpdating
		}
	}
}

// actionOf is the region an element of ReplicaUpdates names and how many
// actions it holds.
func actionOf(u wire.ReplicationGroupUpdate) (region *string, actions int) {
	if u.Create != nil {
		region, actions = u.Create.RegionName, actions+1
	}
	if u.Delete != nil {
		region, actions = u.Delete.RegionName, actions+1
	}
	if u.Update != nil {
		region, actions = u.Update.RegionName, actions+1
	}
	if u.Disassociate != nil {
		region, actions = u.Disassociate.RegionName, actions+1
	}
	return region, actions
}

// combined reports whether in changes anything besides ReplicaUpdates
// (with their MultiRegionConsistency and GlobalTableWitnessUpdates).
func combined(in *wire.UpdateTableInput) bool {
	return len(in.AttributeDefinitions) > 0 || in.BillingMode != "" || in.DeletionProtectionEnabled != nil ||
		len(in.GlobalSecondaryIndexUpdates) > 0 || in.OnDemandThroughput != nil || in.ProvisionedThroughput != nil ||
		in.SSESpecification != nil || in.StreamSpecification != nil || in.TableClass != "" ||
		len(in.VectorIndexUpdates) > 0 || in.WarmThroughput != nil
}

// busy refuses a replica change while another is under way. g.mu is held.
func (g *Group) busy(t *tableState) error {
	g.settle(t)
	for _, r := range t.Replicas {
		if r.Status != statusActive {
			return ddberr.ResourceInUse(msgInUseReplicas)
		}
	}
	return nil
}

// createReplica adds a replica of source's table d in a.RegionName: the
// table is created there with d's schema and a stream, writes made in
// source from now on are queued for it, and a backfill copies the items
// there now. The replica is CREATING until the copy has been applied.
func (g *Group) createReplica(ctx context.Context, source string, d *wire.TableDescription, a *wire.CreateReplicationGroupMemberAction) error {
	target, name := *a.RegionName, *d.TableName
	if d.TableStatus != "ACTIVE" {
		return ddberr.ResourceInUse(msgInUseReplicas)
	}
	if d.StreamSpecification == nil || d.StreamSpecification.StreamViewType != "NEW_AND_OLD_IMAGES" {
		return ddberr.Validation(msgNeedsStream)
	}
	managed := g.cfg.Regions[source].AWSManagedKeyARN()
	if err := checkReplicaKey(d, a, managed); err != nil {
		return err
	}
	g.mu.Lock()
	t := g.tables[name]
	if t != nil {
		if err := g.busy(t); err != nil {
			g.mu.Unlock()
			return err
		}
	}
	g.mu.Unlock()
	if _, err := g.cfg.Regions[target].DescribeTable(ctx, &wire.DescribeTableInput{TableName: &name}); err == nil {
		return ddberr.Validation(msgReplicaTableExists(name))
	}
	if _, err := g.cfg.Regions[target].CreateTable(ctx, replicaTable(d, a)); err != nil {
		return err
	}
	settings := createSettings(d, a)
	settings.KMSMasterKeyArn = kmsKeyOf(ctx, g.cfg.Regions[target], name)
	if err := g.copyTTL(ctx, source, target, name); err != nil {
		return err
	}

	g.mu.Lock()
	fresh := g.tables[name] == nil
	if fresh {
		t = &tableState{Name: name, Replicas: []replicaState{{Region: source, Status: statusActive}}}
	} else {
		t = g.tables[name]
	}
	if fresh {
		t.Replicas[0].settingsOf().KMSMasterKeyArn = kmsKeyOf(ctx, g.cfg.Regions[source], name)
	}
	t.Replicas = append(t.Replicas, replicaState{Region: target, Status: statusCreating, Settings: settings})
	g.tables[name] = t
	err := g.saveTable(name, t)
	g.mu.Unlock()
	if err != nil {
		return err
	}
	if fresh {
		// The source's stream so far is in its items, which the backfill
		// copies: its reader starts at the end.
		if _, err := g.readStream(ctx, &worker{table: name, region: source}, true); err != nil {
			return err
		}
	}
	g.mu.Lock()
	g.startWorker(name, source)
	g.startWorker(name, target)
	g.goBackfill(name, target, source)
	g.mu.Unlock()
	return nil
}

// Texts of a replica's key refusals: DynamoDB's (ack-api-quirks lab,
// October 2026: DDB-TABLE-309, 313).
const msgMixedKeys = "One or more parameter values were invalid: All replica keys must either be Customer Managed CMK or AWS Managed CMK."

// checkReplicaKey applies DynamoDB's rules for a new replica's KMS key
// (a.KMSMasterKeyId) to a replica of the table d describes, whose
// region's AWS managed key is managed: a table of the AWS owned key takes
// none, one of a customer managed key needs one for each replica, and the
// keys are all customer managed or all AWS managed.
func checkReplicaKey(d *wire.TableDescription, a *wire.CreateReplicationGroupMemberAction, managed string) error {
	kms := d.SSEDescription != nil && d.SSEDescription.SSEType == "KMS"
	key := deref(a.KMSMasterKeyId)
	switch {
	case !kms && a.KMSMasterKeyId != nil:
		return ddberr.Validation(msgPerReplicaKMS)
	case !kms:
		return nil
	}
	cmk := deref(d.SSEDescription.KMSMasterKeyArn) != managed
	switch {
	case cmk && a.KMSMasterKeyId == nil:
		return ddberr.Validation(msgPerReplicaKMS)
	case a.KMSMasterKeyId != nil && cmk == (key == "alias/aws/dynamodb"):
		return ddberr.Validation(msgMixedKeys)
	}
	return nil
}

// copyTTL gives target's new replica of table the TTL of source's: TTL
// is the global table's (DDB-TABLE-230).
func (g *Group) copyTTL(ctx context.Context, source, target, table string) error {
	ttl, err := g.cfg.Regions[source].DescribeTimeToLive(ctx, &wire.DescribeTimeToLiveInput{TableName: &table})
	if err != nil {
		return err
	}
	d := ttl.TimeToLiveDescription
	if d == nil || d.TimeToLiveStatus != "ENABLED" && d.TimeToLiveStatus != "ENABLING" {
		return nil
	}
	_, err = g.cfg.Regions[target].UpdateTimeToLive(ctx, &wire.UpdateTimeToLiveInput{TableName: &table,
		TimeToLiveSpecification: &wire.TimeToLiveSpecification{Enabled: ptr(true), AttributeName: d.AttributeName}})
	return err
}

// replicaTable is the CreateTable of a replica of d: its keys, indexes,
// billing, class and a NEW_AND_OLD_IMAGES stream, with the replica's
// overrides.
func replicaTable(d *wire.TableDescription, a *wire.CreateReplicationGroupMemberAction) *wire.CreateTableInput {
	in := &wire.CreateTableInput{TableName: d.TableName, AttributeDefinitions: d.AttributeDefinitions, KeySchema: d.KeySchema,
		StreamSpecification: &wire.StreamSpecification{StreamEnabled: ptr(true), StreamViewType: "NEW_AND_OLD_IMAGES"},
		BillingMode:         "PAY_PER_REQUEST", OnDemandThroughput: d.OnDemandThroughput}
	provisioned := d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != "PAY_PER_REQUEST"
	if provisioned && d.ProvisionedThroughput != nil {
		in.BillingMode = "PROVISIONED"
		in.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: d.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: d.ProvisionedThroughput.WriteCapacityUnits}
		if o := a.ProvisionedThroughputOverride; o != nil && o.ReadCapacityUnits != nil {
			in.ProvisionedThroughput.ReadCapacityUnits = o.ReadCapacityUnits
		}
	}
	if o := a.OnDemandThroughputOverride; !provisioned && o != nil && o.MaxReadRequestUnits != nil {
		odt := wire.OnDemandThroughput{MaxReadRequestUnits: o.MaxReadRequestUnits}
		if d.OnDemandThroughput != nil {
			odt.MaxWriteRequestUnits = d.OnDemandThroughput.MaxWriteRequestUnits
		}
		in.OnDemandThroughput = &odt
	}
	if d.TableClassSummary != nil {
		in.TableClass = d.TableClassSummary.TableClass
	}
	if a.TableClassOverride != "" {
		in.TableClass = a.TableClassOverride
	}
	if d.SSEDescription != nil && d.SSEDescription.SSEType == "KMS" {
		// The replica's own key (checkReplicaKey), or its region's AWS
		// managed key for a table of the AWS managed key.
		in.SSESpecification = &wire.SSESpecification{Enabled: ptr(true), SSEType: "KMS", KMSMasterKeyId: a.KMSMasterKeyId}
	}
	overrides := createSettings(d, a)
	for _, gsi := range d.GlobalSecondaryIndexes {
		x := wire.GlobalSecondaryIndex{IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection, OnDemandThroughput: gsi.OnDemandThroughput}
		o := overrides.gsi(deref(gsi.IndexName))
		if provisioned && gsi.ProvisionedThroughput != nil {
			x.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: gsi.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: gsi.ProvisionedThroughput.WriteCapacityUnits}
			if o != nil && o.ReadCapacityUnits != nil {
				x.ProvisionedThroughput.ReadCapacityUnits = o.ReadCapacityUnits
			}
		}
		if !provisioned && o != nil && o.MaxReadRequestUnits != nil {
			odt := wire.OnDemandThroughput{MaxReadRequestUnits: o.MaxReadRequestUnits}
			if gsi.OnDemandThroughput != nil {
				odt.MaxWriteRequestUnits = gsi.OnDemandThroughput.MaxWriteRequestUnits
			}
			x.OnDemandThroughput = &odt
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, x)
	}
	for _, lsi := range d.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, wire.LocalSecondaryIndex{IndexName: lsi.IndexName, KeySchema: lsi.KeySchema, Projection: lsi.Projection})
	}
	return in
}

// goBackfill copies source's items into target's replica of table in the
// background, then makes the replica ACTIVE. The copies are stamped just
// before the copy began: any write the source's reader sends is later,
// and wins. g.mu is held.
func (g *Group) goBackfill(table, target, source string) {
	at := g.cfg.Now(source).Add(-time.Nanosecond).UnixNano()
	g.setProgress(table, target, 0)
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		for g.ctx.Err() == nil {
			err := g.backfill(table, target, source, at)
			if err == nil {
				return
			}
			if g.ctx.Err() == nil {
				g.cfg.Logger.Warn("replication: backfill", "table", table, "region", target, "err", err)
				time.Sleep(time.Second)
			}
		}
	}()
}

func (g *Group) backfill(table, target, source string, at int64) error {
	ctx := g.ctx
	eng := g.cfg.Regions[source]
	desc, err := eng.DescribeTable(ctx, &wire.DescribeTableInput{TableName: &table})
	if err != nil {
		return err
	}
	total := int64(0)
	if desc.Table.ItemCount != nil {
		total = *desc.Table.ItemCount
	}
	var start attr.Item
	var last uint64
	done := int64(0)
	for {
		// The copy reads the source uncharged, as DynamoDB's does; its
		// writes are charged on the new replica (applyOne).
		out, err := eng.Scan(engine.Uncharged(ctx), &wire.ScanInput{TableName: &table, ConsistentRead: ptr(true), ExclusiveStartKey: start, Limit: aws32(200)})
		if err != nil {
			return err
		}
		if len(out.Items) > 0 {
			if last, err = g.enqueueCopies(table, target, source, desc.Table.KeySchema, out.Items, at); err != nil {
				return err
			}
		}
		done += int64(len(out.Items))
		g.setProgress(table, target, percent(done, max(total, done+1)))
		if out.LastEvaluatedKey == nil {
			break
		}
		start = out.LastEvaluatedKey
	}
	// ACTIVE once every copy has been applied.
	for g.queuedUpTo(table, target, last) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(g.cfg.Poll):
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[table]
	if t == nil || t.replica(target) == nil || t.replica(target).Status != statusCreating {
		return nil
	}
	t.replica(target).Status = statusActive
	g.setProgress(table, target, 100)
	return g.saveTable(table, t)
}

// enqueueCopies queues the backfill's copies of items for target, in one
// transaction; it returns the last entry's sequence number.
func (g *Group) enqueueCopies(table, target, source string, schema []wire.KeySchemaElement, items []attr.Item, at int64) (uint64, error) {
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return 0, err
	}
	defer txn.Rollback()
	var last uint64
	now := g.cfg.Now(source).UnixNano()
	for _, it := range items {
		k := attr.Item{}
		for _, e := range schema {
			k[*e.AttributeName] = it[*e.AttributeName]
		}
		if last, err = g.enqueue(txn, table, target, entry{Key: k, Image: it, Stamp: stamp{TS: at, Origin: source}, Enqueued: now}); err != nil {
			return 0, err
		}
	}
	return last, txn.Commit(storage.CommitOptions{Sync: true})
}

// queuedUpTo reports whether an entry numbered seq or lower is still
// queued for region's replica of table.
func (g *Group) queuedUpTo(table, region string, seq uint64) bool {
	q, err := g.queuedFor(table, region, 1)
	return err != nil || len(q) > 0 && q[0].k != nil && string(q[0].k) <= string(queueKey(table, region, seq))
}

func percent(done, total int64) int {
	return int(min(99, done*100/max(total, 1)))
}
