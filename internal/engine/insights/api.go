package insights

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Core is what the Contributor Insights APIs need of the core: its clock,
// its tables and their records.
type Core interface {
	// DDL is the control-plane lock: table records change holding it.
	DDL() sync.Locker
	Now() time.Time
	// InsightsTable is the named table now, ok false when there is none.
	InsightsTable(name string) (t Table, ok bool)
	// InsightsTables are all the tables, in no order.
	InsightsTables() ([]Table, error)
	// SetInsights stores the Record of a table ("") or of one of its GSIs
	// in the table's record (the caller holds DDL).
	SetInsights(table, index string, r *Record) error
}

// Table is a table as the Contributor Insights APIs see it.
type Table struct {
	Name   string
	Status string // CREATING, ACTIVE, UPDATING or DELETING
	// Desc is its stored definition: key schema, GSIs and their statuses.
	Desc *wire.TableDescription
	// Records are its Records by index name ("" for the table).
	Records map[string]*Record
}

// target is the table, or GSI, a request names;
// ResourceNotFoundException in DynamoDB's words when it does not exist (an
// LSI included).
func target(c Core, table string, index *string) (Table, string, error) {
	t, ok := c.InsightsTable(table)
	if !ok {
		return Table{}, "", tableNotFound(table)
	}
	if index == nil {
		return t, "", nil
	}
	if !slices.ContainsFunc(t.Desc.GlobalSecondaryIndexes, func(g wire.GlobalSecondaryIndexDescription) bool {
		return wire.Deref(g.IndexName) == *index && g.IndexStatus != "DELETING"
	}) {
		return Table{}, "", ddberr.ResourceNotFound("Requested resource not found: Index: " + *index + " not found for table: " + t.Name)
	}
	return t, *index, nil
}

func tableNotFound(name string) error {
	return ddberr.ResourceNotFound("Requested resource not found: Table: " + name + " not found")
}

// rules are the names of the rules DynamoDB keeps for a table or GSI in
// r's mode (Rules).
func (t Table) rules(index string, r *Record) []string {
	resource := t.Name
	ks := t.Desc.KeySchema
	if index != "" {
		resource += "-" + index
		for _, g := range t.Desc.GlobalSecondaryIndexes {
			if wire.Deref(g.IndexName) == index {
				ks = g.KeySchema
			}
		}
	}
	return Rules(resource, len(ks) > 1, r)
}

// DescribeContributorInsights describes a table's or GSI's Contributor
// Insights: only the status for one never configured; the mode and the
// time of the last change once configured; the rules while enabled.
func DescribeContributorInsights(c Core, in *wire.DescribeContributorInsightsInput) (*wire.DescribeContributorInsightsOutput, error) {
	if err := CheckIndexName(in.IndexName); err != nil {
		return nil, err
	}
	t, index, err := target(c, wire.Deref(in.TableName), in.IndexName)
	if err != nil {
		return nil, err
	}
	out := &wire.DescribeContributorInsightsOutput{TableName: wire.Ptr(t.Name), IndexName: in.IndexName, ContributorInsightsStatus: Disabled}
	if r := t.Records[index]; r != nil {
		out.ContributorInsightsMode = r.Mode
		out.LastUpdateDateTime = wire.NewTime(r.Changed)
		if r.Enabled {
			out.ContributorInsightsStatus = Enabled
			out.ContributorInsightsRuleList = t.rules(index, r)
		}
	}
	return out, nil
}

// UpdateContributorInsights turns Contributor Insights on (in a mode,
// ACCESSED_AND_THROTTLED_KEYS unless given) or off for a table or GSI.
func UpdateContributorInsights(c Core, in *wire.UpdateContributorInsightsInput) (*wire.UpdateContributorInsightsOutput, error) {
	if err := CheckIndexName(in.IndexName); err != nil {
		return nil, err
	}
	ddl := c.DDL()
	ddl.Lock()
	defer ddl.Unlock()
	t, index, err := target(c, wire.Deref(in.TableName), in.IndexName)
	if err != nil {
		return nil, err
	}
	enable := in.ContributorInsightsAction == "ENABLE"
	if enable {
		if err := t.active(index); err != nil {
			return nil, err
		}
	}
	next, status, mode := Update(t.Records[index], enable, in.ContributorInsightsMode, c.Now())
	out := &wire.UpdateContributorInsightsOutput{TableName: wire.Ptr(t.Name), IndexName: in.IndexName, ContributorInsightsMode: mode}
	if next != nil {
		if err := c.SetInsights(t.Name, index, next); err != nil {
			return out, err
		}
	}
	out.ContributorInsightsStatus = status
	return out, nil
}

// active refuses to enable Contributor Insights on a table or GSI that is
// not ACTIVE yet.
func (t Table) active(index string) error {
	const prefix = "Table or Index is not in a valid state to update Key Access Insights: "
	if t.Status == "CREATING" {
		return ddberr.Validation(prefix + "TableStatus must be ACTIVE to enable ContributorInsights.")
	}
	for _, g := range t.Desc.GlobalSecondaryIndexes {
		if wire.Deref(g.IndexName) == index && (g.IndexStatus != "ACTIVE" || wire.Deref(g.Backfilling)) {
			return ddberr.Validation(prefix + "IndexStatus must be ACTIVE to enable ContributorInsights.")
		}
	}
	return nil
}

// ListContributorInsights lists the tables and GSIs whose Contributor
// Insights is not DISABLED: each table, then its GSIs; of one table when
// TableName is given. NextToken resumes after the last one listed.
func ListContributorInsights(c Core, in *wire.ListContributorInsightsInput) (*wire.ListContributorInsightsOutput, error) {
	var list []Table
	if name := wire.Deref(in.TableName); name != "" {
		t, ok := c.InsightsTable(name)
		if !ok {
			return nil, tableNotFound(name)
		}
		list = []Table{t}
	} else {
		var err error
		if list, err = c.InsightsTables(); err != nil {
			return nil, err
		}
		slices.SortFunc(list, func(a, b Table) int { return strings.Compare(a.Name, b.Name) })
	}
	after, err := ParseToken(in.NextToken)
	if err != nil {
		return nil, err
	}
	limit := int(wire.Deref(in.MaxResults))
	if limit <= 0 {
		limit = 100
	}
	out := &wire.ListContributorInsightsOutput{ContributorInsightsSummaries: []wire.ContributorInsightsSummary{}}
	for _, t := range list {
		names := []string{""}
		for _, g := range t.Desc.GlobalSecondaryIndexes {
			names = append(names, wire.Deref(g.IndexName))
		}
		slices.Sort(names[1:])
		for _, index := range names {
			r := t.Records[index]
			if r == nil || !r.Enabled {
				continue
			}
			pos := Position(t.Name, index)
			if after != "" && pos <= after {
				continue
			}
			if len(out.ContributorInsightsSummaries) == limit {
				out.NextToken = wire.Ptr(Token(after))
				return out, nil
			}
			s := wire.ContributorInsightsSummary{TableName: wire.Ptr(t.Name), ContributorInsightsStatus: Enabled, ContributorInsightsMode: r.Mode}
			if index != "" {
				s.IndexName = wire.Ptr(index)
			}
			out.ContributorInsightsSummaries = append(out.ContributorInsightsSummaries, s)
			after = pos
		}
	}
	return out, nil
}
