package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/insights"
	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/engine/tags"
	"github.com/kura-db/kura/internal/engine/ttl"
	"github.com/kura-db/kura/internal/wire"
)

// The entry points of the APIs over a table record's tags, policies,
// Contributor Insights and TTL (table_meta.go): each is its package's.

// TagResource adds or overwrites tags of a table.
func (e *Engine) TagResource(_ context.Context, in *wire.TagResourceInput) (*wire.TagResourceOutput, error) {
	return tags.TagResource(metaCore{e}, e.arnScope(), in)
}

// UntagResource removes tags (absent keys are ignored).
func (e *Engine) UntagResource(_ context.Context, in *wire.UntagResourceInput) (*wire.UntagResourceOutput, error) {
	return tags.UntagResource(metaCore{e}, e.arnScope(), in)
}

// ListTagsOfResource lists a table's tags.
func (e *Engine) ListTagsOfResource(_ context.Context, in *wire.ListTagsOfResourceInput) (*wire.ListTagsOfResourceOutput, error) {
	return tags.ListTagsOfResource(metaCore{e}, e.arnScope(), in)
}

// ResourcePolicyDocument is the policy document GetResourcePolicy would
// answer for arn, if it would answer one (api's authorizer asks it for
// every request: policies.Lookup).
func (e *Engine) ResourcePolicyDocument(_ context.Context, arn string) (string, bool) {
	return policies.Lookup(metaCore{e}, e.arnScope(), arn)
}

// PutResourcePolicy attaches a policy to a table or stream, or replaces it.
func (e *Engine) PutResourcePolicy(_ context.Context, in *wire.PutResourcePolicyInput) (*wire.PutResourcePolicyOutput, error) {
	return policies.PutResourcePolicy(metaCore{e}, e.arnScope(), in)
}

// GetResourcePolicy returns a table's or stream's policy.
func (e *Engine) GetResourcePolicy(_ context.Context, in *wire.GetResourcePolicyInput) (*wire.GetResourcePolicyOutput, error) {
	return policies.GetResourcePolicy(metaCore{e}, e.arnScope(), in)
}

// DeleteResourcePolicy removes a table's or stream's policy.
func (e *Engine) DeleteResourcePolicy(_ context.Context, in *wire.DeleteResourcePolicyInput) (*wire.DeleteResourcePolicyOutput, error) {
	return policies.DeleteResourcePolicy(metaCore{e}, e.arnScope(), in)
}

// DescribeContributorInsights describes a table's or GSI's Contributor
// Insights.
func (e *Engine) DescribeContributorInsights(_ context.Context, in *wire.DescribeContributorInsightsInput) (*wire.DescribeContributorInsightsOutput, error) {
	return insights.DescribeContributorInsights(metaCore{e}, in)
}

// UpdateContributorInsights turns Contributor Insights on or off for a
// table or GSI.
func (e *Engine) UpdateContributorInsights(_ context.Context, in *wire.UpdateContributorInsightsInput) (*wire.UpdateContributorInsightsOutput, error) {
	return insights.UpdateContributorInsights(metaCore{e}, in)
}

// ListContributorInsights lists the tables and GSIs whose Contributor
// Insights is on.
func (e *Engine) ListContributorInsights(_ context.Context, in *wire.ListContributorInsightsInput) (*wire.ListContributorInsightsOutput, error) {
	return insights.ListContributorInsights(metaCore{e}, in)
}

// DescribeTimeToLive reports the table's TTL setting.
func (e *Engine) DescribeTimeToLive(_ context.Context, in *wire.DescribeTimeToLiveInput) (*wire.DescribeTimeToLiveOutput, error) {
	return e.ttl.DescribeTimeToLive(in)
}

// UpdateTimeToLive enables or disables TTL on one attribute.
func (e *Engine) UpdateTimeToLive(_ context.Context, in *wire.UpdateTimeToLiveInput) (*wire.UpdateTimeToLiveOutput, error) {
	return e.ttl.UpdateTimeToLive(in)
}

// startTTL starts the background expirer (package ttl), guarded by the
// lease "ttl" (leases.go). Callers are in Open.
func (e *Engine) startTTL() {
	e.ttl = ttl.New(metaCore{e}, e.closing)
	if e.cfg.TTLInterval >= 0 {
		e.goBackground(func() { e.ttl.Background(e.cfg.TTLInterval, e.ttlLease()) })
	}
}

// ExpireTTL runs one expiry pass over every table with TTL enabled and
// returns how many items it deleted. The admin endpoint calls it.
func (e *Engine) ExpireTTL(ctx context.Context) (int, error) { return e.ttl.Pass(ctx) }
