package api

import "github.com/kura-db/kura/internal/wire"

var describeLimits = op[wire.DescribeLimitsInput](Backend.DescribeLimits, nil)
