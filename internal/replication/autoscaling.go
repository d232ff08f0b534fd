package replication

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Auto scaling of a global table's replicas (DescribeTableReplicaAutoScaling
// and UpdateTableReplicaAutoScaling, version 2019.11.21 only). DynamoDB's
// are a front to Application Auto Scaling: the write scaling of the table
// and of each GSI is the global table's, the read scaling of the table and
// of each GSI each replica's. Kura stores and describes what is set, with
// DynamoDB's checks and texts (the ack-api-quirks lab's probes, October
// 2026: DDB-TABLE-187, 190, 232, 238, 253, 254, 255, 289), and does not
// act on it: no capacity is ever scaled.

// scaling is one dimension's auto scaling: a target tracking policy
// between the minimum and the maximum.
type scaling struct {
	Min              int64   `json:"min"`
	Max              int64   `json:"max"`
	Policy           string  `json:"policy"`
	Target           float64 `json:"target"`
	DisableScaleIn   *bool   `json:"disableScaleIn,omitempty"`
	ScaleInCooldown  *int32  `json:"scaleInCooldown,omitempty"`
	ScaleOutCooldown *int32  `json:"scaleOutCooldown,omitempty"`
}

// writeScaling is a global table's write auto scaling: the table's and
// each GSI's.
type writeScaling struct {
	Table *scaling            `json:"table,omitempty"`
	GSIs  map[string]*scaling `json:"gsis,omitempty"`
}

// scalingRole is the role DynamoDB runs auto scaling as, whatever the
// request names (DDB-TABLE-239): the service-linked role, in account.
func scalingRole(account string) string {
	return "arn:aws:iam::" + account + ":role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
}

// describeScaling describes s (nil: auto scaling off).
func describeScaling(s *scaling, account string) *wire.AutoScalingSettingsDescription {
	if s == nil {
		return &wire.AutoScalingSettingsDescription{AutoScalingDisabled: ptr(true), ScalingPolicies: []wire.AutoScalingPolicyDescription{}}
	}
	return &wire.AutoScalingSettingsDescription{MinimumUnits: ptr(s.Min), MaximumUnits: ptr(s.Max), AutoScalingRoleArn: ptr(scalingRole(account)),
		ScalingPolicies: []wire.AutoScalingPolicyDescription{{PolicyName: ptr(s.Policy),
			TargetTrackingScalingPolicyConfiguration: &wire.AutoScalingTargetTrackingScalingPolicyConfigurationDescription{
				TargetValue: ptr(s.Target), DisableScaleIn: s.DisableScaleIn, ScaleInCooldown: s.ScaleInCooldown, ScaleOutCooldown: s.ScaleOutCooldown}}}}
}

// msgNoGlobalTable answers both operations for a table that is not a
// global table's replica, or does not exist (DDB-TABLE-187, 254).
func msgNoGlobalTable(table string) string {
	return "Global table with name: '" + table + "' does not exist."
}

// scalingTable is the global table region's table name (or ARN) names.
func (g *Group) scalingTable(ctx context.Context, region string, name *string) (*wire.TableDescription, *tableState, error) {
	out, err := g.cfg.Regions[region].DescribeTable(ctx, &wire.DescribeTableInput{TableName: name})
	if err != nil {
		if isType(err, "ResourceNotFoundException") {
			return nil, nil, ddberr.ResourceNotFound(msgNoGlobalTable(tableNameOf(deref(name))))
		}
		return nil, nil, err
	}
	d := out.Table
	g.mu.Lock()
	t := g.tables[*d.TableName]
	g.mu.Unlock()
	if t == nil || t.replica(region) == nil {
		return nil, nil, ddberr.ResourceNotFound(msgNoGlobalTable(*d.TableName))
	}
	g.describe(region, d)
	return d, t, nil
}

// tableNameOf is the table name in a table ARN (or the name itself).
func tableNameOf(s string) string {
	if i := strings.LastIndex(s, ":table/"); i >= 0 {
		return s[i+len(":table/"):]
	}
	return s
}

// accountOf is the account of a table ARN.
func accountOf(arn string) string {
	parts := strings.Split(arn, ":")
	if len(parts) < 5 {
		return ""
	}
	return parts[4]
}

