package replication

import (
	"context"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/wire"
)

// Texts of a ReplicaUpdates Update's refusals: DynamoDB's, as the
// ack-api-quirks lab recorded them (October 2026: DDB-TABLE-223, 250,
// 252, 294, 295, 309).
const (
	msgNoActions     = "There are no actions specified in the Replica Update Action of the request."
	msgPerReplicaKMS = "One or more parameter values were invalid: KMSMasterKeyId must be specified for each replica."
	msgPTOnDemand    = "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
	msgODTProvision  = "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"
)

// hasActions reports whether an Update action a changes anything: a
// RegionName alone, or a GSI named without an override, does not.
func hasActions(a *wire.UpdateReplicationGroupMemberAction) bool {
	for _, x := range a.GlobalSecondaryIndexes {
		if x.ProvisionedThroughputOverride == nil && x.OnDemandThroughputOverride == nil {
			return false
		}
	}
	return len(a.GlobalSecondaryIndexes) > 0 || a.KMSMasterKeyId != nil || a.TableClassOverride != "" ||
		a.ProvisionedThroughputOverride != nil && a.ProvisionedThroughputOverride.ReadCapacityUnits != nil ||
		a.OnDemandThroughputOverride != nil && a.OnDemandThroughputOverride.MaxReadRequestUnits != nil
}

// checkBilling refuses an override of the other billing mode's capacity
// than the table d describes has.
func checkBilling(d *wire.TableDescription, pt *wire.ProvisionedThroughputOverride, od *wire.OnDemandThroughputOverride) error {
	if pt != nil && !provisioned(d) {
		return ddberr.Validation(msgPTOnDemand)
	}
	if od != nil && provisioned(d) {
		return ddberr.Validation(msgODTProvision)
	}
	return nil
}

// updateReplica answers a ReplicaUpdates Update of target's replica of the
// table d describes in region: the overrides are set on (or, given the
// global table's own value, cleared from) the replica's table there, and
// recorded.
func (g *Group) updateReplica(ctx context.Context, region, target string, d *wire.TableDescription, a *wire.UpdateReplicationGroupMemberAction) error {
	if !hasActions(a) {
		return ddberr.Validation(msgNoActions)
	}
	name := *d.TableName
	g.mu.Lock()
	t := g.tables[name]
	if t == nil || t.replica(region) == nil || t.replica(target) == nil {
		g.mu.Unlock()
		return ddberr.Validation(msgNotMember(target))
	}
	err := g.busy(t)
	cur := t.replica(target).Settings.clone()
	g.mu.Unlock()
	if err != nil {
		return err
	}
	if a.KMSMasterKeyId != nil {
		// A replica's key is chosen when it is created; DynamoDB refuses
		// every Update of it (DDB-TABLE-295, 309).
		return ddberr.Validation(msgPerReplicaKMS)
	}
	if err := checkBilling(d, a.ProvisionedThroughputOverride, a.OnDemandThroughputOverride); err != nil {
		return err
	}
	for _, x := range a.GlobalSecondaryIndexes {
		if err := checkBilling(d, x.ProvisionedThroughputOverride, x.OnDemandThroughputOverride); err != nil {
			return err
		}
	}
	base, err := g.baseOf(ctx, t, region, d)
	if err != nil {
		return err
	}
	next := cur.clone()
	next.setOverrides(base, a.ProvisionedThroughputOverride, a.OnDemandThroughputOverride, a.GlobalSecondaryIndexes, a.TableClassOverride)
	if err := applySettings(ctx, g.cfg.Regions[target], name, base, next); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := g.tables[name]; t != nil && t.replica(target) != nil {
		rep := t.replica(target)
		rep.Settings = next
		// The replica is UPDATING for a while, as DynamoDB's is after an
		// Update (even one that changes nothing: DDB-TABLE-223, whose
		// Update to the table class it had left the table UPDATING).
		rep.Status, rep.ReadyOn = statusUpdating, region
		rep.ReadyAt = g.cfg.Now(region).Add(g.cfg.UpdateDelay).UnixNano()
		return g.saveTable(name, t)
	}
	return nil
}

// settle makes t's UPDATING replicas whose time has come ACTIVE again
// (and saves t if one did). g.mu is held.
func (g *Group) settle(t *tableState) {
	changed := false
	for i := range t.Replicas {
		r := &t.Replicas[i]
		if r.Status == statusUpdating && g.cfg.Now(r.ReadyOn).UnixNano() >= r.ReadyAt {
			r.Status, r.ReadyAt, r.ReadyOn = statusActive, 0, ""
			changed = true
		}
	}
	if changed {
		if err := g.saveTable(t.Name, t); err != nil {
			g.cfg.Logger.Warn("replication: saving a replica's status", "table", t.Name, "err", err)
		}
	}
}

