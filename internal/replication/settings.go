package replication

import (
	"context"
	"maps"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/wire"
)

// The settings of a global table's replicas. DynamoDB keeps these per
// replica: the read capacity (ProvisionedThroughputOverride), the
// on-demand read maximum (OnDemandThroughputOverride), each GSI's two, the
// table class (TableClassOverride) and the KMS key; and of what
// UpdateTable changes, deletion protection (tags, point-in-time recovery,
// resource policies and Contributor Insights, other operations' settings,
// are each region's too). Everything else UpdateTable or UpdateTimeToLive
// changes in one replica is made in every replica: GSIs created and
// deleted, the billing mode, provisioned throughput (a replica's read
// override stays), on-demand maximums (likewise), the encryption type, the
// table class (but in a replica with an override) and TTL; and the stream
// cannot be disabled while replicas exist. The source for these rules is
// the ack-api-quirks lab's probes of DynamoDB (October 2026: findings
// DDB-TABLE-222, 230, 250, 251, 252, 294, 295, 296, 297), the only
// record found of what DynamoDB does.
//
// Each region's table holds its effective settings; replicaSettings keep
// which of them are overrides, for the Replicas DescribeTable shows. An
// override equal to the global table's own value is none (DynamoDB clears
// it so, DDB-TABLE-250 and 252).

// replicaSettings are one replica's overrides and read auto scaling.
type replicaSettings struct {
	ReadCapacityUnits   *int64                    `json:"rcu,omitempty"`
	MaxReadRequestUnits *int64                    `json:"maxRead,omitempty"`
	TableClass          string                    `json:"tableClass,omitempty"`
	GSIs                map[string]*indexOverride `json:"gsis,omitempty"`
	// KMSMasterKeyArn is the replica's key, when its table is encrypted
	// with a KMS key.
	KMSMasterKeyArn string `json:"kms,omitempty"`
	// ReadScaling and GSIReadScaling are the replica's read auto scaling
	// (autoscaling.go).
	ReadScaling    *scaling            `json:"readScaling,omitempty"`
	GSIReadScaling map[string]*scaling `json:"gsiReadScaling,omitempty"`
}

// indexOverride is a replica's override of one GSI's read capacity.
type indexOverride struct {
	ReadCapacityUnits   *int64 `json:"rcu,omitempty"`
	MaxReadRequestUnits *int64 `json:"maxRead,omitempty"`
}

// settingsOf returns r's settings, made when it has none. g.mu is held.
func (r *replicaState) settingsOf() *replicaSettings {
	if r.Settings == nil {
		r.Settings = &replicaSettings{}
	}
	return r.Settings
}

// clone is a copy of s (nil: an empty one) that can be changed alone.
func (s *replicaSettings) clone() *replicaSettings {
	if s == nil {
		return &replicaSettings{}
	}
	c := *s
	c.GSIs = maps.Clone(s.GSIs)
	for k, v := range c.GSIs {
		o := *v
		c.GSIs[k] = &o
	}
	c.GSIReadScaling = maps.Clone(s.GSIReadScaling)
	return &c
}

// gsi is s's override of index (nil when none).
func (s *replicaSettings) gsi(index string) *indexOverride {
	if s == nil {
		return nil
	}
	return s.GSIs[index]
}

// setOverride records v as an override of what the global table has
// (base): none when they are equal.
func setOverride(dst **int64, v, base *int64) {
	if v == nil {
		return
	}
	if base != nil && *base == *v {
		*dst = nil
		return
	}
	*dst = ptr(*v)
}

// setIndexOverride records a replica's override of index's read capacity
// (pt or od) over the global table's GSI base.
func (s *replicaSettings) setIndexOverride(index string, pt *wire.ProvisionedThroughputOverride, od *wire.OnDemandThroughputOverride, base *wire.GlobalSecondaryIndexDescription) {
	x := s.GSIs[index]
	if x == nil {
		x = &indexOverride{}
	}
	if pt != nil && base.ProvisionedThroughput != nil {
		setOverride(&x.ReadCapacityUnits, pt.ReadCapacityUnits, base.ProvisionedThroughput.ReadCapacityUnits)
	}
	if od != nil {
		setOverride(&x.MaxReadRequestUnits, od.MaxReadRequestUnits, maxRead(base.OnDemandThroughput))
	}
	if x.ReadCapacityUnits == nil && x.MaxReadRequestUnits == nil {
		delete(s.GSIs, index)
		return
	}
	if s.GSIs == nil {
		s.GSIs = map[string]*indexOverride{}
	}
	s.GSIs[index] = x
}

