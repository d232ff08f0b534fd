package api

import (
	"slices"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// BatchGetItem's member checks, in the order and form a conformance suite
// run against DynamoDB (2026) records: RequestItems first, its table names
// echoed as JSON, each table's key count in the newer 'Value at ...' form,
// then ReturnConsumedCapacity.
var batchGetItem = op(Backend.BatchGetItem, func(in *wire.BatchGetItemInput) error {
	var v validator
	v.notNull("requestItems", in.RequestItems == nil)
	rccBad := in.ReturnConsumedCapacity != "" && !slices.Contains(enumReturnConsumedCapacity, in.ReturnConsumedCapacity)
	if in.RequestItems != nil && len(in.RequestItems) == 0 && !rccBad {
		return ddberr.Validation("The requestItems parameter is required for BatchGetItem")
	}
	for _, t := range sortedKeys(in.RequestItems) {
		if !validMapTableName(t) {
			v.mapTableNames(quote(echoJSON(in.RequestItems)), true)
			break
		}
	}
	for _, t := range sortedKeys(in.RequestItems) {
		member := "RequestItems." + t + ".member.Keys"
		switch n := len(in.RequestItems[t].Keys); {
		case n < 1:
			v.addBare("Value at '" + member + "' failed to satisfy constraint: Member must have length greater than or equal to 1")
		case n > 100:
			v.addBare("Value at '" + member + "' failed to satisfy constraint: Member must have length less than or equal to 100")
		}
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	return v.err()
})

// validMapTableName is the TableName constraint applied to RequestItems keys.
func validMapTableName(t string) bool {
	if isARN(t) {
		return len(t) <= 1024
	}
	return matchesNamePattern(t) && len(t) >= 3 && len(t) <= 255
}

// mapTableNames reports RequestItems keys that are not valid table names.
func (v *validator) mapTableNames(echo string, bad bool) {
	if bad {
		v.add(echo, "requestItems", "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: "+tableNamePattern+"]")
	}
}
