package api

import "github.com/kura-db/kura/internal/wire"

var restoreTableToPointInTime = op(Backend.RestoreTableToPointInTime, func(in *wire.RestoreTableToPointInTimeInput) error {
	var v validator
	v.strLen("sourceTableArn", in.SourceTableArn, 1, 1024)
	if in.SourceTableName != nil {
		v.plainName("sourceTableName", *in.SourceTableName)
	}
	v.notNull("targetTableName", in.TargetTableName == nil)
	if in.TargetTableName != nil {
		v.plainName("targetTableName", *in.TargetTableName)
	}
	v.restoreOverrides(in.BillingModeOverride, in.GlobalSecondaryIndexOverride, in.LocalSecondaryIndexOverride,
		in.ProvisionedThroughputOverride, in.SSESpecificationOverride)
	return v.err()
})
