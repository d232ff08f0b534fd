package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/insights"
	"github.com/kura-db/kura/internal/wire"
)

// CloudWatch Contributor Insights for DynamoDB: a table or GSI with it on
// has the rules DynamoDB creates (their names are what the API shows); the
// metrics themselves live in CloudWatch, which Kura does not have. What is
// kept is the API's state, with the transitions DynamoDB reports (probe
// reports captured from DynamoDB, 2026-10-08/09): an ENABLE or DISABLE
// that changes something answers ENABLING or DISABLING and is settled at
// once; one that changes nothing answers the settled status. The state
// machine is package insights'; this file resolves the table or GSI a
// request names and keeps the state in the table record.

// insightsTarget is the table, or GSI, a Contributor Insights request
// names; ResourceNotFoundException in DynamoDB's words when it does not
// exist (an LSI included).
func (e *Engine) insightsTarget(table string, index *string) (*Table, string, error) {
	t, ok := e.lookupTable(table)
	if !ok {
		return nil, "", ddberr.ResourceNotFound("Requested resource not found: Table: " + table + " not found")
	}
	if index == nil {
		return t, "", nil
	}
	if !slices.ContainsFunc(t.Desc.GlobalSecondaryIndexes, func(g wire.GlobalSecondaryIndexDescription) bool {
		return cpDeref(g.IndexName) == *index && g.IndexStatus != StatusDeleting
	}) {
		return nil, "", ddberr.ResourceNotFound("Requested resource not found: Index: " + *index + " not found for table: " + t.Name)
	}
	return t, *index, nil
}

// insightsRules are the names of the rules DynamoDB keeps for a table or
// GSI in r's mode (insights.Rules).
func insightsRules(t *Table, index string, r *insights.Record) []string {
	resource := t.Name
	ks := t.Desc.KeySchema
	if index != "" {
		resource += "-" + index
		for _, g := range t.Desc.GlobalSecondaryIndexes {
			if cpDeref(g.IndexName) == index {
				ks = g.KeySchema
			}
		}
	}
	return insights.Rules(resource, len(ks) > 1, r)
}

// DescribeContributorInsights describes a table's or GSI's Contributor
// Insights: only the status for one never configured; the mode and the
// time of the last change once configured; the rules while enabled.
func (e *Engine) DescribeContributorInsights(ctx context.Context, in *wire.DescribeContributorInsightsInput) (*wire.DescribeContributorInsightsOutput, error) {
	if err := insights.CheckIndexName(in.IndexName); err != nil {
		return nil, err
	}
	t, index, err := e.insightsTarget(cpDeref(in.TableName), in.IndexName)
	if err != nil {
		return nil, err
	}
	out := &wire.DescribeContributorInsightsOutput{TableName: cpPtr(t.Name), IndexName: in.IndexName, ContributorInsightsStatus: insights.Disabled}
	if r := t.rec.Insights[index]; r != nil {
		out.ContributorInsightsMode = r.Mode
		out.LastUpdateDateTime = wire.NewTime(r.Changed)
		if r.Enabled {
			out.ContributorInsightsStatus = insights.Enabled
			out.ContributorInsightsRuleList = insightsRules(t, index, r)
		}
	}
	return out, nil
}

// UpdateContributorInsights turns Contributor Insights on (in a mode,
// ACCESSED_AND_THROTTLED_KEYS unless given) or off for a table or GSI.
func (e *Engine) UpdateContributorInsights(ctx context.Context, in *wire.UpdateContributorInsightsInput) (*wire.UpdateContributorInsightsOutput, error) {
	if err := insights.CheckIndexName(in.IndexName); err != nil {
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, index, err := e.insightsTarget(cpDeref(in.TableName), in.IndexName)
	if err != nil {
		return nil, err
	}
	enable := in.ContributorInsightsAction == "ENABLE"
	if enable {
		if err := insightsActive(t, index); err != nil {
			return nil, err
		}
	}
	next, status, mode := insights.Update(t.rec.Insights[index], enable, in.ContributorInsightsMode, e.clock.Now())
	out := &wire.UpdateContributorInsightsOutput{TableName: cpPtr(t.Name), IndexName: in.IndexName, ContributorInsightsMode: mode}
	if next != nil {
		if err := e.saveInsights(t, index, next); err != nil {
			return out, err
		}
	}
	out.ContributorInsightsStatus = status
	return out, nil
}

// insightsActive refuses to enable Contributor Insights on a table or GSI
// that is not ACTIVE yet.
func insightsActive(t *Table, index string) error {
	const prefix = "Table or Index is not in a valid state to update Key Access Insights: "
	if t.Status == StatusCreating {
		return ddberr.Validation(prefix + "TableStatus must be ACTIVE to enable ContributorInsights.")
	}
	for _, g := range t.Desc.GlobalSecondaryIndexes {
		if cpDeref(g.IndexName) == index && (g.IndexStatus != StatusActive || cpDeref(g.Backfilling)) {
			return ddberr.Validation(prefix + "IndexStatus must be ACTIVE to enable ContributorInsights.")
		}
	}
	return nil
}

// saveInsights stores a table's or GSI's new Contributor Insights state.
func (e *Engine) saveInsights(t *Table, index string, r *insights.Record) error {
	rec := t.rec.Clone()
	if rec.Insights == nil {
		rec.Insights = map[string]*insights.Record{}
	}
	rec.Insights[index] = r
	_, err := e.saveRecord(rec)
	return err
}

// ListContributorInsights lists the tables and GSIs whose Contributor
// Insights is not DISABLED: each table, then its GSIs; of one table when
// TableName is given. NextToken resumes after the last one listed.
func (e *Engine) ListContributorInsights(ctx context.Context, in *wire.ListContributorInsightsInput) (*wire.ListContributorInsightsOutput, error) {
	var tables []*Table
	if name := cpDeref(in.TableName); name != "" {
		t, ok := e.lookupTable(name)
		if !ok {
			return nil, ddberr.ResourceNotFound("Requested resource not found: Table: " + name + " not found")
		}
		tables = []*Table{t}
	} else {
		tables = e.snapshotTables()
		slices.SortFunc(tables, func(a, b *Table) int { return strings.Compare(a.Name, b.Name) })
	}
	after, err := insights.ParseToken(in.NextToken)
	if err != nil {
		return nil, err
	}
	limit := int(cpDeref(in.MaxResults))
	if limit <= 0 {
		limit = 100
	}
	out := &wire.ListContributorInsightsOutput{ContributorInsightsSummaries: []wire.ContributorInsightsSummary{}}
	for _, t := range tables {
		names := []string{""}
		for _, g := range t.Desc.GlobalSecondaryIndexes {
			names = append(names, cpDeref(g.IndexName))
		}
		slices.Sort(names[1:])
		for _, index := range names {
			r := t.rec.Insights[index]
			if r == nil || !r.Enabled {
				continue
			}
			pos := insights.Position(t.Name, index)
			if after != "" && pos <= after {
				continue
			}
			if len(out.ContributorInsightsSummaries) == limit {
				out.NextToken = cpPtr(insights.Token(after))
				return out, nil
			}
			s := wire.ContributorInsightsSummary{TableName: cpPtr(t.Name), ContributorInsightsStatus: insights.Enabled, ContributorInsightsMode: r.Mode}
			if index != "" {
				s.IndexName = cpPtr(index)
			}
			out.ContributorInsightsSummaries = append(out.ContributorInsightsSummaries, s)
			after = pos
		}
	}
	return out, nil
}
