package engine

import (
	"context"

	"github.com/kura-db/kura/internal/wire"
)

// Default account and table capacity quotas DynamoDB reports.
const (
	accountMaxCapacityUnits = 80000
	tableMaxCapacityUnits   = 40000
)

// DescribeLimits reports DynamoDB's default capacity quotas.
func (e *Engine) DescribeLimits(ctx context.Context, in *wire.DescribeLimitsInput) (*wire.DescribeLimitsOutput, error) {
	return &wire.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits:  cpPtr[int64](accountMaxCapacityUnits),
		AccountMaxWriteCapacityUnits: cpPtr[int64](accountMaxCapacityUnits),
		TableMaxReadCapacityUnits:    cpPtr[int64](tableMaxCapacityUnits),
		TableMaxWriteCapacityUnits:   cpPtr[int64](tableMaxCapacityUnits),
	}, nil
}

// DescribeEndpoints answers as DynamoDB does: its regional endpoint, cached
// for a day.
func (e *Engine) DescribeEndpoints(ctx context.Context, in *wire.DescribeEndpointsInput) (*wire.DescribeEndpointsOutput, error) {
	return &wire.DescribeEndpointsOutput{Endpoints: []wire.Endpoint{{
		Address:              cpPtr("dynamodb." + e.cfg.Region + ".amazonaws.com"),
		CachePeriodInMinutes: cpPtr[int64](1440),
	}}}, nil
}
