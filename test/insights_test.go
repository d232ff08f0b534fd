package test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Contributor Insights as DynamoDB's API shows it (probe reports captured
// from DynamoDB, 2026-10-08/09): DISABLED and nothing else until first
// configured; ENABLE answers ENABLING and the table then has its rules
// (PKC and PKT; SKC and SKT with a sort key; only the throttled ones in
// THROTTLED_KEYS mode), named after the table (and index) and the enabling
// time; repeating a settled state changes nothing; List shows what is not
// DISABLED, the table before its GSIs.
func TestContributorInsights(t *testing.T) {
	c := ddb()
	table := backupTable(t, c, 0) // hash and range keys, GSI byG (hash only), LSI byL
	d, err := c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table)})
	if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.LastUpdateDateTime != nil ||
		d.ContributorInsightsMode != "" || d.ContributorInsightsRuleList != nil {
		t.Fatalf("never configured: %v %+v", err, d)
	}
	u, err := c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table),
		ContributorInsightsAction: types.ContributorInsightsActionEnable})
	if err != nil || u.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling || u.ContributorInsightsMode != types.ContributorInsightsModeAccessedAndThrottledKeys {
		t.Fatalf("ENABLE: %v %+v", err, u)
	}
	d, err = c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table)})
	if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled || d.LastUpdateDateTime == nil || len(d.ContributorInsightsRuleList) != 4 {
		t.Fatalf("enabled: %v %+v", err, d)
	}
	stamp := fmt.Sprint(d.LastUpdateDateTime.UnixMilli())
	for i, kind := range []string{"PKC", "PKT", "SKC", "SKT"} {
		if want := "DynamoDBContributorInsights-" + kind + "-" + table + "-" + stamp; d.ContributorInsightsRuleList[i] != want {
			t.Fatalf("rule %d: %s, want %s", i, d.ContributorInsightsRuleList[i], want)
		}
	}
	u, err = c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table),
		ContributorInsightsAction: types.ContributorInsightsActionEnable})
	if err != nil || u.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled {
		t.Fatalf("ENABLE again: %v %+v", err, u)
	}
	// A narrower mode keeps the rules' names, less the consumed ones.
	if _, err := c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table),
		ContributorInsightsAction: types.ContributorInsightsActionEnable, ContributorInsightsMode: types.ContributorInsightsModeThrottledKeys}); err != nil {
		t.Fatal(err)
	}
	d, _ = c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table)})
	if fmt.Sprint(d.ContributorInsightsRuleList) != fmt.Sprintf("[DynamoDBContributorInsights-PKT-%s-%s DynamoDBContributorInsights-SKT-%s-%s]", table, stamp, table, stamp) {
		t.Fatalf("THROTTLED_KEYS rules: %v", d.ContributorInsightsRuleList)
	}
	// The GSI: its own rules, named with the index.
	if _, err := c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table), IndexName: aws.String("byG"),
		ContributorInsightsAction: types.ContributorInsightsActionEnable}); err != nil {
		t.Fatal(err)
	}
	d, _ = c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table), IndexName: aws.String("byG")})
	if len(d.ContributorInsightsRuleList) != 2 || !regexp.MustCompile(`^DynamoDBContributorInsights-PKC-`+table+`-byG-\d{13}$`).MatchString(d.ContributorInsightsRuleList[0]) {
		t.Fatalf("GSI rules: %v", d.ContributorInsightsRuleList)
	}
	l, err := c.ListContributorInsights(bg, &dynamodb.ListContributorInsightsInput{TableName: aws.String(table), MaxResults: 1})
	if err != nil || len(l.ContributorInsightsSummaries) != 1 || l.ContributorInsightsSummaries[0].IndexName != nil || l.NextToken == nil ||
		l.ContributorInsightsSummaries[0].ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys {
		t.Fatalf("List page 1: %v %+v", err, l)
	}
	l, err = c.ListContributorInsights(bg, &dynamodb.ListContributorInsightsInput{TableName: aws.String(table), MaxResults: 1, NextToken: l.NextToken})
	if err != nil || len(l.ContributorInsightsSummaries) != 1 || aws.ToString(l.ContributorInsightsSummaries[0].IndexName) != "byG" || l.NextToken != nil {
		t.Fatalf("List page 2: %v %+v", err, l)
	}

	// DISABLE answers DISABLING with the current mode; then DISABLED, the
	// mode and time kept, no rules; DISABLE again changes nothing.
	u, err = c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table),
		ContributorInsightsAction: types.ContributorInsightsActionDisable, ContributorInsightsMode: types.ContributorInsightsModeAccessedAndThrottledKeys})
	if err != nil || u.ContributorInsightsStatus != types.ContributorInsightsStatusDisabling || u.ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys {
		t.Fatalf("DISABLE: %v %+v", err, u)
	}
	d, _ = c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table)})
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.ContributorInsightsRuleList != nil || d.LastUpdateDateTime == nil ||
		d.ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys {
		t.Fatalf("disabled: %+v", d)
	}
	u, err = c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table),
		ContributorInsightsAction: types.ContributorInsightsActionDisable})
	if err != nil || u.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled {
		t.Fatalf("DISABLE again: %v %+v", err, u)
	}
	l, _ = c.ListContributorInsights(bg, &dynamodb.ListContributorInsightsInput{TableName: aws.String(table)})
	if len(l.ContributorInsightsSummaries) != 1 || aws.ToString(l.ContributorInsightsSummaries[0].IndexName) != "byG" {
		t.Fatalf("List after disabling the table: %+v", l)
	}

	// Errors in DynamoDB's words.
	_, err = c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table + "-none")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+table+"-none not found")
	_, err = c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table), IndexName: aws.String("byL"),
		ContributorInsightsAction: types.ContributorInsightsActionEnable})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index: byL not found for table: "+table)
	_, err = c.DescribeContributorInsights(bg, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(table), IndexName: aws.String("")})
	wantAPIError(t, err, "ValidationException", "IndexName must be at least 3 characters long and at most 255 characters long")
	typ, msg := rawCall(t, shared, "UpdateContributorInsights", `{"TableName":"`+table+`","ContributorInsightsAction":"ENABLE","ContributorInsightsMode":""}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value '' at 'contributorInsightsMode' failed to satisfy constraint: "+
		"Member must satisfy enum value set: [THROTTLED_KEYS, ACCESSED_AND_THROTTLED_KEYS]" {
		t.Fatalf("empty mode: %s %q", typ, msg)
	}
}

// A table still being created cannot have Contributor Insights turned on.
func TestContributorInsightsWhileCreating(t *testing.T) {
	k := startKura(t, "--in-memory", "--create-delay", "1h")
	c := k.client()
	table := createTableNoWait(t, c)
	_, err := c.UpdateContributorInsights(bg, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(table),
		ContributorInsightsAction: types.ContributorInsightsActionEnable})
	wantAPIError(t, err, "ValidationException", "Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights.")
}

func createTableNoWait(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	table := uniqueTable("ci")
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	return table
}