// baseOf describes the global table's own settings, those of a replica
// with no overrides: region's table d, unless region overrides its read
// capacity, when a replica that does not is described instead (if any).
func (g *Group) baseOf(ctx context.Context, t *tableState, region string, d *wire.TableDescription) (*wire.TableDescription, error) {
	g.mu.Lock()
	own := t.replica(region)
	plain := own == nil || own.Settings == nil || own.Settings.ReadCapacityUnits == nil && own.Settings.MaxReadRequestUnits == nil && len(own.Settings.GSIs) == 0
	other := ""
	for _, r := range t.Replicas {
		s := r.Settings
		if r.Region != region && r.Status == statusActive && (s == nil || s.ReadCapacityUnits == nil && s.MaxReadRequestUnits == nil && len(s.GSIs) == 0) {
			other = r.Region
			break
		}
	}
	g.mu.Unlock()
	if plain || other == "" {
		return d, nil
	}
	out, err := g.cfg.Regions[other].DescribeTable(ctx, &wire.DescribeTableInput{TableName: d.TableName})
	if err != nil {
		return nil, err
	}
	return out.Table, nil
}

// applySettings makes table in eng's region have the read capacity, GSI
// read capacities and class of the global table base with the overrides
// s, changing only what differs.
func applySettings(ctx context.Context, eng *engine.Engine, table string, base *wire.TableDescription, s *replicaSettings) error {
	out, err := eng.DescribeTable(ctx, &wire.DescribeTableInput{TableName: &table})
	if err != nil {
		return err
	}
	cur := out.Table
	update := func(in *wire.UpdateTableInput) error {
		in.TableName = &table
		_, err := eng.UpdateTable(ctx, in)
		return err
	}
	if pt := cur.ProvisionedThroughput; provisioned(cur) && pt != nil && base.ProvisionedThroughput != nil {
		want := pick(s.ReadCapacityUnits, base.ProvisionedThroughput.ReadCapacityUnits)
		if deref(want) != deref(pt.ReadCapacityUnits) {
			if err := update(&wire.UpdateTableInput{ProvisionedThroughput: &wire.ProvisionedThroughput{ReadCapacityUnits: want, WriteCapacityUnits: pt.WriteCapacityUnits}}); err != nil {
				return err
			}
		}
	}
	if !provisioned(cur) {
		want := pick(s.MaxReadRequestUnits, maxRead(base.OnDemandThroughput))
		if deref(want) != deref(maxRead(cur.OnDemandThroughput)) {
			od := &wire.OnDemandThroughput{MaxReadRequestUnits: orUnlimited(want)}
			if cur.OnDemandThroughput != nil {
				od.MaxWriteRequestUnits = cur.OnDemandThroughput.MaxWriteRequestUnits
			}
			if err := update(&wire.UpdateTableInput{OnDemandThroughput: od}); err != nil {
				return err
			}
		}
	}
	for _, gsi := range cur.GlobalSecondaryIndexes {
		if u := indexUpdate(gsi, gsiOf(base, deref(gsi.IndexName)), s.gsi(deref(gsi.IndexName)), provisioned(cur)); u != nil {
			if err := update(&wire.UpdateTableInput{GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Update: u}}}); err != nil {
				return err
			}
		}
	}
	want := s.TableClass
	if want == "" {
		want = classOf(base)
	}
	if want != classOf(cur) {
		return update(&wire.UpdateTableInput{TableClass: want})
	}
	return nil
}

// indexUpdate is the update that gives a replica's GSI cur the read
// capacity of the global table's (base) with the override o; nil when it
// has it.
func indexUpdate(cur wire.GlobalSecondaryIndexDescription, base *wire.GlobalSecondaryIndexDescription, o *indexOverride, provisioned bool) *wire.UpdateGlobalSecondaryIndexAction {
	if base == nil {
		return nil
	}
	if o == nil {
		o = &indexOverride{}
	}
	if provisioned {
		pt, bpt := cur.ProvisionedThroughput, base.ProvisionedThroughput
		if pt == nil || bpt == nil {
			return nil
		}
		want := pick(o.ReadCapacityUnits, bpt.ReadCapacityUnits)
		if deref(want) == deref(pt.ReadCapacityUnits) {
			return nil
		}
		return &wire.UpdateGlobalSecondaryIndexAction{IndexName: cur.IndexName,
			ProvisionedThroughput: &wire.ProvisionedThroughput{ReadCapacityUnits: want, WriteCapacityUnits: pt.WriteCapacityUnits}}
	}
	want := pick(o.MaxReadRequestUnits, maxRead(base.OnDemandThroughput))
	if deref(want) == deref(maxRead(cur.OnDemandThroughput)) {
		return nil
	}
	od := &wire.OnDemandThroughput{MaxReadRequestUnits: orUnlimited(want)}
	if cur.OnDemandThroughput != nil {
		od.MaxWriteRequestUnits = cur.OnDemandThroughput.MaxWriteRequestUnits
	}
	return &wire.UpdateGlobalSecondaryIndexAction{IndexName: cur.IndexName, OnDemandThroughput: od}
}

// pick is the override o if there is one, else the base value.
func pick(o, base *int64) *int64 {
	if o != nil {
		return o
	}
	return base
}

func maxRead(od *wire.OnDemandThroughput) *int64 {
	if od == nil {
		return nil
	}
	return od.MaxReadRequestUnits
}

// orUnlimited is an on-demand maximum to set: -1 (no maximum) for none.
func orUnlimited(p *int64) *int64 {
	if p == nil {
		return ptr[int64](-1)
	}
	return p
}

// classOf is the table class d shows (STANDARD when none).
func classOf(d *wire.TableDescription) string {
	if d.TableClassSummary == nil || d.TableClassSummary.TableClass == "" {
		return "STANDARD"
	}
	return d.TableClassSummary.TableClass
}
