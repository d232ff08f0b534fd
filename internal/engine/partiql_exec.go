package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/partiql"
	"github.com/kura-db/kura/internal/wire"
)

// ExecuteStatement runs one PartiQL statement.
func (e *Engine) ExecuteStatement(ctx context.Context, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
	out, err := e.executeStatement(ctx, in)
	return out, pqError(err)
}

// pqError is an error of a lowered statement as DynamoDB's PartiQL words
// it: attribute values in the older value layer's words, no request-check
// prefix, and the checks it shares with the expression API carry no "Invalid
// FilterExpression: " (or other expression) prefix ('Operator or function
// requires a document path; operator or function: attribute_exists'; a
// suite run against DynamoDB, four regions, October 2026).
func pqError(err error) error {
	// PartiQL words attribute values in the older layer, bare.
	e, ok := ddberr.Unenveloped(ddberr.OlderLayer(err)).(*ddberr.Error)
	if !ok || e.Type != "ValidationException" {
		return err
	}
	for _, k := range []expr.Kind{expr.KindCondition, expr.KindFilter, expr.KindKeyCondition, expr.KindProjection, expr.KindUpdate} {
		if rest, cut := strings.CutPrefix(e.Message, "Invalid "+k.String()+": "); cut {
			bare := *e
			bare.Message = rest
			return &bare
		}
	}
	return e
}