// setOverrides records the overrides of a Create or Update action (pt,
// od, gsis, class) over the global table base: those of the other
// billing mode than base's, and those of an unknown GSI, are ignored, as
// DynamoDB ignores them in a Create (DDB-TABLE-223, 307; an Update of them
// is refused before, checkBilling).
func (s *replicaSettings) setOverrides(base *wire.TableDescription, pt *wire.ProvisionedThroughputOverride, od *wire.OnDemandThroughputOverride,
	gsis []wire.ReplicaGlobalSecondaryIndex, class string) {
	prov := provisioned(base)
	if pt != nil && prov && base.ProvisionedThroughput != nil {
		setOverride(&s.ReadCapacityUnits, pt.ReadCapacityUnits, base.ProvisionedThroughput.ReadCapacityUnits)
	}
	if od != nil && !prov {
		setOverride(&s.MaxReadRequestUnits, od.MaxReadRequestUnits, maxRead(base.OnDemandThroughput))
	}
	for _, x := range gsis {
		if gsi := gsiOf(base, deref(x.IndexName)); gsi != nil {
			s.setIndexOverride(*gsi.IndexName, x.ProvisionedThroughputOverride, x.OnDemandThroughputOverride, gsi)
		}
	}
	if class != "" {
		s.TableClass = class
	}
}

// createSettings are the overrides a Create action a gives its replica of
// the table d describes.
func createSettings(d *wire.TableDescription, a *wire.CreateReplicationGroupMemberAction) *replicaSettings {
	s := &replicaSettings{}
	s.setOverrides(d, a.ProvisionedThroughputOverride, a.OnDemandThroughputOverride, a.GlobalSecondaryIndexes, a.TableClassOverride)
	return s
}

// provisioned reports whether the table d describes is PROVISIONED.
func provisioned(d *wire.TableDescription) bool {
	return d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != "PAY_PER_REQUEST"
}

// gsiOf is d's GSI named index, or nil.
func gsiOf(d *wire.TableDescription, index string) *wire.GlobalSecondaryIndexDescription {
	for i := range d.GlobalSecondaryIndexes {
		if deref(d.GlobalSecondaryIndexes[i].IndexName) == index {
			return &d.GlobalSecondaryIndexes[i]
		}
	}
	return nil
}

// describeSettings adds replica rep's settings to its description rd in
// the description d of another replica's table: its overrides, every GSI
// of the table (with the replica's overrides), its key and its class.
func describeSettings(rd *wire.ReplicaDescription, rep replicaState, d *wire.TableDescription) {
	s := rep.Settings
	if s != nil {
		if s.ReadCapacityUnits != nil {
			rd.ProvisionedThroughputOverride = &wire.ProvisionedThroughputOverride{ReadCapacityUnits: s.ReadCapacityUnits}
		}
		if s.MaxReadRequestUnits != nil {
			rd.OnDemandThroughputOverride = &wire.OnDemandThroughputOverride{MaxReadRequestUnits: s.MaxReadRequestUnits}
		}
		if s.KMSMasterKeyArn != "" {
			rd.KMSMasterKeyId = ptr(s.KMSMasterKeyArn)
		}
	}
	for _, gsi := range d.GlobalSecondaryIndexes {
		x := wire.ReplicaGlobalSecondaryIndexDescription{IndexName: gsi.IndexName}
		if o := s.gsi(deref(gsi.IndexName)); o != nil {
			if o.ReadCapacityUnits != nil {
				x.ProvisionedThroughputOverride = &wire.ProvisionedThroughputOverride{ReadCapacityUnits: o.ReadCapacityUnits}
			}
			if o.MaxReadRequestUnits != nil {
				x.OnDemandThroughputOverride = &wire.OnDemandThroughputOverride{MaxReadRequestUnits: o.MaxReadRequestUnits}
			}
		}
		rd.GlobalSecondaryIndexes = append(rd.GlobalSecondaryIndexes, x)
	}
	// The class is shown once set: the table's, or the replica's override
	// (DynamoDB omits the default STANDARD, DDB-TABLE-294).
	switch {
	case s != nil && s.TableClass != "":
		rd.ReplicaTableClassSummary = &wire.TableClassSummary{TableClass: s.TableClass}
	case d.TableClassSummary != nil:
		rd.ReplicaTableClassSummary = &wire.TableClassSummary{TableClass: d.TableClassSummary.TableClass}
	}
}

