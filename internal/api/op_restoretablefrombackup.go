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
	v.restoreOverrides(in.BillingModeOverride, in.GlobalSecondaryIndexOverride, in.LocalSecondaryIndexOverride,
		in.ProvisionedThroughputOverride, in.SSESpecificationOverride)
	return v.err()
})

// restoreOverrides checks the overrides both restore operations take.
func (v *validator) restoreOverrides(billing string, gsis []wire.GlobalSecondaryIndex, lsis []wire.LocalSecondaryIndex,
	pt *wire.ProvisionedThroughput, sse *wire.SSESpecification) {
	v.enum("billingModeOverride", billing, enumBillingMode)
	for i, x := range gsis {
		p := "globalSecondaryIndexOverride." + strconv.Itoa(i+1) + ".member."
		v.indexDef(p, x.IndexName, x.KeySchema, x.Projection, maxGSIKeySchema)
		v.throughput(p+"provisionedThroughput", x.ProvisionedThroughput)
	}
	for i, x := range lsis {
		p := "localSecondaryIndexOverride." + strconv.Itoa(i+1) + ".member."
		v.indexDef(p, x.IndexName, x.KeySchema, x.Projection, 2)
	}
	v.throughput("provisionedThroughputOverride", pt)
	if sse != nil {
		v.enum("sSESpecificationOverride.sSEType", sse.SSEType, enumSSEType)
	}
}
