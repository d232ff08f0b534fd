package api

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

var executeStatement = op(Backend.ExecuteStatement, func(in *wire.ExecuteStatementInput) error {
	var v validator
	v.statement("statement", in.Statement)
	v.intRange("limit", in.Limit, 1, 1<<31-1)
	if t := in.NextToken; t != nil {
		v.minLen("nextToken", quote(*t), len(*t), 1)
		v.maxLen("nextToken", quote(*t), len(*t), 32768)
	}
	v.parameters("parameters", in.Parameters)
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, enumReturnValuesOnCCF)
	return v.err()
})

// statement checks a PartiQL Statement member: present, 1 to 8192 chars.
func (v *validator) statement(member string, s *string) {
	if s == nil {
		v.notNull(member, true)
		return
	}
	v.minLen(member, quote(*s), len(*s), 1)
	v.maxLen(member, quote(*s), len(*s), 8192)
}

// parameters checks a Parameters list: when present, at least one value.
func (v *validator) parameters(member string, ps []attr.Value) {
	if ps != nil && len(ps) == 0 {
		v.minLen(member, "'[]'", 0, 1)
	}
}
