package engine

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// CloudWatch Contributor Insights for DynamoDB: a table or GSI with it on
// has the rules DynamoDB creates (their names are what the API shows); the
// metrics themselves live in CloudWatch, which Kura does not have. What is
// kept is the API's state, with the transitions DynamoDB reports (probe
// reports captured from DynamoDB, 2026-10-08/09): an ENABLE or DISABLE
// that changes something answers ENABLING or DISABLING and is settled at
// once; one that changes nothing answers the settled status.

// Contributor Insights statuses and modes.
const (
	insightsEnabled   = "ENABLED"
	insightsDisabled  = "DISABLED"
	insightsEnabling  = "ENABLING"
	insightsDisabling = "DISABLING"
	insightsAll       = "ACCESSED_AND_THROTTLED_KEYS"
	insightsThrottled = "THROTTLED_KEYS"
)

// insightsRecord is the Contributor Insights state of a table ("" in
// tableRecord.Insights) or of one of its GSIs (by index name).
type insightsRecord struct {
	Enabled bool      `json:"enabled"`
	Mode    string    `json:"mode"`
	Stamp   int64     `json:"stamp"`   // ms in the rule names: the enabling time
	Changed time.Time `json:"changed"` // LastUpdateDateTime
}

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
// GSI in a mode: partition-key rules, and sort-key ones when it has a sort
// key; consumed (C) ones only when all access is tracked.
func insightsRules(t *Table, index string, r *insightsRecord) []string {
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
	kinds := []string{"PKC", "PKT"}
	if len(ks) > 1 {
		kinds = append(kinds, "SKC", "SKT")
	}
	var out []string
	for _, k := range kinds {
		if r.Mode == insightsThrottled && k[2] == 'C' {
			continue
		}
		out = append(out, fmt.Sprintf("DynamoDBContributorInsights-%s-%s-%d", k, resource, r.Stamp))
	}
	return out
}

// DescribeContributorInsights describes a table's or GSI's Contributor
// Insights: only the status for one never configured; the mode and the
// time of the last change once configured; the rules while enabled.
func (e *Engine) DescribeContributorInsights(ctx context.Context, in *wire.DescribeContributorInsightsInput) (*wire.DescribeContributorInsightsOutput, error) {
	if err := insightsIndexName(in.IndexName); err != nil {
		return nil, err
	}
	t, index, err := e.insightsTarget(cpDeref(in.TableName), in.IndexName)
	if err != nil {
		return nil, err
	}
	out := &wire.DescribeContributorInsightsOutput{TableName: cpPtr(t.Name), IndexName: in.IndexName, ContributorInsightsStatus: insightsDisabled}
	if r := t.rec.Insights[index]; r != nil {
		out.ContributorInsightsMode = r.Mode
		out.LastUpdateDateTime = wire.NewTime(r.Changed)
		if r.Enabled {
			out.ContributorInsightsStatus = insightsEnabled
			out.ContributorInsightsRuleList = insightsRules(t, index, r)
		}
	}
	return out, nil
}

// insightsIndexName is DynamoDB's own check of an IndexName given to the
// Contributor Insights operations.
func insightsIndexName(p *string) error {
	if p != nil && (len(*p) < 3 || len(*p) > 255) {
		return ddberr.Validation("IndexName must be at least 3 characters long and at most 255 characters long")
	}
	return nil
}

// UpdateContributorInsights turns Contributor Insights on (in a mode,
// ACCESSED_AND_THROTTLED_KEYS unless given) or off for a table or GSI.
func (e *Engine) UpdateContributorInsights(ctx context.Context, in *wire.UpdateContributorInsightsInput) (*wire.UpdateContributorInsightsOutput, error) {
	if err := insightsIndexName(in.IndexName); err != nil {
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, index, err := e.insightsTarget(cpDeref(in.TableName), in.IndexName)
	if err != nil {
		return nil, err
	}
	enable := in.ContributorInsightsAction == "ENABLE"
	cur := t.rec.Insights[index]
	out := &wire.UpdateContributorInsightsOutput{TableName: cpPtr(t.Name), IndexName: in.IndexName}
	if !enable {
		if cur == nil || !cur.Enabled {
			out.ContributorInsightsStatus = insightsDisabled // nothing to do
			if cur != nil {
				out.ContributorInsightsMode = cur.Mode
			}
			return out, nil
		}
		out.ContributorInsightsMode = cur.Mode // the current one, whatever was sent
		return out, e.saveInsights(t, index, &insightsRecord{Mode: cur.Mode, Stamp: cur.Stamp, Changed: e.clock.Now()}, out, insightsDisabling)
	}
	if err := insightsActive(t, index); err != nil {
		return nil, err
	}
	mode := in.ContributorInsightsMode
	if mode == "" {
		mode = insightsAll
	}
	out.ContributorInsightsMode = mode
	if cur != nil && cur.Enabled && cur.Mode == mode {
		out.ContributorInsightsStatus = insightsEnabled // nothing to do
		return out, nil
	}
	now := e.clock.Now()
	next := &insightsRecord{Enabled: true, Mode: mode, Stamp: now.UnixMilli(), Changed: now}
	if cur != nil && cur.Enabled {
		next.Stamp = cur.Stamp // a mode change keeps the rules' names
	}
	return out, e.saveInsights(t, index, next, out, insightsEnabling)
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

// saveInsights stores a table's or GSI's new Contributor Insights state;
// the answer reports the transition (status).
func (e *Engine) saveInsights(t *Table, index string, r *insightsRecord, out *wire.UpdateContributorInsightsOutput, status string) error {
	rec := t.rec.clone()
	if rec.Insights == nil {
		rec.Insights = map[string]*insightsRecord{}
	}
	rec.Insights[index] = r
	if _, err := e.saveRecord(rec); err != nil {
		return err
	}
	out.ContributorInsightsStatus = status
	return nil
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
	after, err := insightsToken(in.NextToken)
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
			pos := t.Name + "\x00" + index
			if after != "" && pos <= after {
				continue
			}
			if len(out.ContributorInsightsSummaries) == limit {
				out.NextToken = cpPtr(base64.RawURLEncoding.EncodeToString([]byte(after)))
				return out, nil
			}
			s := wire.ContributorInsightsSummary{TableName: cpPtr(t.Name), ContributorInsightsStatus: insightsEnabled, ContributorInsightsMode: r.Mode}
			if index != "" {
				s.IndexName = cpPtr(index)
			}
			out.ContributorInsightsSummaries = append(out.ContributorInsightsSummaries, s)
			after = pos
		}
	}
	return out, nil
}

// insightsToken reads a ListContributorInsights NextToken: the position
// (table, NUL, index) of the last entry a page listed.
func insightsToken(p *string) (string, error) {
	if p == nil {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*p)
	if err != nil || !strings.Contains(string(b), "\x00") {
		return "", ddberr.Validation("Invalid NextToken: " + *p)
	}
	return string(b), nil
}
