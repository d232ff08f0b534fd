package api

import "github.com/kura-db/kura/internal/wire"

var getItem = op(Backend.GetItem, func(in *wire.GetItemInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.attributesToGet("attributesToGet", in.AttributesToGet)
	v.tableName(in.TableName, true)
	v.notNull("key", in.Key == nil)
	return v.err()
})
