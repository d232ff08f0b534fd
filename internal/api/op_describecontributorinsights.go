package api

import "github.com/kura-db/kura/internal/wire"

var describeContributorInsights = op(Backend.DescribeContributorInsights, func(in *wire.DescribeContributorInsightsInput) error {
	return tableNameOnly(in.TableName)
})
