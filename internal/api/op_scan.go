package api

import "github.com/kura-db/kura/internal/wire"

var scan = op(callScan, func(in *wire.ScanInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	if err := filterOperator(in.ConditionalOperator, len(in.ScanFilter)); err != nil {
		return err
	}
	var v validator
	v.readEnums(in.Select, in.ConditionalOperator, in.ReturnConsumedCapacity)
	v.attributesToGet("attributesToGet", in.AttributesToGet)
	v.tableName(in.TableName, true)
	v.indexName("indexName", in.IndexName)
	v.rangeNoEcho("Limit", in.Limit, 1, 1<<31-1)
	v.rangeNoEcho("Segment", in.Segment, 0, 999999)
	v.rangeNoEcho("TotalSegments", in.TotalSegments, 1, 1000000)
	v.conditions("scanFilter", in.ScanFilter)
	return v.err()
})
