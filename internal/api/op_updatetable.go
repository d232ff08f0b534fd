package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

var updateTable = op(Backend.UpdateTable, func(in *wire.UpdateTableInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.attributeDefinitions(in.AttributeDefinitions, false)
	v.tableName(in.TableName, true)
	v.enum("billingMode", in.BillingMode, enumBillingMode)
	v.throughput("provisionedThroughput", in.ProvisionedThroughput)
	for i, u := range in.GlobalSecondaryIndexUpdates {
		p := "globalSecondaryIndexUpdates." + strconv.Itoa(i+1) + ".member."
		if c := u.Create; c != nil {
			v.indexDef(p+"create.", c.IndexName, c.KeySchema, c.Projection, maxGSIKeySchema)
			v.throughput(p+"create.provisionedThroughput", c.ProvisionedThroughput)
		}
		if x := u.Update; x != nil {
			v.notNull(p+"update.indexName", x.IndexName == nil)
			v.indexName(p+"update.indexName", x.IndexName)
			v.throughput(p+"update.provisionedThroughput", x.ProvisionedThroughput)
		}
		if x := u.Delete; x != nil {
			v.notNull(p+"delete.indexName", x.IndexName == nil)
			v.indexName(p+"delete.indexName", x.IndexName)
		}
	}
	v.streamSpec(in.StreamSpecification)
	if s := in.SSESpecification; s != nil {
		v.enum("sSESpecification.sSEType", s.SSEType, enumSSEType)
		if k := s.KMSMasterKeyId; k != nil {
			v.minLen("sSESpecification.kMSMasterKeyId", quote(*k), len(*k), 1)
		}
	}
	for i, u := range in.VectorIndexUpdates {
		p := "vectorIndexUpdates." + strconv.Itoa(i+1) + ".member."
		if c := u.Create; c != nil {
			v.vectorIndexDef(p+"create.", c.IndexName, c.VectorAttribute, c.Dimensions, c.DistanceFunction, c.Projection, c.SearchSchema)
		}
		if x := u.Delete; x != nil {
			v.notNull(p+"delete.indexName", x.IndexName == nil)
			v.indexName(p+"delete.indexName", x.IndexName)
		}
	}
	if err := v.err(); err != nil {
		return err
	}
	return tableClassFault(in.TableClass)
})
