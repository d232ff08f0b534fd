package api

import "github.com/kura-db/kura/internal/wire"

var describeTimeToLive = op(Backend.DescribeTimeToLive, func(in *wire.DescribeTimeToLiveInput) error {
	return tableNameOnly(in.TableName)
})
