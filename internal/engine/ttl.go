package engine

import (
	"context"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// DescribeTimeToLive reports the table's TTL setting: ENABLED with its
// attribute, or DISABLED (DynamoDB applies changes at once as observed, so
// ENABLING/DISABLING are not reported; see ttl_update.go).
func (e *Engine) DescribeTimeToLive(ctx context.Context, in *wire.DescribeTimeToLiveInput) (*wire.DescribeTimeToLiveOutput, error) {
	name := cpDeref(in.TableName)
	t, ok := e.lookupTable(name)
	if !ok {
		return nil, tableNotFound(name)
	}
	if t.Status == StatusCreating || t.Status == StatusDeleting {
		return nil, ddberr.Validationf("Cannot describe time to live while table is in %s state: Current table state is %s", t.Status, t.Status)
	}
	if a := t.ttlAttribute(); a != "" {
		return &wire.DescribeTimeToLiveOutput{TimeToLiveDescription: &wire.TimeToLiveDescription{
			AttributeName: cpPtr(a), TimeToLiveStatus: "ENABLED"}}, nil
	}
	return &wire.DescribeTimeToLiveOutput{TimeToLiveDescription: &wire.TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}}, nil
}
