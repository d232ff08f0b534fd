package replication

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/wire"
)

// Region is a region's engine as the API's backend: UpdateTable's
// ReplicaUpdates are the Group's, descriptions of a global table's
// replica show its other replicas, and deleting a replica's table takes
// it out of its global table; the item operations of an MRSC table go
// through strong_ops.go. Every other operation is the engine's.
type Region struct {
	*engine.Engine
	g    *Group
	name string
}

// Region returns the backend of region (one of Config.Regions).
func (g *Group) Region(name string) *Region {
	return &Region{Engine: g.cfg.Regions[name], g: g, name: name}
}

// GlobalTableVersion is the version of the global tables Kura makes.
const GlobalTableVersion = "2019.11.21"

func (r *Region) DescribeTable(ctx context.Context, in *wire.DescribeTableInput) (*wire.DescribeTableOutput, error) {
	out, err := r.Engine.DescribeTable(ctx, in)
	if err == nil {
		r.g.describe(r.name, out.Table)
		r.g.hideKept(r.name, out.Table)
	}
	return out, err
}

// UpdateTable answers ReplicaUpdates itself; any other change of a global
// table's replica is checked against the global table's rules, made, and
// what of it is the global table's made in every replica (settings.go).
func (r *Region) UpdateTable(ctx context.Context, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
	if len(in.ReplicaUpdates) > 0 || len(in.GlobalTableWitnessUpdates) > 0 {
		out, err := r.g.updateReplicas(ctx, r.name, in)
		if err == nil {
			r.g.hideKept(r.name, out.TableDescription)
		}
		return out, err
	}
	name, err := r.tableName(ctx, in.TableName)
	if err != nil {
		return nil, err
	}
	named := *in
	named.TableName = &name
	if err := r.g.checkTableUpdate(r.name, &named); err != nil {
		return nil, err
	}
	rest, err := r.updateStrongStream(ctx, &named)
	if err != nil {
		return nil, err
	}
	if rest == nil {
		// Only the hidden stream of an MRSC table was shown or hidden.
		d, err := r.DescribeTable(ctx, &wire.DescribeTableInput{TableName: &name})
		if err != nil {
			return nil, err
		}
		return &wire.UpdateTableOutput{TableDescription: d.Table}, nil
	}
	if rest.StreamSpecification == nil {
		shown := *in
		shown.StreamSpecification = nil
		in = &shown
	}
	out, err := r.Engine.UpdateTable(ctx, in)
	if err == nil {
		r.g.tableUpdated(ctx, r.name, &named)
		r.g.describe(r.name, out.TableDescription)
		r.g.hideKept(r.name, out.TableDescription)
	}
	return out, err
}

// UpdateTimeToLive makes a global table's TTL change in every replica;
// an MRSC table's TTL cannot change (strong_ops.go).
func (r *Region) UpdateTimeToLive(ctx context.Context, in *wire.UpdateTimeToLiveInput) (*wire.UpdateTimeToLiveOutput, error) {
	if r.g.isStrong(tableName(in.TableName)) {
		return nil, ddberr.Validation(msgStrongTTL)
	}
	out, err := r.Engine.UpdateTimeToLive(ctx, in)
	if err == nil {
		if name, err := r.tableName(ctx, in.TableName); err == nil {
			named := *in
			named.TableName = &name
			r.g.ttlUpdated(ctx, r.name, &named)
		}
	}
	return out, err
}

// tableName is the name of the table a request names by name or ARN.
func (r *Region) tableName(ctx context.Context, p *string) (string, error) {
	if !strings.HasPrefix(deref(p), "arn:") {
		return deref(p), nil
	}
	out, err := r.Engine.DescribeTable(ctx, &wire.DescribeTableInput{TableName: p})
	if err != nil {
		return "", err
	}
	return *out.Table.TableName, nil
}

func (r *Region) DeleteTable(ctx context.Context, in *wire.DeleteTableInput) (*wire.DeleteTableOutput, error) {
	if name, err := r.tableName(ctx, in.TableName); err == nil && r.g.isReplica(name, r.name) {
		if err := r.g.checkProtection(ctx, r.name, name); err != nil {
			return nil, err
		}
	}
	out, err := r.Engine.DeleteTable(ctx, in)
	if err == nil {
		r.g.hideKept(r.name, out.TableDescription)
	}
	if err == nil && out.TableDescription != nil && out.TableDescription.TableName != nil {
		r.g.tableDeleted(*out.TableDescription.TableName, r.name)
	}
	return out, err
}

// describe adds GlobalTableVersion and the other replicas to the
// description d of region's table, when it is a global table's replica;
// while a replica is being created or deleted the table is UPDATING, as
// DynamoDB shows it.
func (g *Group) describe(region string, d *wire.TableDescription) {
	if d == nil || d.TableName == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[*d.TableName]
	if t == nil || t.replica(region) == nil {
		return
	}
	g.settle(t)
	d.GlobalTableVersion = ptr(GlobalTableVersion)
	// Settings are replicated, each replica's overrides allowed: the one
	// mode DynamoDB shows for 2019.11.21 global tables (DDB-TABLE-229).
	d.GlobalTableSettingsReplicationMode = "ENABLED_WITH_OVERRIDES"
	d.Replicas = []wire.ReplicaDescription{}
	for _, rep := range t.Replicas {
		if rep.Status != statusActive && d.TableStatus == "ACTIVE" {
			d.TableStatus = "UPDATING"
		}
		if rep.Region == region {
			continue
		}
		rd := wire.ReplicaDescription{RegionName: ptr(rep.Region), ReplicaStatus: rep.Status}
		if rep.Status == statusCreating {
			rd.ReplicaStatusPercentProgress = ptr(strconv.Itoa(g.progress(t.Name, rep.Region)))
		}
		describeSettings(&rd, rep, d)
		d.Replicas = append(d.Replicas, rd)
	}
	sort.Slice(d.Replicas, func(i, j int) bool { return *d.Replicas[i].RegionName < *d.Replicas[j].RegionName })
	// A global table shows its consistency mode: EVENTUAL (MREC) unless it
	// is STRONG. Sources: the SDK's TableDescription (the mode defaults to
	// EVENTUAL) and a DescribeTable of an MREC global table quoted in a
	// public write-up of global tables, which shows "EVENTUAL"; a table of
	// one region shows none.
	d.MultiRegionConsistency = consistencyEventual
	describeStrong(t, d)
}
