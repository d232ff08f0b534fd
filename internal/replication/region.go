package replication

import (
	"context"
	"sort"
	"strconv"

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
	}
	return out, err
}

func (r *Region) UpdateTable(ctx context.Context, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
	if len(in.ReplicaUpdates) > 0 || len(in.GlobalTableWitnessUpdates) > 0 {
		return r.g.updateReplicas(ctx, r.name, in)
	}
	out, err := r.Engine.UpdateTable(ctx, in)
	if err == nil {
		r.g.describe(r.name, out.TableDescription)
	}
	return out, err
}

func (r *Region) DeleteTable(ctx context.Context, in *wire.DeleteTableInput) (*wire.DeleteTableOutput, error) {
	out, err := r.Engine.DeleteTable(ctx, in)
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
	d.GlobalTableVersion = ptr(GlobalTableVersion)
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
		if d.TableClassSummary != nil {
			rd.ReplicaTableClassSummary = &wire.TableClassSummary{TableClass: d.TableClassSummary.TableClass}
		}
		d.Replicas = append(d.Replicas, rd)
	}
	sort.Slice(d.Replicas, func(i, j int) bool { return *d.Replicas[i].RegionName < *d.Replicas[j].RegionName })
	describeStrong(t, d)
}
