package api

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var batchExecuteStatement = parameterFaultsPerStatement(op(Backend.BatchExecuteStatement, validateBatchExecute))

// parameterFaultsPerStatement fails only its own statement when a
// statement's Parameters hold a value refused while the body is read (an
// unreadable number, nesting too deep): DynamoDB answers that statement's
// slot with a ValidationError and runs the others (eu-west-2 and us-east-1,
// October 2026, in a public conformance suite). The body is read again,
// statement by statement, only when such a check failed.
func parameterFaultsPerStatement(h handler) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		out, err := h(ctx, b, body)
		if !bodyValueFault(err, body, new(wire.BatchExecuteStatementInput)) {
			return out, err
		}
		var raw struct {
			Statements             []json.RawMessage
			ReturnConsumedCapacity string
		}
		if json.Unmarshal(body, &raw) != nil {
			return out, err
		}
		in := &wire.BatchExecuteStatementInput{ReturnConsumedCapacity: raw.ReturnConsumedCapacity}
		faults := make([]error, len(raw.Statements))
		for i, r := range raw.Statements {
			var st wire.BatchStatementRequest
			if derr := decode(r, &st); derr != nil {
				faults[i] = derr
				continue
			}
			in.Statements = append(in.Statements, st)
		}
		res := &wire.BatchExecuteStatementOutput{}
		if len(in.Statements) > 0 {
			if verr := validateBatchExecute(in); verr != nil {
				return nil, verr
			}
			if res, err = b.BatchExecuteStatement(ctx, in); err != nil {
				return nil, err
			}
		}
		merged := make([]wire.BatchStatementResponse, 0, len(raw.Statements))
		next := 0
		for _, f := range faults {
			if f == nil {
				merged = append(merged, res.Responses[next])
				next++
				continue
			}
			msg := ddberr.As(wordedFor(targetPrefix+"BatchExecuteStatement", f)).Message
			merged = append(merged, wire.BatchStatementResponse{Error: &wire.BatchStatementError{Code: "ValidationError", Message: &msg}})
		}
		res.Responses = merged
		return res, nil
	}
}

func validateBatchExecute(in *wire.BatchExecuteStatementInput) error {
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
}