// DescribeTableReplicaAutoScaling describes the auto scaling of every
// replica of the global table of region's table in.TableName.
func (r *Region) DescribeTableReplicaAutoScaling(ctx context.Context, in *wire.DescribeTableReplicaAutoScalingInput) (*wire.DescribeTableReplicaAutoScalingOutput, error) {
	d, _, err := r.g.scalingTable(ctx, r.name, in.TableName)
	if err != nil {
		return nil, err
	}
	return &wire.DescribeTableReplicaAutoScalingOutput{TableAutoScalingDescription: r.g.autoScalingOf(d)}, nil
}

// autoScalingOf describes the auto scaling of the global table of the
// table d describes: every replica, by region name, with every GSI.
func (g *Group) autoScalingOf(d *wire.TableDescription) *wire.TableAutoScalingDescription {
	account := accountOf(deref(d.TableArn))
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[*d.TableName]
	out := &wire.TableAutoScalingDescription{TableName: d.TableName, TableStatus: d.TableStatus}
	if t == nil {
		return out
	}
	w := t.WriteScaling
	if w == nil {
		w = &writeScaling{}
	}
	for _, rep := range t.Replicas {
		s := rep.Settings
		if s == nil {
			s = &replicaSettings{}
		}
		ra := wire.ReplicaAutoScalingDescription{RegionName: ptr(rep.Region), ReplicaStatus: rep.Status,
			GlobalSecondaryIndexes:                             []wire.ReplicaGlobalSecondaryIndexAutoScalingDescription{},
			ReplicaProvisionedReadCapacityAutoScalingSettings:  describeScaling(s.ReadScaling, account),
			ReplicaProvisionedWriteCapacityAutoScalingSettings: describeScaling(w.Table, account)}
		for _, gsi := range d.GlobalSecondaryIndexes {
			index := deref(gsi.IndexName)
			ra.GlobalSecondaryIndexes = append(ra.GlobalSecondaryIndexes, wire.ReplicaGlobalSecondaryIndexAutoScalingDescription{
				IndexName: gsi.IndexName, IndexStatus: gsi.IndexStatus,
				ProvisionedReadCapacityAutoScalingSettings:  describeScaling(s.GSIReadScaling[index], account),
				ProvisionedWriteCapacityAutoScalingSettings: describeScaling(w.GSIs[index], account)})
		}
		out.Replicas = append(out.Replicas, ra)
	}
	slices.SortFunc(out.Replicas, func(a, b wire.ReplicaAutoScalingDescription) int {
		return strings.Compare(*a.RegionName, *b.RegionName)
	})
	return out
}

// UpdateTableReplicaAutoScaling sets the auto scaling of the global table
// of region's table in.TableName, after DynamoDB's checks. It answers with
// the settings from before the change, as DynamoDB does (DDB-TABLE-238);
// DescribeTableReplicaAutoScaling shows the new ones.
func (r *Region) UpdateTableReplicaAutoScaling(ctx context.Context, in *wire.UpdateTableReplicaAutoScalingInput) (*wire.UpdateTableReplicaAutoScalingOutput, error) {
	g := r.g
	d, _, err := g.scalingTable(ctx, r.name, in.TableName)
	if err != nil {
		return nil, err
	}
	before := g.autoScalingOf(d)
	name := *d.TableName
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[name]
	if t == nil {
		return nil, ddberr.ResourceNotFound(msgNoGlobalTable(name))
	}
	u := scalingUpdate{table: name, d: d}
	next, err := u.apply(t, in)
	if err != nil {
		return nil, err
	}
	old := *t
	*t = *next
	if err := g.saveTable(name, t); err != nil {
		*t = old
		return nil, err
	}
	return &wire.UpdateTableReplicaAutoScalingOutput{TableAutoScalingDescription: before}, nil
}

// scalingUpdate applies one UpdateTableReplicaAutoScaling to the global
// table table, whose replica's description is d.
type scalingUpdate struct {
	table string
	d     *wire.TableDescription
}

