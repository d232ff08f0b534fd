package api

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var batchWriteItem = op(Backend.BatchWriteItem, func(in *wire.BatchWriteItemInput) error {
	var v validator
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection)
	v.notNull("requestItems", in.RequestItems == nil)
	if in.RequestItems != nil && len(in.RequestItems) == 0 && len(v.vs) == 0 {
		// As BatchGetItem answers (captured); a suite run against DynamoDB
		// accepts this text for BatchWriteItem.
		return ddberr.Validation("The requestItems parameter is required for BatchWriteItem")
	}
	bad, tooMany := false, false
	for t, wrs := range in.RequestItems {
		bad = bad || !validMapTableName(t)
		tooMany = tooMany || len(wrs) < 1 || len(wrs) > 25
	}
	// A bad table name is reported only when nothing else is wrong (a
	// suite run against DynamoDB: an unknown ReturnConsumedCapacity alone).
	bad = bad && len(v.vs) == 0
	if bad || tooMany {
		echo := quote(echoWriteRequests(in.RequestItems))
		v.mapTableNames(echo, bad)
		if tooMany {
			v.add(echo, "requestItems", "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
		}
	}
	return v.err()
})
