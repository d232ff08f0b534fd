package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

var restoreTableFromBackup = op(Backend.RestoreTableFromBackup, func(in *wire.RestoreTableFromBackupInput) error {
	var v validator
	v.notNull("targetTableName", in.TargetTableName == nil)
	if in.TargetTableName != nil {
		v.plainName("targetTableName", *in.TargetTableName)
	}
	v.backupArn("backupArn", in.BackupArn, true)
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
