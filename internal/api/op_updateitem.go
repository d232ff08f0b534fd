package api

import "github.com/kura-db/kura/internal/wire"

var updateItem = op(Backend.UpdateItem, func(in *wire.UpdateItemInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	// UpdateItem reports a bad ReturnValues alone (capture o_upd_two_bad_enums).
	if !validReturnValues(in.ReturnValues) {
		v.returnValues(in.ReturnValues)
		return v.err()
	}
	v.writeEnums(in.ConditionalOperator, in.ReturnConsumedCapacity, "",
		in.ReturnItemCollectionMetrics, in.ReturnValuesOnConditionCheckFailure)
	v.expected(in.Expected)
	for name, u := range in.AttributeUpdates {
		v.enum("attributeUpdates."+name+".member.action", u.Action, enumAttributeAction)
	}
	v.tableName(in.TableName, true)
	v.notNull("key", in.Key == nil)
	return v.err()
})

var enumAttributeAction = []string{"ADD", "PUT", "DELETE"}
