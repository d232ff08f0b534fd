package api

import "github.com/kura-db/kura/internal/wire"

var describeEndpoints = op[wire.DescribeEndpointsInput](Backend.DescribeEndpoints, nil)