// msgStreamDisable is DynamoDB's refusal to disable a replica's stream
// (DDB-TABLE-222).
const msgStreamDisable = "One or more parameter values were invalid: Disabling Stream is not allowed for a Global Table replica."

// checkTableUpdate refuses an UpdateTable (without ReplicaUpdates) of
// region's replica of a global table that DynamoDB refuses: one while a
// replica is being created or deleted, and disabling the stream (of an
// MREC table: an MRSC table's stream is the user's, strong_stream.go).
func (g *Group) checkTableUpdate(region string, in *wire.UpdateTableInput) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[deref(in.TableName)]
	if t == nil || t.replica(region) == nil {
		return nil
	}
	if s := in.StreamSpecification; s != nil && s.StreamEnabled != nil && !*s.StreamEnabled && t.Strong == nil {
		return ddberr.Validation(msgStreamDisable)
	}
	return g.busy(t)
}

// checkProtection refuses deleting region's replica of table while its
// deletion protection, which is each replica's own, is on: DynamoDB's text
// names the region, for a ReplicaUpdates Delete and a DeleteTable in the
// replica's region alike (DDB-TABLE-297).
func (g *Group) checkProtection(ctx context.Context, region, table string) error {
	out, err := g.cfg.Regions[region].DescribeTable(ctx, &wire.DescribeTableInput{TableName: &table})
	if err != nil || !deref(out.Table.DeletionProtectionEnabled) {
		return nil
	}
	return ddberr.Validation("Cannot delete table " + table + " in region " + region + " because it has deletion protection enabled. Disable deletion protection first.")
}

// isReplica reports whether region's table is a global table's replica.
func (g *Group) isReplica(table, region string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[table]
	return t != nil && t.replica(region) != nil
}

// replicatedUpdate is the part of in, an UpdateTable made in one replica,
// that is made in another replica with settings s too; nil when there is
// none.
func replicatedUpdate(in *wire.UpdateTableInput, s *replicaSettings) *wire.UpdateTableInput {
	out := &wire.UpdateTableInput{TableName: in.TableName, AttributeDefinitions: in.AttributeDefinitions, BillingMode: in.BillingMode,
		SSESpecification: in.SSESpecification}
	if s == nil {
		s = &replicaSettings{}
	}
	if pt := in.ProvisionedThroughput; pt != nil {
		c := *pt
		if s.ReadCapacityUnits != nil {
			c.ReadCapacityUnits = s.ReadCapacityUnits
		}
		out.ProvisionedThroughput = &c
	}
	if od := in.OnDemandThroughput; od != nil {
		c := *od
		if s.MaxReadRequestUnits != nil && c.MaxReadRequestUnits != nil {
			c.MaxReadRequestUnits = s.MaxReadRequestUnits
		}
		out.OnDemandThroughput = &c
	}
	if s.TableClass == "" {
		out.TableClass = in.TableClass
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update != nil {
			c := *u.Update
			if o := s.gsi(deref(c.IndexName)); o != nil && c.ProvisionedThroughput != nil && o.ReadCapacityUnits != nil {
				pt := *c.ProvisionedThroughput
				pt.ReadCapacityUnits = o.ReadCapacityUnits
				c.ProvisionedThroughput = &pt
			}
			u.Update = &c
		}
		out.GlobalSecondaryIndexUpdates = append(out.GlobalSecondaryIndexUpdates, u)
	}
	if out.BillingMode == "" && out.SSESpecification == nil && out.ProvisionedThroughput == nil && out.OnDemandThroughput == nil &&
		out.TableClass == "" && len(out.GlobalSecondaryIndexUpdates) == 0 {
		return nil
	}
	return out
}

