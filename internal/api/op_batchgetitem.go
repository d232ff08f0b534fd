package api

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var batchGetItem = op(Backend.BatchGetItem, func(in *wire.BatchGetItemInput) error {
	var v validator
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.notNull("requestItems", in.RequestItems == nil)
	if in.RequestItems != nil && len(in.RequestItems) == 0 && len(v.vs) == 0 {
		return ddberr.Validation("The requestItems parameter is required for BatchGetItem")
	}
	if len(in.RequestItems) > 0 {
		bad, tooMany := false, false
		for t, ka := range in.RequestItems {
			bad = bad || !validMapTableName(t)
			tooMany = tooMany || len(ka.Keys) < 1 || len(ka.Keys) > 100
		}
		if bad || tooMany {
			echo := quote(echoKeysAndAttributes(in.RequestItems))
			v.mapTableNames(echo, bad)
			if tooMany {
				v.add(echo, "requestItems", "Map value must satisfy constraint: [Member must have length less than or equal to 100, Member must have length greater than or equal to 1]")
			}
		}
	}
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
