package insights

import (
	"slices"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr/ddberrtest"
	"github.com/kura-db/kura/internal/engine/metatest"
	"github.com/kura-db/kura/internal/wire"
)

// core is a Core over tables in memory.
type core struct{ *metatest.Catalog[Table] }

func (c core) InsightsTable(name string) (Table, bool) { return c.Table(name) }
func (c core) InsightsTables() ([]Table, error)        { return c.All(), nil }

func (c core) SetInsights(table, index string, r *Record) error {
	c.Change(table, func(t *Table) {
		if t.Records == nil {
			t.Records = map[string]*Record{}
		}
		t.Records[index] = r
	})
	return nil
}

func key(names ...string) []wire.KeySchemaElement {
	var ks []wire.KeySchemaElement
	for _, n := range names {
		ks = append(ks, wire.KeySchemaElement{AttributeName: wire.Ptr(n)})
	}
	return ks
}

func table(name, status string, gsis ...wire.GlobalSecondaryIndexDescription) Table {
	return Table{Name: name, Status: status, Desc: &wire.TableDescription{KeySchema: key("pk"), GlobalSecondaryIndexes: gsis}}
}

func gsi(name, status string) wire.GlobalSecondaryIndexDescription {
	return wire.GlobalSecondaryIndexDescription{IndexName: wire.Ptr(name), IndexStatus: status, KeySchema: key("g", "s")}
}

func enable(c Core, table string, index *string) (*wire.UpdateContributorInsightsOutput, error) {
	return UpdateContributorInsights(c, &wire.UpdateContributorInsightsInput{TableName: wire.Ptr(table), IndexName: index, ContributorInsightsAction: "ENABLE"})
}

// TestInsightsAPIs: enabling a table's and a GSI's Contributor Insights
// through the Core, describing them with their rules, listing them in
// pages; the refusals of what does not exist or is not ACTIVE yet.
func TestInsightsAPIs(t *testing.T) {
	c := core{metatest.New(time.UnixMilli(5000), map[string]Table{
		"b":   table("b", "ACTIVE", gsi("gsi2", "ACTIVE"), gsi("gsi1", "ACTIVE"), gsi("new", "CREATING")),
		"a":   table("a", "ACTIVE"),
		"cre": table("cre", "CREATING"),
	})}
	for _, r := range []struct {
		table string
		index *string
	}{{"b", nil}, {"b", wire.Ptr("gsi2")}, {"b", wire.Ptr("gsi1")}, {"a", nil}} {
		out, err := enable(c, r.table, r.index)
		if err != nil || out.ContributorInsightsStatus != Enabling || out.ContributorInsightsMode != All {
			t.Fatalf("enable %s %v: %v %v", r.table, r.index, out, err)
		}
	}
	if out, err := enable(c, "a", nil); err != nil || out.ContributorInsightsStatus != Enabled {
		t.Fatalf("enabling again changes nothing: %v %v", out, err)
	}
	d, err := DescribeContributorInsights(c, &wire.DescribeContributorInsightsInput{TableName: wire.Ptr("b"), IndexName: wire.Ptr("gsi1")})
	want := []string{"DynamoDBContributorInsights-PKC-b-gsi1-5000", "DynamoDBContributorInsights-PKT-b-gsi1-5000",
		"DynamoDBContributorInsights-SKC-b-gsi1-5000", "DynamoDBContributorInsights-SKT-b-gsi1-5000"}
	if err != nil || d.ContributorInsightsStatus != Enabled || !slices.Equal(d.ContributorInsightsRuleList, want) {
		t.Fatalf("describe b/gsi1: %v %v", d, err)
	}
	var listed []string
	var token *string
	for {
		out, err := ListContributorInsights(c, &wire.ListContributorInsightsInput{MaxResults: wire.Ptr(int32(3)), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range out.ContributorInsightsSummaries {
			listed = append(listed, wire.Deref(s.TableName)+"/"+wire.Deref(s.IndexName))
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	if !slices.Equal(listed, []string{"a/", "b/", "b/gsi1", "b/gsi2"}) {
		t.Fatalf("listed %v", listed)
	}
	_, err = enable(c, "cre", nil)
	ddberrtest.Want(t, "a CREATING table", err, "ValidationException", "Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights.")
	_, err = enable(c, "b", wire.Ptr("new"))
	ddberrtest.Want(t, "a CREATING GSI", err, "ValidationException", "Table or Index is not in a valid state to update Key Access Insights: IndexStatus must be ACTIVE to enable ContributorInsights.")
	_, err = enable(c, "b", wire.Ptr("nope"))
	ddberrtest.Want(t, "no GSI", err, "ResourceNotFoundException", "Requested resource not found: Index: nope not found for table: b")
	_, err = enable(c, "nope", nil)
	ddberrtest.Want(t, "no table", err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	_, err = enable(c, "b", wire.Ptr("x"))
	ddberrtest.Want(t, "a short index name", err, "ValidationException", "IndexName must be at least 3 characters long and at most 255 characters long")
}
