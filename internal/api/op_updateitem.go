package api

import "github.com/kura-db/kura/internal/wire"

var updateItem = membersFirst(validateUpdateItem, nil, op(Backend.UpdateItem, validateUpdateItem))

func validateUpdateItem(in *wire.UpdateItemInput) error {
	if in.Key == nil {
		return updateWithoutKey(in)
	}
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
}

// updateWithoutKey answers an UpdateItem that leaves Key out: DynamoDB
// then reports every member fault in its older per-value form, joined
// with the missing key member by member (an empty TableName is echoed and
// no longer reported alone, a bad ReturnValues no longer alone either;
// us-east-1 and eu-west-2, 2026-10-09).
func updateWithoutKey(in *wire.UpdateItemInput) error {
	var v validator
	v.enum("conditionalOperator", in.ConditionalOperator, enumConditionalOperator)
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	if in.TableName != nil && *in.TableName == "" {
		v.minLen("tableName", "''", 0, 1)
	} else {
		v.tableName(in.TableName, true)
	}
	v.enum("returnValues", in.ReturnValues, enumReturnValuesOlder)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection)
	v.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, enumReturnValuesOnCCF)
	v.expected(in.Expected)
	for name, u := range in.AttributeUpdates {
		v.enum("attributeUpdates."+name+".member.action", u.Action, enumAttributeAction)
	}
	v.notNull("key", true)
	return v.err()
}

var enumAttributeAction = []string{"ADD", "PUT", "DELETE"}