func (e *Engine) executeStatement(ctx context.Context, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
	p, err := e.lowerStatement(in.Statement, in.Parameters, in.ReturnValuesOnConditionCheckFailure, pqSurface{})
	if err != nil {
		return nil, err
	}
	out := &wire.ExecuteStatementOutput{Items: []attr.Item{}}
	rcc := in.ReturnConsumedCapacity
	switch {
	case p.query != nil, p.scan != nil:
		return e.executeSelect(ctx, p, in)
	case p.put != nil:
		p.put.ReturnConsumedCapacity = rcc
		r, err := e.PutItem(ctx, p.put)
		if err != nil {
			return nil, insertError(err)
		}
		out.ConsumedCapacity = r.ConsumedCapacity
	case p.update != nil:
		p.update.ReturnConsumedCapacity = rcc
		r, err := e.updateItem(ctx, p.update, false) // sized flat, unlike UpdateItem
		if err != nil {
			return nil, err
		}
		out.ConsumedCapacity = r.ConsumedCapacity
		if r.Attributes != nil {
			out.Items = append(out.Items, r.Attributes)
		}
	case p.del != nil:
		p.del.ReturnConsumedCapacity = rcc
		r, err := e.DeleteItem(ctx, p.del)
		if err != nil {
			return nil, err
		}
		out.ConsumedCapacity = r.ConsumedCapacity
		if r.Attributes != nil {
			out.Items = append(out.Items, r.Attributes)
		}
	default:
		return nil, ddberr.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	return out, nil
}

// executeSelect runs a lowered SELECT as a Query or Scan page. NextToken
// carries the page's LastEvaluatedKey.
func (e *Engine) executeSelect(ctx context.Context, p *plan, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
	binding := nextTokenBinding(in.Statement, in.Parameters)
	start, err := decodeNextToken(in.NextToken, binding)
	if err != nil {
		return nil, err
	}
	out := &wire.ExecuteStatementOutput{}
	if p.st.Index != "" && isTrue(in.ConsistentRead) {
		if ix, ok := p.table.Index(p.st.Index); ok && !ix.Local {
			return nil, ddberr.Validation("Strongly consistent read is not supported on Global Secondary Indexes")
		}
	}
	if p.query != nil {
		q := p.query
		q.ConsistentRead, q.Limit, q.ExclusiveStartKey, q.ReturnConsumedCapacity = in.ConsistentRead, in.Limit, start, in.ReturnConsumedCapacity
		r, err := e.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		out.Items, out.LastEvaluatedKey, out.ConsumedCapacity = r.Items, r.LastEvaluatedKey, r.ConsumedCapacity
	} else {
		s := p.scan
		s.ConsistentRead, s.Limit, s.ExclusiveStartKey, s.ReturnConsumedCapacity = in.ConsistentRead, in.Limit, start, in.ReturnConsumedCapacity
		r, err := e.scanPartiQL(s)
		if err != nil {
			return nil, err
		}
		out.Items, out.LastEvaluatedKey, out.ConsumedCapacity = r.Items, r.LastEvaluatedKey, r.ConsumedCapacity
	}
	if out.Items == nil {
		out.Items = []attr.Item{}
	}
	for i, it := range out.Items {
		out.Items[i] = pqShapeItem(p.st.Projection, it)
	}
	if out.LastEvaluatedKey != nil {
		tok := base64.StdEncoding.EncodeToString(attr.AppendItemJSON(binding[:len(binding):len(binding)], out.LastEvaluatedKey))
		out.NextToken = &tok
	}
	return out, nil
}

// decodeNextToken is the ExclusiveStartKey a NextToken carries.
func decodeNextToken(tok *string, binding []byte) (attr.Item, error) {
	if tok == nil {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(*tok)
	if err != nil || len(b) < len(binding) {
		return nil, ddberr.Validation("Invalid NextToken")
	}
	if !bytes.Equal(b[:len(binding)], binding) {
		return nil, ddberr.Validation("NextToken does not match request")
	}
	it, err := attr.DecodeItemJSON(b[len(binding):])
	if err != nil || len(it) == 0 {
		return nil, ddberr.Validation("Invalid NextToken")
	}
	return it, nil
}

// nextTokenBinding ties a NextToken to the statement that issued it: its
// text and parameters (not its Limit). DynamoDB refuses a token replayed
// on another statement, parameter set, table or index with "NextToken does
// not match request" (characterised on DynamoDB by an emulator's suite).
func nextTokenBinding(stmt *string, params []attr.Value) []byte {
	h := sha256.New()
	h.Write([]byte(cpDeref(stmt)))
	for _, p := range params {
		h.Write([]byte{0})
		h.Write(attr.AppendItemJSON(nil, attr.Item{"p": p}))
	}
	return h.Sum(nil)[:8]
}

// insertError is DuplicateItemException for an INSERT whose key exists.
func insertError(err error) error {
	var de *ddberr.Error
	if errors.As(err, &de) && de.Type == "ConditionalCheckFailedException" {
		return ddberr.DuplicateItem()
	}
	return err
}

// msgBatchMixed rejects a BatchExecuteStatement that mixes reads and
// writes. DynamoDB documents the rule ("The entire batch must consist of
// either read statements or write statements, you cannot mix both in one
// batch"); its exact error text is not in our captures, so this one
// follows ExecuteTransaction's wording.
const msgBatchMixed = "Batch must contain either all reads or all writes"

// BatchExecuteStatement runs up to 25 statements independently; each
// failure is reported in its own response. A batch that mixes reads
// (SELECT) and writes (INSERT, UPDATE, DELETE) is rejected as a whole.
func (e *Engine) BatchExecuteStatement(ctx context.Context, in *wire.BatchExecuteStatementInput) (*wire.BatchExecuteStatementOutput, error) {
	if batchMixesReadsAndWrites(in.Statements) {
		return nil, ddberr.Validation(msgBatchMixed)
	}
	out := &wire.BatchExecuteStatementOutput{Responses: make([]wire.BatchStatementResponse, len(in.Statements))}
	var tally capacityTally
	for i, s := range in.Statements {
		r := &out.Responses[i]
		item, table, units, err := e.batchStatement(ctx, s)
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
func (e *Engine) batchStatement(ctx context.Context, s wire.BatchStatementRequest) (attr.Item, string, float64, error) {
	p, err := e.lowerStatement(s.Statement, s.Parameters, s.ReturnValuesOnConditionCheckFailure, pqSurface{batch: true})
	if err != nil {
		return nil, "", 0, err
	}
	name := p.table.Name
	units := func(cc *wire.ConsumedCapacity) float64 {
		if cc == nil || cc.CapacityUnits == nil {
			return 0
		}
		return *cc.CapacityUnits
	}
	switch {
	case p.get != nil:
		g := p.get
		proj, err := prepareRead(g.ProjectionExpression, nil, g.ExpressionAttributeNames)
		if err != nil {
			return nil, "", 0, err
		}
		k, err := p.table.validateKey(g.Key)
		if err != nil {
			return nil, "", 0, err
		}
		if err := e.admitRead(p.table, ""); err != nil {
			return nil, name, 0, err
		}
		item, err := e.getItem(p.table, k)
		if err != nil {
			return nil, "", 0, err
		}
		units := readUnits(itemSize(item), isTrue(s.ConsistentRead))
		e.chargeRead(p.table, "", units)
		if item != nil {
			item = pqShapeItem(p.st.Projection, applyProjection(proj, item))
		}
		return item, name, units, nil
	// A write's failure names its table (a conditional failure, a
	// duplicate INSERT); its RETURNING clause answers in Item.
	case p.put != nil:
		p.put.ReturnConsumedCapacity = capTotal
		r, err := e.PutItem(ctx, p.put)
		if err != nil {
			return nil, name, 0, insertError(err)
		}
		return nil, name, units(r.ConsumedCapacity), nil
	case p.update != nil:
		p.update.ReturnConsumedCapacity = capTotal
		r, err := e.updateItem(ctx, p.update, false) // sized flat, unlike UpdateItem
		if err != nil {
			return nil, name, 0, err
		}
		return r.Attributes, name, units(r.ConsumedCapacity), nil
	case p.del != nil:
		p.del.ReturnConsumedCapacity = capTotal
		r, err := e.DeleteItem(ctx, p.del)
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

// ExecuteTransaction runs up to 100 statements as one transaction: all
// writes (INSERT, UPDATE, DELETE, EXISTS) through the same path as
// TransactWriteItems, or all full-key SELECTs as one TransactGetItems.
func (e *Engine) ExecuteTransaction(ctx context.Context, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error) {
	out, err := e.executeTransaction(ctx, in)
	return out, pqError(err)
}

func (e *Engine) executeTransaction(ctx context.Context, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error) {
	plans := make([]*plan, len(in.TransactStatements))
	reads := 0
	for i, s := range in.TransactStatements {
		p, err := e.lowerStatement(s.Statement, s.Parameters, s.ReturnValuesOnConditionCheckFailure, pqSurface{inTx: true, tx: i})
		if err != nil {
			return nil, err
		}
		if p.get != nil {
			reads++
		}
		plans[i] = p
	}
	switch reads {
	case 0:
		return e.executeWriteTransaction(ctx, in, plans)
	case len(plans):
		return e.executeReadTransaction(plans, in.ReturnConsumedCapacity)
	}
	return nil, ddberr.Validation("Transaction must contain either all reads or all writes")
}

func (e *Engine) executeWriteTransaction(ctx context.Context, in *wire.ExecuteTransactionInput, plans []*plan) (*wire.ExecuteTransactionOutput, error) {
	items := make([]wire.TransactWriteItem, len(plans))
	for i, p := range plans {
		switch {
		case p.put != nil:
			items[i].Put = &wire.Put{TableName: p.put.TableName, Item: p.put.Item, ConditionExpression: p.put.ConditionExpression,
				ExpressionAttributeNames: p.put.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: p.put.ReturnValuesOnConditionCheckFailure}
		case p.update != nil:
			u := p.update
			items[i].Update = &wire.Update{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
				ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure}
		case p.del != nil:
			d := p.del
			items[i].Delete = &wire.Delete{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
				ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: d.ReturnValuesOnConditionCheckFailure}
		case p.check != nil:
			items[i].ConditionCheck = p.check
		}
	}
	acts, err := e.prepareTransactWrite(items)
	if err != nil {
		return nil, err
	}
	out, err := e.idempotent(in.ClientRequestToken, in, func() (any, error) {
		res, err := e.runTransaction(ctx, acts)
		if err != nil {
			return nil, insertReasons(err, plans)
		}
		// A write transaction answers an empty Responses list (a suite run
		// against DynamoDB in four regions, October 2026).
		return &wire.ExecuteTransactionOutput{
			ConsumedCapacity: txWriteCapacity(acts, res).list(in.ReturnConsumedCapacity),
			Responses:        []wire.ItemResponse{},
		}, nil
	}, func(any) (any, error) {
		cc, err := e.txReplayCapacity(acts, in.ReturnConsumedCapacity)
		return &wire.ExecuteTransactionOutput{ConsumedCapacity: cc, Responses: []wire.ItemResponse{}}, err
	})
	if err != nil {
		return nil, err
	}
	return out.(*wire.ExecuteTransactionOutput), nil
}

// insertReasons reports an INSERT's failed condition as DuplicateItem.
func insertReasons(err error, plans []*plan) error {
	var de *ddberr.Error
	if !errors.As(err, &de) {
		return err
	}
	reasons, ok := de.CancellationReasons.([]wire.CancellationReason)
	if !ok {
		return err
	}
	for i, p := range plans {
		if p.put != nil && reasons[i].Code == reasonCondFailed {
			msg := ddberr.DuplicateItem().Message
			reasons[i] = wire.CancellationReason{Code: "DuplicateItem", Message: &msg}
		}
	}
	return transactionCanceled(reasons)
}

func (e *Engine) executeReadTransaction(plans []*plan, rcc string) (*wire.ExecuteTransactionOutput, error) {
	items := make([]wire.TransactGetItem, len(plans))
	for i, p := range plans {
		items[i].Get = p.get
	}
	gets, err := e.prepareTransactGet(items)
	if err != nil {
		return nil, err
	}
	found, err := e.readTransaction(gets)
	if err != nil {
		return nil, err
	}
	out := &wire.ExecuteTransactionOutput{Responses: make([]wire.ItemResponse, len(plans))}
	var c txTally
	for i, g := range gets {
		c.add(g.table.Name, indexUnits{table: 2 * readUnits(itemSize(found[i]), true)}, true)
		it := found[i]
		if it == nil {
			continue
		}
		out.Responses[i].Item = pqShapeItem(plans[i].st.Projection, applyProjection(g.proj, it))
	}
	out.ConsumedCapacity = c.list(rcc)
	return out, nil
}
