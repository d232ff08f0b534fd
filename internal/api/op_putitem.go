package api

import (
	"maps"
	"slices"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var putItem = membersFirst(validatePutItem, func(in *wire.PutItemInput) error { return oldOnlyRule(in.ReturnValues) },
	op(Backend.PutItem, validatePutItem))

func validatePutItem(in *wire.PutItemInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.writeEnums(in.ConditionalOperator, in.ReturnConsumedCapacity, in.ReturnValues,
		in.ReturnItemCollectionMetrics, in.ReturnValuesOnConditionCheckFailure)
	v.expected(in.Expected)
	v.tableName(in.TableName, true)
	v.notNull("item", in.Item == nil)
	return v.err()
}

// oldOnlyRule is PutItem's and DeleteItem's ReturnValues rule as the older
// layer reports it (membersFirst): bare, ahead of the attribute values.
// Otherwise the backend checks it, after them.
func oldOnlyRule(rv string) error {
	switch rv {
	case "", "NONE", "ALL_OLD":
		return nil
	}
	return ddberr.Validation("ReturnValues can only be ALL_OLD or NONE")
}

// expected checks the optional ComparisonOperator of each legacy Expected
// entry, in attribute-name order.
func (v *validator) expected(exp map[string]wire.ExpectedAttributeValue) {
	if len(exp) == 0 {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(exp)) {
		v.enum("expected."+name+".member.comparisonOperator", exp[name].ComparisonOperator, enumComparisonOperator)
	}
}

// writeEnums checks the enum members shared by the single-item writes, in
// the order DynamoDB reports them (ReturnValues in its bare form).
func (v *validator) writeEnums(condOp, rcc, rv, ricm, rvccf string) {
	v.enum("conditionalOperator", condOp, enumConditionalOperator)
	v.enum("returnConsumedCapacity", rcc, enumReturnConsumedCapacity)
	v.returnValues(rv)
	v.enum("returnItemCollectionMetrics", ricm, enumReturnItemCollection)
	v.enum("returnValuesOnConditionCheckFailure", rvccf, enumReturnValuesOnCCF)
}
