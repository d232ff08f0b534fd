package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

var batchExecuteStatement = op(Backend.BatchExecuteStatement, func(in *wire.BatchExecuteStatementInput) error {
	var v validator
	v.notNull("statements", in.Statements == nil)
	if in.Statements != nil {
		v.minLen("statements", "'[]'", len(in.Statements), 1)
		v.maxLen("statements", "", len(in.Statements), 25)
	}
	for i, s := range in.Statements {
		p := "statements." + strconv.Itoa(i+1) + ".member."
		v.statement(p+"statement", s.Statement)
		v.parameters(p+"parameters", s.Parameters)
		v.enum(p+"returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, enumReturnValuesOnCCF)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	return v.err()
})
