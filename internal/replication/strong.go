package replication

import (
	"context"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Multi-Region strong consistency (MRSC): UpdateTable's ReplicaUpdates
// with MultiRegionConsistency STRONG make an empty table a global table of
// exactly three regions (the table's and two replicas, or the table's, one
// replica and a witness from GlobalTableWitnessUpdates), all in one of
// DynamoDB's MRSC region sets. Its writes are acknowledged once they are
// in a majority of the three (strong_io.go).
//
// Source of the rules: the API reference (UpdateTable's
// MultiRegionConsistency and GlobalTableWitnessUpdates,
// CreateGlobalTableWitnessGroupMemberAction's region sets,
// DeleteGlobalTableWitnessGroupMemberAction: a witness is deleted only
// with a replica, which leaves a single-Region table) and the developer
// guide's MRSC pages (exactly three regions, an empty table, the
// consistency mode fixed once created, no transactions, no TTL). No
// capture of DynamoDB's refusals was found: their texts are Kura's.

const (
	consistencyStrong   = "STRONG"
	consistencyEventual = "EVENTUAL"
)

// strongState is what an MRSC table keeps besides its replicas: its key
// attributes (to name the items a write holds) and its witness region.
type strongState struct {
	Keys    []string `json:"keys"`
	Witness string   `json:"witness,omitempty"`
}

const (
	msgStrongCount      = "A global table with MultiRegionConsistency STRONG has exactly three Regions: this table's and two new replicas, or this table's, one new replica and a witness (GlobalTableWitnessUpdates)."
	msgStrongNotEmpty   = "Multi-Region strong consistency can be configured only for an empty table."
	msgConsistencyFixed = "The consistency mode of a global table cannot be changed, and replicas or witnesses cannot be added to a multi-Region strongly consistent global table after it is created."
	msgNeedsCreate      = "MultiRegionConsistency is valid only with Create actions in ReplicaUpdates."
	msgWitnessStrong    = "GlobalTableWitnessUpdates are valid only for a global table with MultiRegionConsistency STRONG, and only one witness can be created or deleted per UpdateTable request."
	msgStrongDelete     = "A multi-Region strongly consistent global table keeps three Regions: its other replicas and its witness are deleted together, in one UpdateTable request, which leaves this Region's table a single-Region table."
	msgStrongTransact   = "Transactions are not supported on multi-Region strongly consistent (MRSC) global tables."
	msgStrongTTL        = "Time to Live is not supported on multi-Region strongly consistent (MRSC) global tables."
	msgDuplicateRegion  = "Each Region can appear only once among a global table's replicas and witness."
)

// regionSets are the region sets an MRSC table's three regions are chosen
// from (CreateGlobalTableWitnessGroupMemberAction's documentation).
var regionSets = [][]string{
	{"us-east-1", "us-east-2", "us-west-2"},
	{"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
	{"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"},
}

func msgRegionSet(region string) string {
	return "Region " + region + " is not in the same multi-Region strong consistency Region set as this table's: the sets are " +
		"us-east-1, us-east-2, us-west-2; eu-west-1, eu-west-2, eu-west-3, eu-central-1; and ap-northeast-1, ap-northeast-2, ap-northeast-3."
}

// strongRequest reports whether in is an MRSC change: STRONG asked for, a
// witness changed, or the table already an MRSC table.
func (g *Group) strongRequest(in *wire.UpdateTableInput) bool {
	if in.MultiRegionConsistency == consistencyStrong || len(in.GlobalTableWitnessUpdates) > 0 {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[tableName(in.TableName)]
	return t != nil && t.Strong != nil
}

// updateStrong answers an UpdateTable of MRSC replicas in region: the
// table made an MRSC global table, or its other regions removed.
func (g *Group) updateStrong(ctx context.Context, region string, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
	desc, err := g.cfg.Regions[region].DescribeTable(ctx, &wire.DescribeTableInput{TableName: in.TableName})
	if err != nil {
		return nil, err
	}
	d := desc.Table
	g.mu.Lock()
	t := g.tables[*d.TableName]
	strong, global := t != nil && t.Strong != nil, t != nil
	g.mu.Unlock()
	switch {
	case strong && (in.MultiRegionConsistency != "" || hasCreate(in)):
		err = ddberr.Validation(msgConsistencyFixed)
	case strong:
		err = g.removeStrong(region, *d.TableName, in)
	case global:
		err = ddberr.Validation(msgConsistencyFixed)
	default:
		err = g.createStrong(ctx, region, d, in)
	}
	if err != nil {
		return nil, err
	}
	g.describe(region, d)
	return &wire.UpdateTableOutput{TableDescription: d}, nil
}

func hasCreate(in *wire.UpdateTableInput) bool {
	return slices.ContainsFunc(in.ReplicaUpdates, func(u wire.ReplicationGroupUpdate) bool { return u.Create != nil }) ||
		slices.ContainsFunc(in.GlobalTableWitnessUpdates, func(u wire.GlobalTableWitnessGroupUpdate) bool { return u.Create != nil })
}

// strongPlan checks the shape of an MRSC creation from region: only
// Creates, three regions in all, none twice, none region's own, every one
// served and in region's region set. It returns the new replicas and the
// witness ("" for none).
func (g *Group) strongPlan(region string, in *wire.UpdateTableInput) ([]wire.CreateReplicationGroupMemberAction, string, error) {
	if in.MultiRegionConsistency != consistencyStrong {
		return nil, "", ddberr.Validation(msgWitnessStrong)
	}
	var creates []wire.CreateReplicationGroupMemberAction
	for _, u := range in.ReplicaUpdates {
		if u.Create == nil || u.Create.RegionName == nil {
			return nil, "", ddberr.Validation(msgNeedsCreate)
		}
		creates = append(creates, *u.Create)
	}
	witness := ""
	if len(in.GlobalTableWitnessUpdates) > 1 {
		return nil, "", ddberr.Validation(msgWitnessStrong)
	}
	for _, u := range in.GlobalTableWitnessUpdates {
		if u.Create == nil || u.Create.RegionName == nil {
			return nil, "", ddberr.Validation(msgWitnessStrong)
		}
		witness = *u.Create.RegionName
	}
	if len(creates) == 0 {
		return nil, "", ddberr.Validation(msgNeedsCreate)
	}
	regions := []string{region}
	for _, c := range creates {
		regions = append(regions, *c.RegionName)
	}
	if witness != "" {
		regions = append(regions, witness)
	}
	if len(regions) != 3 {
		return nil, "", ddberr.Validation(msgStrongCount)
	}
	for i, r := range regions[1:] {
		if r == region && i < len(creates) {
			return nil, "", ddberr.Validation(msgLocalRegion)
		}
		if slices.Contains(regions[:i+1], r) {
			return nil, "", ddberr.Validation(msgDuplicateRegion)
		}
	}
	for _, r := range regions[1:] {
		if g.cfg.Regions[r] == nil {
			return nil, "", ddberr.Validation(msgUnknownRegion(r))
		}
		if !sameRegionSet(region, r) {
			return nil, "", ddberr.Validation(msgRegionSet(r))
		}
	}
	return creates, witness, nil
}

func sameRegionSet(a, b string) bool {
	for _, set := range regionSets {
		if slices.Contains(set, a) && slices.Contains(set, b) {
			return true
		}
	}
	return false
}

// createStrong makes region's empty table d an MRSC global table: the
// replica tables are created, the catalogue records the table as STRONG,
// and each replica is CREATING until its (empty) backfill has run. A
// table without a stream gets a NEW_AND_OLD_IMAGES one, which the
// replication reads, hidden in every replica (strong_stream.go).
func (g *Group) createStrong(ctx context.Context, region string, d *wire.TableDescription, in *wire.UpdateTableInput) error {
	creates, witness, err := g.strongPlan(region, in)
	if err != nil {
		return err
	}
	name := *d.TableName
	if d.TableStatus != "ACTIVE" {
		return ddberr.ResourceInUse(msgInUseReplicas + name)
	}
	if err := g.checkEmpty(ctx, region, name); err != nil {
		return err
	}
	if err := g.checkNoTTL(ctx, region, name); err != nil {
		return err
	}
	for _, c := range creates {
		if _, err := g.cfg.Regions[*c.RegionName].DescribeTable(ctx, &wire.DescribeTableInput{TableName: &name}); err == nil {
			return ddberr.Validation(msgReplicaTableExists(name))
		}
	}
	added, err := g.ensureStream(ctx, region, d)
	if err != nil {
		return err
	}
	hide := map[string]string{region: deref(d.LatestStreamArn)}
	for _, c := range creates {
		out, err := g.cfg.Regions[*c.RegionName].CreateTable(ctx, replicaTable(d, &c))
		if err != nil {
			return err
		}
		hide[*c.RegionName] = deref(out.TableDescription.LatestStreamArn)
	}
	if added {
		if err := g.hideStreams(hide); err != nil {
			return err
		}
	}
	t := &tableState{Name: name, Replicas: []replicaState{{Region: region, Status: statusActive}}, Strong: &strongState{Witness: witness}}
	for _, k := range d.KeySchema {
		t.Strong.Keys = append(t.Strong.Keys, *k.AttributeName)
	}
	for _, c := range creates {
		t.Replicas = append(t.Replicas, replicaState{Region: *c.RegionName, Status: statusCreating})
	}

	g.mu.Lock()
	g.tables[name] = t
	err = g.saveTable(name, t)
	g.mu.Unlock()
	if err != nil {
		return err
	}
	if _, err := g.readStream(ctx, &worker{table: name, region: region}, true); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startWorker(name, region)
	for _, c := range creates {
		g.startWorker(name, *c.RegionName)
		g.goBackfill(name, *c.RegionName, region)
	}
	return nil
}

// checkEmpty refuses MRSC for a table that holds an item.
func (g *Group) checkEmpty(ctx context.Context, region, table string) error {
	out, err := g.cfg.Regions[region].Scan(ctx, &wire.ScanInput{TableName: &table, ConsistentRead: ptr(true), Limit: aws32(1)})
	if err != nil {
		return err
	}
	if len(out.Items) > 0 {
		return ddberr.Validation(msgStrongNotEmpty)
	}
	return nil
}

// checkNoTTL refuses MRSC for a table with Time to Live enabled.
func (g *Group) checkNoTTL(ctx context.Context, region, table string) error {
	out, err := g.cfg.Regions[region].DescribeTimeToLive(ctx, &wire.DescribeTimeToLiveInput{TableName: &table})
	if err != nil {
		return err
	}
	if s := out.TimeToLiveDescription; s != nil && s.TimeToLiveStatus != "" && s.TimeToLiveStatus != "DISABLED" {
		return ddberr.Validation(msgStrongTTL)
	}
	return nil
}

// ensureStream gives d a NEW_AND_OLD_IMAGES stream if it has none,
// reporting whether it added one (an MRSC table needs none in DynamoDB;
// Kura's replication reads one, which is then hidden).
func (g *Group) ensureStream(ctx context.Context, region string, d *wire.TableDescription) (bool, error) {
	if s := d.StreamSpecification; s != nil && s.StreamEnabled != nil && *s.StreamEnabled {
		if s.StreamViewType != "NEW_AND_OLD_IMAGES" {
			return false, ddberr.Validation(msgNeedsStream)
		}
		return false, nil
	}
	out, err := g.cfg.Regions[region].UpdateTable(ctx, &wire.UpdateTableInput{TableName: d.TableName,
		StreamSpecification: &wire.StreamSpecification{StreamEnabled: ptr(true), StreamViewType: "NEW_AND_OLD_IMAGES"}})
	if err != nil {
		return false, err
	}
	*d = *out.TableDescription
	return true, nil
}

// removeStrong deletes the other replicas and the witness of region's
// MRSC table: all of them in one request, as DynamoDB requires, which
// leaves region's table a single-Region one once the replicas are gone.
func (g *Group) removeStrong(region, table string, in *wire.UpdateTableInput) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[table]
	if t == nil || t.Strong == nil {
		return ddberr.Validation(msgNotMember(region))
	}
	left := map[string]bool{}
	for _, r := range t.Replicas {
		left[r.Region] = true
	}
	if t.Strong.Witness != "" {
		left[t.Strong.Witness] = true
	}
	var gone []string
	for _, u := range in.ReplicaUpdates {
		if u.Delete == nil || u.Delete.RegionName == nil {
			return ddberr.Validation(msgStrongDelete)
		}
		gone = append(gone, *u.Delete.RegionName)
	}
	for _, u := range in.GlobalTableWitnessUpdates {
		if u.Delete == nil || u.Delete.RegionName == nil || *u.Delete.RegionName != t.Strong.Witness {
			return ddberr.Validation(msgWitnessStrong)
		}
		delete(left, t.Strong.Witness)
	}
	for _, r := range gone {
		if r == region {
			return ddberr.Validation(msgLocalRegion)
		}
		if t.replica(r) == nil {
			return ddberr.Validation(msgNotMember(r))
		}
		delete(left, r)
	}
	if len(left) != 1 || !left[region] {
		return ddberr.Validation(msgStrongDelete)
	}
	if err := g.busy(t); err != nil {
		return err
	}
	for _, r := range gone {
		t.replica(r).Status = statusDeleting
	}
	t.Strong.Witness = ""
	if err := g.saveTable(table, t); err != nil {
		return err
	}
	for _, r := range gone {
		g.goDelete(table, r)
	}
	return nil
}

// describeStrong adds an MRSC table's consistency mode and witness to a
// description; the witness is CREATING while a replica is. g.mu is held.
func describeStrong(t *tableState, d *wire.TableDescription) {
	if t.Strong == nil {
		return
	}
	d.MultiRegionConsistency = consistencyStrong
	if t.Strong.Witness == "" {
		return
	}
	status := statusActive
	if slices.ContainsFunc(t.Replicas, func(r replicaState) bool { return r.Status == statusCreating }) {
		status = statusCreating
	}
	d.GlobalTableWitnesses = []wire.GlobalTableWitnessDescription{{RegionName: ptr(t.Strong.Witness), WitnessStatus: status}}
}

// tableName is the table a request's TableName (a name or an ARN) names.
func tableName(s *string) string {
	if s == nil {
		return ""
	}
	if i := strings.Index(*s, ":table/"); strings.HasPrefix(*s, "arn:") && i >= 0 {
		return (*s)[i+len(":table/"):]
	}
	return *s
}