// apply returns t changed by in (t itself is not changed), or the refusal.
func (u scalingUpdate) apply(t *tableState, in *wire.UpdateTableReplicaAutoScalingInput) (*tableState, error) {
	if in.ProvisionedWriteCapacityAutoScalingUpdate == nil && len(in.GlobalSecondaryIndexUpdates) == 0 && len(in.ReplicaUpdates) == 0 {
		return nil, ddberr.Validation(u.msg(" because at least one update parameter must be specified."))
	}
	if err := u.checkBilling(t, in); err != nil {
		return nil, err
	}
	next := *t
	next.Replicas = slices.Clone(t.Replicas)
	w := writeScaling{}
	if t.WriteScaling != nil {
		w = *t.WriteScaling
	}
	w.GSIs = cloneScalings(w.GSIs)
	var err error
	if in.ProvisionedWriteCapacityAutoScalingUpdate != nil {
		if w.Table, err = u.set(w.Table, in.ProvisionedWriteCapacityAutoScalingUpdate, "DynamoDBWriteCapacityUtilization", ""); err != nil {
			return nil, err
		}
	}
	for _, x := range in.GlobalSecondaryIndexUpdates {
		if err := u.setIndex(w.GSIs, x.IndexName, x.ProvisionedWriteCapacityAutoScalingUpdate, "DynamoDBWriteCapacityUtilization"); err != nil {
			return nil, err
		}
	}
	next.WriteScaling = &w
	seen := map[string]bool{}
	for _, ru := range in.ReplicaUpdates {
		region := deref(ru.RegionName)
		if seen[region] {
			return nil, ddberr.Validation(u.msg(" because the regions: ‘[" + region + "]’ were specified more than once."))
		}
		seen[region] = true
		if ru.ReplicaProvisionedReadCapacityAutoScalingUpdate == nil && len(ru.ReplicaGlobalSecondaryIndexUpdates) == 0 {
			return nil, ddberr.Validation(u.msg(" because at least one update parameter must be specified for region: ‘" + region + "’."))
		}
		i := slices.IndexFunc(next.Replicas, func(r replicaState) bool { return r.Region == region })
		if i < 0 {
			// Kura's text: DynamoDB's answer is a ResourceNotFoundException
			// whose words were not recorded.
			return nil, ddberr.ResourceNotFound("Replica in region '" + region + "' of global table with name: '" + u.table + "' does not exist.")
		}
		s := next.Replicas[i].Settings.clone()
		if ru.ReplicaProvisionedReadCapacityAutoScalingUpdate != nil {
			if s.ReadScaling, err = u.set(s.ReadScaling, ru.ReplicaProvisionedReadCapacityAutoScalingUpdate, "DynamoDBReadCapacityUtilization", ""); err != nil {
				return nil, err
			}
		}
		s.GSIReadScaling = cloneScalings(s.GSIReadScaling)
		for _, x := range ru.ReplicaGlobalSecondaryIndexUpdates {
			if err := u.setIndex(s.GSIReadScaling, x.IndexName, x.ProvisionedReadCapacityAutoScalingUpdate, "DynamoDBReadCapacityUtilization"); err != nil {
				return nil, err
			}
		}
		next.Replicas[i].Settings = s
	}
	return &next, nil
}

