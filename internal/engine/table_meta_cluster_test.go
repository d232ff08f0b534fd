package engine

import (
	"strconv"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// TestClusterTableMetaAcrossNodes: what one node changes of a table's
// tags, policies, Contributor Insights and TTL, the next request through
// another node sees and builds on at once, though that node had the table
// cached (its recheck is once a second): it neither answers the old
// setting nor fails a change built on its cached record.
func TestClusterTableMetaAcrossNodes(t *testing.T) {
	forEachCluster(t, 2, func(t *testing.T, nodes []*Engine) {
		a, b := nodes[0], nodes[1]
		dpTable(t, a, "meta", "pk:S")
		arn := "arn:aws:dynamodb:us-east-1:000000000000:table/meta"
		tag := func(e *Engine, k string) {
			t.Helper()
			if _, err := e.TagResource(dpCtx, &wire.TagResourceInput{ResourceArn: &arn, Tags: []wire.Tag{{Key: dpStr(k), Value: dpStr("v")}}}); err != nil {
				t.Fatalf("TagResource %s: %v", k, err)
			}
		}
		// b caches the table.
		if _, err := b.ListTagsOfResource(dpCtx, &wire.ListTagsOfResourceInput{ResourceArn: &arn}); err != nil {
			t.Fatal(err)
		}
		tag(a, "one")
		tag(b, "two")
		out, err := a.ListTagsOfResource(dpCtx, &wire.ListTagsOfResourceInput{ResourceArn: &arn})
		if err != nil || len(out.Tags) != 2 {
			t.Fatalf("tags after one tag through each node: %v %v", out, err)
		}

		if _, err := b.DescribeTimeToLive(dpCtx, &wire.DescribeTimeToLiveInput{TableName: dpStr("meta")}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.UpdateTimeToLive(dpCtx, &wire.UpdateTimeToLiveInput{TableName: dpStr("meta"),
			TimeToLiveSpecification: &wire.TimeToLiveSpecification{AttributeName: dpStr("exp"), Enabled: cpPtr(true)}}); err != nil {
			t.Fatal(err)
		}
		ttl, err := b.DescribeTimeToLive(dpCtx, &wire.DescribeTimeToLiveInput{TableName: dpStr("meta")})
		if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != "ENABLED" {
			t.Fatalf("TTL through the other node: %v %v", ttl, err)
		}

		if _, err := a.UpdateContributorInsights(dpCtx, &wire.UpdateContributorInsightsInput{TableName: dpStr("meta"), ContributorInsightsAction: "ENABLE"}); err != nil {
			t.Fatal(err)
		}
		ci, err := b.DescribeContributorInsights(dpCtx, &wire.DescribeContributorInsightsInput{TableName: dpStr("meta")})
		if err != nil || ci.ContributorInsightsStatus != "ENABLED" {
			t.Fatalf("Contributor Insights through the other node: %v %v", ci, err)
		}

		doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`
		put, err := a.PutResourcePolicy(dpCtx, &wire.PutResourcePolicyInput{ResourceArn: &arn, Policy: &doc})
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := b.ResourcePolicyDocument(dpCtx, arn); !ok || got != doc {
			t.Fatalf("the policy through the other node: %q %v", got, ok)
		}
		if _, err := b.DeleteResourcePolicy(dpCtx, &wire.DeleteResourcePolicyInput{ResourceArn: &arn, ExpectedRevisionId: put.RevisionId}); err != nil {
			t.Fatalf("deleting the policy through the other node: %v", err)
		}

		// A table created and given TTL through a only: b's pass finds it.
		dpTable(t, a, "expiring", "pk:S")
		if _, err := a.UpdateTimeToLive(dpCtx, &wire.UpdateTimeToLiveInput{TableName: dpStr("expiring"),
			TimeToLiveSpecification: &wire.TimeToLiveSpecification{AttributeName: dpStr("exp"), Enabled: cpPtr(true)}}); err != nil {
			t.Fatal(err)
		}
		dpPut(t, a, "expiring", attr.Item{"pk": dpS("old"), "exp": {T: attr.N, Str: strconv.FormatInt(time.Now().Unix()-60, 10)}})
		if n, err := b.ExpireTTL(dpCtx); err != nil || n != 1 {
			t.Fatalf("a TTL pass through the other node deleted %d (%v), want the one expired item", n, err)
		}
	})
}

// TestClusterTableChangesAcrossNodes: an UpdateTable and a DeleteTable
// through a node that had the table cached build on the table as another
// node left it, rather than fail on their cached record.
func TestClusterTableChangesAcrossNodes(t *testing.T) {
	forEachCluster(t, 2, func(t *testing.T, nodes []*Engine) {
		a, b := nodes[0], nodes[1]
		if _, err := a.CreateTable(dpCtx, ctlProvisioned("tput", 1, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr("tput")}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.UpdateTable(dpCtx, &wire.UpdateTableInput{TableName: dpStr("tput"), ProvisionedThroughput: ctlPT(2, 2)}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.UpdateTable(dpCtx, &wire.UpdateTableInput{TableName: dpStr("tput"), ProvisionedThroughput: ctlPT(3, 3)}); err != nil {
			t.Fatalf("UpdateTable through the other node: %v", err)
		}
		if _, err := a.UpdateTable(dpCtx, &wire.UpdateTableInput{TableName: dpStr("tput"), DeletionProtectionEnabled: cpPtr(false)}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: dpStr("tput")}); err != nil {
			t.Fatalf("DeleteTable through the other node: %v", err)
		}
	})
}