// afterBillingSwitch drops the overrides a switch of the billing mode to
// mode leaves without meaning. g.mu is held.
func (s *replicaSettings) afterBillingSwitch(mode string) {
	if s == nil || mode == "" {
		return
	}
	for _, o := range s.GSIs {
		if mode == "PAY_PER_REQUEST" {
			o.ReadCapacityUnits = nil
		} else {
			o.MaxReadRequestUnits = nil
		}
	}
	if mode == "PAY_PER_REQUEST" {
		s.ReadCapacityUnits = nil
	} else {
		s.MaxReadRequestUnits = nil
	}
	for k, o := range s.GSIs {
		if o.ReadCapacityUnits == nil && o.MaxReadRequestUnits == nil {
			delete(s.GSIs, k)
		}
	}
}

// fanOut makes a change made in region's replica of table in every other
// replica (apply, with the replica's settings), and saves the settings
// apply changed. A replica the change fails in is logged and left: the
// change made where it was asked stays, as DynamoDB's asynchronous
// propagation would.
func (g *Group) fanOut(region, table string, apply func(eng *engine.Engine, s *replicaSettings) error) {
	g.mu.Lock()
	t := g.tables[table]
	if t == nil || t.replica(region) == nil {
		g.mu.Unlock()
		return
	}
	type job struct {
		region string
		s      *replicaSettings
	}
	var jobs []job
	for _, r := range t.Replicas {
		if r.Region != region && r.Status != statusDeleting {
			jobs = append(jobs, job{r.Region, r.Settings.clone()})
		}
	}
	g.mu.Unlock()
	for _, j := range jobs {
		if err := apply(g.cfg.Regions[j.region], j.s); err != nil {
			g.cfg.Logger.Warn("replication: a global table's change in another replica", "table", table, "from", region, "region", j.region, "err", err)
			continue
		}
		g.mu.Lock()
		if t := g.tables[table]; t != nil && t.replica(j.region) != nil {
			t.replica(j.region).Settings = j.s
			if err := g.saveTable(table, t); err != nil {
				g.cfg.Logger.Warn("replication: saving a replica's settings", "table", table, "region", j.region, "err", err)
			}
		}
		g.mu.Unlock()
	}
}

// tableUpdated makes the group-wide part of in, an UpdateTable made in
// region's replica, in the other replicas.
func (g *Group) tableUpdated(ctx context.Context, region string, in *wire.UpdateTableInput) {
	ctx = context.WithoutCancel(ctx) // made where it was asked: made everywhere
	g.fanOut(region, deref(in.TableName), func(eng *engine.Engine, s *replicaSettings) error {
		u := replicatedUpdate(in, s)
		if u == nil {
			return nil
		}
		s.afterBillingSwitch(in.BillingMode)
		if _, err := eng.UpdateTable(ctx, u); err != nil {
			return err
		}
		if in.SSESpecification != nil {
			s.KMSMasterKeyArn = kmsKeyOf(ctx, eng, deref(in.TableName))
		}
		return nil
	})
	if in.BillingMode == "" && in.SSESpecification == nil {
		return
	}
	key := kmsKeyOf(ctx, g.cfg.Regions[region], deref(in.TableName))
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := g.tables[deref(in.TableName)]; t != nil && t.replica(region) != nil {
		s := t.replica(region).settingsOf()
		s.afterBillingSwitch(in.BillingMode)
		if in.SSESpecification != nil {
			s.KMSMasterKeyArn = key
		}
		if err := g.saveTable(t.Name, t); err != nil {
			g.cfg.Logger.Warn("replication: saving a replica's settings", "table", t.Name, "region", region, "err", err)
		}
	}
}

// kmsKeyOf is the KMS key ARN of table in eng's region ("" when it has
// none).
func kmsKeyOf(ctx context.Context, eng *engine.Engine, table string) string {
	d, err := eng.DescribeTable(ctx, &wire.DescribeTableInput{TableName: &table})
	if err != nil || d.Table.SSEDescription == nil || d.Table.SSEDescription.SSEType != "KMS" {
		return ""
	}
	return deref(d.Table.SSEDescription.KMSMasterKeyArn)
}

// ttlUpdated makes an UpdateTimeToLive made in region's replica in the
// other replicas: TTL is the global table's (DDB-TABLE-230, 297).
func (g *Group) ttlUpdated(ctx context.Context, region string, in *wire.UpdateTimeToLiveInput) {
	ctx = context.WithoutCancel(ctx)
	g.fanOut(region, deref(in.TableName), func(eng *engine.Engine, _ *replicaSettings) error {
		_, err := eng.UpdateTimeToLive(ctx, in)
		return err
	})
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
