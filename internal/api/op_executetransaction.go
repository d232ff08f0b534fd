package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

var executeTransaction = op(Backend.ExecuteTransaction, func(in *wire.ExecuteTransactionInput) error {
	var v validator
	v.notNull("transactStatements", in.TransactStatements == nil)
	if in.TransactStatements != nil {
		v.minLen("transactStatements", "'[]'", len(in.TransactStatements), 1)
		v.maxLen("transactStatements", "", len(in.TransactStatements), 100)
	}
	for i, s := range in.TransactStatements {
		p := "transactStatements." + strconv.Itoa(i+1) + ".member."
		v.statement(p+"statement", s.Statement)
		v.parameters(p+"parameters", s.Parameters)
		v.enum(p+"returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, enumReturnValuesOnCCF)
	}
	if t := in.ClientRequestToken; t != nil {
		v.minLen("clientRequestToken", quote(*t), len(*t), 1)
		v.maxLen("clientRequestToken", quote(*t), len(*t), 36)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	return v.err()
})
