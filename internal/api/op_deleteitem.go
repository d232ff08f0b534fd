package api

import "github.com/kura-db/kura/internal/wire"

var deleteItem = membersFirst(validateDeleteItem, func(in *wire.DeleteItemInput) error { return oldOnlyRule(in.ReturnValues) },
	op(Backend.DeleteItem, validateDeleteItem))

func validateDeleteItem(in *wire.DeleteItemInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.writeEnums(in.ConditionalOperator, in.ReturnConsumedCapacity, in.ReturnValues,
		in.ReturnItemCollectionMetrics, in.ReturnValuesOnConditionCheckFailure)
	v.expected(in.Expected)
	v.tableName(in.TableName, true)
	v.notNull("key", in.Key == nil)
	return v.err()
}