func cloneScalings(m map[string]*scaling) map[string]*scaling {
	out := map[string]*scaling{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// msg is DynamoDB's start of an UpdateTableReplicaAutoScaling refusal,
// curly quotes included, followed by rest.
func (u scalingUpdate) msg(rest string) string {
	return "Failed to update settings for global table with name: ‘" + u.table + "’" + rest
}

// setIndex applies the update x (nil: none) of the GSI name's dimension
// of metric to its settings in m. An unknown index is refused in Kura's
// words: DynamoDB's for it were not recorded.
func (u scalingUpdate) setIndex(m map[string]*scaling, name *string, x *wire.AutoScalingSettingsUpdate, metric string) error {
	index := deref(name)
	if gsiOf(u.d, index) == nil {
		return ddberr.ResourceNotFound("Index '" + index + "' of global table with name: '" + u.table + "' does not exist.")
	}
	if x == nil {
		return nil
	}
	next, err := u.set(m[index], x, metric, index)
	if err != nil {
		return err
	}
	if next == nil {
		delete(m, index)
	} else {
		m[index] = next
	}
	return nil
}

// checkBilling refuses, for a PAY_PER_REQUEST table, every update but one
// turning auto scaling off (DDB-TABLE-190): the text names the replicas'
// regions in capitals and the first parameter that sets something (the
// two GSI parameters' names are Kura's guess).
func (u scalingUpdate) checkBilling(t *tableState, in *wire.UpdateTableReplicaAutoScalingInput) error {
	if provisioned(u.d) {
		return nil
	}
	param := ""
	sets := func(s *wire.AutoScalingSettingsUpdate, name string) {
		if param == "" && s != nil && !deref(s.AutoScalingDisabled) {
			param = name
		}
	}
	sets(in.ProvisionedWriteCapacityAutoScalingUpdate, "GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate")
	for _, x := range in.GlobalSecondaryIndexUpdates {
		sets(x.ProvisionedWriteCapacityAutoScalingUpdate, "ProvisionedWriteCapacityAutoScalingSettingsUpdate")
	}
	for _, ru := range in.ReplicaUpdates {
		sets(ru.ReplicaProvisionedReadCapacityAutoScalingUpdate, "ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate")
		for _, x := range ru.ReplicaGlobalSecondaryIndexUpdates {
			sets(x.ProvisionedReadCapacityAutoScalingUpdate, "ProvisionedReadCapacityAutoScalingSettingsUpdate")
		}
	}
	if param == "" {
		return nil
	}
	var regions []string
	for _, r := range t.Replicas {
		regions = append(regions, "'"+strings.ToUpper(r.Region)+"'")
	}
	slices.Sort(regions)
	return ddberr.Validation("Failed to update global table with name ‘" + u.table + "‘. Replicas " + strings.Join(regions, ", ") +
		" BillingMode is PayPerRequest. You must convert table's BillingMode to PROVISIONED to set parameters: '" + param + "'.")
}

// set applies the update x of one dimension (metric names its predefined
// metric; index its GSI, "" for the table) to cur, returning the new
// settings (nil: off).
func (u scalingUpdate) set(cur *scaling, x *wire.AutoScalingSettingsUpdate, metric, index string) (*scaling, error) {
	given := []struct {
		name string
		set  bool
	}{{"MaximumUnits", x.MaximumUnits != nil}, {"ScalingPolicyUpdate", x.ScalingPolicyUpdate != nil}, {"MinimumUnits", x.MinimumUnits != nil}}
	if deref(x.AutoScalingDisabled) {
		var extra []string
		for _, p := range given {
			if p.set {
				extra = append(extra, "'"+p.name+"'")
			}
		}
		if len(extra) > 0 {
			return nil, ddberr.Validation(u.msg(": Parameters " + strings.Join(extra, ", ") + " must be left blank when disabling auto scaling."))
		}
		return nil, nil
	}
	if cur == nil {
		var missing []string
		for _, p := range given {
			if !p.set {
				missing = append(missing, "'"+p.name+"'")
			}
		}
		if len(missing) > 0 {
			return nil, ddberr.Validation(u.msg(": Parameters " + strings.Join(missing, ", ") + " are required unless auto scaling is being disabled."))
		}
	}
	next := &scaling{}
	if cur != nil {
		*next = *cur
	}
	if x.MinimumUnits != nil {
		next.Min = *x.MinimumUnits
	}
	if x.MaximumUnits != nil {
		next.Max = *x.MaximumUnits
	}
	if next.Max < next.Min {
		return nil, ddberr.Validation(autoScalingError("Maximum capacity cannot be less than minimum capacity"))
	}
	if p := x.ScalingPolicyUpdate; p != nil {
		c := p.TargetTrackingScalingPolicyConfiguration
		if c == nil {
			c = &wire.AutoScalingTargetTrackingScalingPolicyConfigurationUpdate{} // the api layer requires it
		}
		v := deref(c.TargetValue)
		switch {
		case v < 8.51592e-109 || v > 1.174271e108:
			return nil, ddberr.Validation(autoScalingError("For target tracking scaling, target value must be between '8.51592E-109' and '1.174271E108', but was '" + javaDouble(v) + "'."))
		case v < 10 || v > 90:
			return nil, ddberr.Validation(autoScalingError("For predefined metric type " + metric + ", target value must be between '10.0' and '90.0', but was '" + javaDouble(v) + "'."))
		}
		next.Policy = deref(p.PolicyName)
		if next.Policy == "" {
			next.Policy = metric + ":table/" + u.table
			if index != "" {
				next.Policy += "/index/" + index
			}
		}
		next.Target, next.DisableScaleIn, next.ScaleInCooldown, next.ScaleOutCooldown = v, c.DisableScaleIn, c.ScaleInCooldown, c.ScaleOutCooldown
	}
	return next, nil
}

// autoScalingError is the text of an Application Auto Scaling refusal
// DynamoDB passes on (DDB-TABLE-253), with a request ID of its own.
func autoScalingError(text string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	return text + " (Service: AWSApplicationAutoScaling; Status Code: 400; Error Code: ValidationException; Request ID: " + id + "; Proxy: null)"
}

// javaDouble writes v as Java's Double.toString does for the values seen
// (90.1, 100.0, 0.0).
func javaDouble(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
