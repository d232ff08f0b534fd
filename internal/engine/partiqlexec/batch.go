package partiqlexec

import (
	"context"
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/partiql"
	"github.com/kura-db/kura/internal/wire"
)

// msgBatchMixed rejects a BatchExecuteStatement that mixes reads and
// writes. DynamoDB documents the rule ("The entire batch must consist of
// either read statements or write statements, you cannot mix both in one
// batch"); its exact error text is not in our captures, so this one
// follows ExecuteTransaction's wording.
const msgBatchMixed = "Batch must contain either all reads or all writes"

// BatchExecuteStatement runs up to 25 statements independently; each
// failure is reported in its own response. A batch that mixes reads
// (SELECT) and writes (INSERT, UPDATE, DELETE) is rejected as a whole.
func BatchExecuteStatement(ctx context.Context, c Core, in *wire.BatchExecuteStatementInput) (*wire.BatchExecuteStatementOutput, error) {
	if batchMixesReadsAndWrites(in.Statements) {
		return nil, ddberr.Validation(msgBatchMixed)
	}
	out := &wire.BatchExecuteStatementOutput{Responses: make([]wire.BatchStatementResponse, len(in.Statements))}
	var tally batchTally
	for i, s := range in.Statements {
		r := &out.Responses[i]
		item, table, units, err := batchStatement(ctx, c, s)
		if err != nil {
			r.Error = batchStatementError(err)
			if table != "" && ddberr.As(err).Type != "ValidationException" {
				r.TableName = &table
			}
			continue
		}
		r.TableName, r.Item = &table, item
		tally.add(table, units)
	}
	out.ConsumedCapacity = tally.list(in.ReturnConsumedCapacity)
	return out, nil
}

// batchMixesReadsAndWrites reports whether a batch holds both a read and
// a write statement. Statements that do not parse count as neither: they
// fail on their own in their response.
func batchMixesReadsAndWrites(stmts []wire.BatchStatementRequest) bool {
	reads, writes := false, false
	for _, s := range stmts {
		if s.Statement == nil {
			continue
		}
		st, err := partiql.Parse(*s.Statement)
		if err != nil {
			continue
		}
		switch st.Kind {
		case partiql.Select:
			reads = true
		case partiql.Insert, partiql.Update, partiql.Delete:
			writes = true
		}
	}
	return reads && writes
}

// batchStatement runs one statement of a batch: a full-key read or a
// single-item write.
func batchStatement(ctx context.Context, c Core, s wire.BatchStatementRequest) (attr.Item, string, float64, error) {
	p, err := lowerStatement(c, s.Statement, s.Parameters, s.ReturnValuesOnConditionCheckFailure, pqSurface{batch: true})
	if err != nil {
		return nil, "", 0, err
	}
	name := p.def.Name
	units := func(cc *wire.ConsumedCapacity) float64 {
		if cc == nil || cc.CapacityUnits == nil {
			return 0
		}
		return *cc.CapacityUnits
	}
	switch {
	case p.get != nil:
		item, units, err := c.Get(ctx, p.get, isTrue(s.ConsistentRead))
		var refused *ddberr.Error
		if errors.As(err, &refused) {
			return nil, name, 0, err // the table's refusal names it
		}
		if err != nil {
			return nil, "", 0, err
		}
		return pqShapeItem(p.st.Projection, item), name, units, nil
	// A write's failure names its table (a conditional failure, a
	// duplicate INSERT); its RETURNING clause answers in Item.
	case p.put != nil:
		p.put.ReturnConsumedCapacity = capTotal
		r, err := c.PutItem(ctx, p.put)
		if err != nil {
			return nil, name, 0, insertError(err)
		}
		return nil, name, units(r.ConsumedCapacity), nil
	case p.update != nil:
		p.update.ReturnConsumedCapacity = capTotal
		r, err := c.UpdateItem(ctx, p.update)
		if err != nil {
			return nil, name, 0, err
		}
		return r.Attributes, name, units(r.ConsumedCapacity), nil
	case p.del != nil:
		p.del.ReturnConsumedCapacity = capTotal
		r, err := c.DeleteItem(ctx, p.del)
		if err != nil {
			return nil, name, 0, err
		}
		return r.Attributes, name, units(r.ConsumedCapacity), nil
	}
	return nil, "", 0, ddberr.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
}

// batchStatementError is a failed statement's Error member: the error
// type without "Exception" (ValidationException is "ValidationError",
// ThrottlingException "ThrottlingError", as BatchStatementErrorCodeEnum
// names them).
func batchStatementError(err error) *wire.BatchStatementError {
	de := ddberr.As(pqError(err))
	code := strings.TrimSuffix(de.Type, "Exception")
	switch de.Type {
	case "ValidationException":
		code = "ValidationError"
	case "ThrottlingException":
		code = "ThrottlingError"
	}
	msg := de.Message
	out := &wire.BatchStatementError{Code: code, Message: &msg}
	if it, ok := de.Item.(attr.Item); ok {
		out.Item = it
	}
	return out
}

// ReturnConsumedCapacity values.
const (
	capTotal   = "TOTAL"
	capIndexes = "INDEXES"
)

// batchTally sums the capacity a batch's statements consume per table, in
// the order tables are first charged (as BatchGetItem and BatchWriteItem
// report it: one total per table, also under Table for INDEXES).
type batchTally []wire.ConsumedCapacity

func (c *batchTally) add(table string, units float64) {
	for i := range *c {
		if cc := &(*c)[i]; *cc.TableName == table {
			*cc.CapacityUnits += units
			return
		}
	}
	*c = append(*c, wire.ConsumedCapacity{TableName: wire.Ptr(table), CapacityUnits: wire.Ptr(units)})
}

// list is the ConsumedCapacity list, or nil when mode does not ask for it.
func (c batchTally) list(mode string) []wire.ConsumedCapacity {
	if mode != capTotal && mode != capIndexes {
		return nil
	}
	out := make([]wire.ConsumedCapacity, len(c))
	for i, cc := range c {
		if mode == capIndexes {
			cc.Table = &wire.Capacity{CapacityUnits: wire.Ptr(*cc.CapacityUnits)}
		}
		out[i] = cc
	}
	return out
}
