package api

import (
	"maps"
	"slices"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var query = op(callQuery, func(in *wire.QueryInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	if err := filterOperator(in.ConditionalOperator, len(in.QueryFilter)); err != nil {
		return err
	}
	var v validator
	v.readEnums(in.Select, in.ConditionalOperator, in.ReturnConsumedCapacity)
	v.attributesToGet("attributesToGet", in.AttributesToGet)
	v.tableName(in.TableName, true)
	v.indexName("indexName", in.IndexName)
	v.rangeNoEcho("Limit", in.Limit, 1, 1<<31-1)
	v.conditions("keyConditions", in.KeyConditions)
	v.conditions("queryFilter", in.QueryFilter)
	return v.err()
})

// conditions checks the ComparisonOperator of each legacy Condition
// (required; one of DynamoDB's operators), in attribute-name order.
func (v *validator) conditions(member string, conds map[string]wire.Condition) {
	if len(conds) == 0 {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(conds)) {
		p := member + "." + name + ".member.comparisonOperator"
		op := conds[name].ComparisonOperator
		v.notNull(p, op == "")
		v.enum(p, op, enumComparisonOperator)
	}
}

// filterOperator refuses an unknown ConditionalOperator joining two or
// more legacy filter conditions the way DynamoDB does: on its own, ahead
// of the other member checks, bare and in its newer enum text ('[ALL, OR]'
// sic; Query, us-east-1 and eu-west-2, 2026-10-09, in a public
// conformance suite; Scan's ScanFilter is read the same way here).
func filterOperator(op string, conditions int) error {
	if op == "" || conditions < 2 || slices.Contains(enumConditionalOperator, op) {
		return nil
	}
	return ddberr.Validation("Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]")
}

// readEnums checks the enum members shared by Query and Scan.
func (v *validator) readEnums(sel, condOp, rcc string) {
	v.enum("select", sel, enumSelect)
	v.enum("conditionalOperator", condOp, enumConditionalOperator)
	v.enum("returnConsumedCapacity", rcc, enumReturnConsumedCapacity)
}

// indexName checks an optional IndexName (pattern, length 3..255).
func (v *validator) indexName(member string, p *string) {
	if p != nil {
		v.name(member, *p)
	}
}
