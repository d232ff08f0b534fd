package api

import "github.com/kura-db/kura/internal/wire"

// The sets in DynamoDB's order (a probe of DynamoDB, 2026-10: the mode's
// set starts with THROTTLED_KEYS).
var (
	enumInsightsAction = []string{"ENABLE", "DISABLE"}
	enumInsightsMode   = []string{"THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"}
)

var updateContributorInsights = op(Backend.UpdateContributorInsights, func(in *wire.UpdateContributorInsightsInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.tableName(in.TableName, true)
	v.notNull("contributorInsightsAction", in.ContributorInsightsAction == "")
	v.enum("contributorInsightsAction", in.ContributorInsightsAction, enumInsightsAction)
	v.enum("contributorInsightsMode", in.ContributorInsightsMode, enumInsightsMode)
	return v.err()
})
