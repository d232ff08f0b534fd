package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

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
	v.enum("billingModeOverride", in.BillingModeOverride, enumBillingMode)
	for i, x := range in.GlobalSecondaryIndexOverride {
		p := "globalSecondaryIndexOverride." + strconv.Itoa(i+1) + ".member."
		v.indexDef(p, x.IndexName, x.KeySchema, x.Projection, maxGSIKeySchema)
		v.throughput(p+"provisionedThroughput", x.ProvisionedThroughput)
	}
	for i, x := range in.LocalSecondaryIndexOverride {
		p := "localSecondaryIndexOverride." + strconv.Itoa(i+1) + ".member."
		v.indexDef(p, x.IndexName, x.KeySchema, x.Projection, 2)
	}
	v.throughput("provisionedThroughputOverride", in.ProvisionedThroughputOverride)
	if s := in.SSESpecificationOverride; s != nil {
		v.enum("sSESpecificationOverride.sSEType", s.SSEType, enumSSEType)
	}
	return v.err()
})
