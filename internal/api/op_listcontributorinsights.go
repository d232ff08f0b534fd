package api

import "github.com/kura-db/kura/internal/wire"

var listContributorInsights = op(Backend.ListContributorInsights, func(in *wire.ListContributorInsightsInput) error {
	var v validator
	v.tableName(in.TableName, false)
	if p := in.MaxResults; p != nil && *p > 100 {
		v.int64Range("maxResults", int64(*p), 0, 100)
	}
	return v.err()
})
