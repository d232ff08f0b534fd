package engine

import (
	"context"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// DescribeTimeToLive reports the table's TTL setting (always DISABLED until
// TTL support lands).
func (e *Engine) DescribeTimeToLive(ctx context.Context, in *wire.DescribeTimeToLiveInput) (*wire.DescribeTimeToLiveOutput, error) {
	name := cpDeref(in.TableName)
	t, ok := e.lookupTable(name)
	if !ok {
		return nil, tableNotFound(name)
	}
	if t.Status == StatusCreating || t.Status == StatusDeleting {
		return nil, ddberr.Validationf("Cannot describe time to live while table is in %s state: Current table state is %s", t.Status, t.Status)
	}
	return &wire.DescribeTimeToLiveOutput{TimeToLiveDescription: &wire.TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}}, nil
}
