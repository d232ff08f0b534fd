package partiqlexec

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
	"github.com/kura-db/kura/internal/wire"
)

// ExecuteStatement runs one PartiQL statement on c.
func ExecuteStatement(ctx context.Context, c Core, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
	out, err := executeStatement(ctx, c, in)
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

func executeStatement(ctx context.Context, c Core, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
	p, err := lowerStatement(c, in.Statement, in.Parameters, in.ReturnValuesOnConditionCheckFailure, pqSurface{})
	if err != nil {
		return nil, err
	}
	out := &wire.ExecuteStatementOutput{Items: []attr.Item{}}
	rcc := in.ReturnConsumedCapacity
	switch {
	case p.query != nil, p.scan != nil:
		return executeSelect(ctx, c, p, in)
	case p.put != nil:
		p.put.ReturnConsumedCapacity = rcc
		r, err := c.PutItem(ctx, p.put)
		if err != nil {
			return nil, insertError(err)
		}
		out.ConsumedCapacity = r.ConsumedCapacity
	case p.update != nil:
		p.update.ReturnConsumedCapacity = rcc
		r, err := c.UpdateItem(ctx, p.update)
		if err != nil {
			return nil, err
		}
		out.ConsumedCapacity = r.ConsumedCapacity
		if r.Attributes != nil {
			out.Items = append(out.Items, r.Attributes)
		}
	case p.del != nil:
		p.del.ReturnConsumedCapacity = rcc
		r, err := c.DeleteItem(ctx, p.del)
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
func executeSelect(ctx context.Context, c Core, p *plan, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
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
		r, err := c.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		out.Items, out.LastEvaluatedKey, out.ConsumedCapacity = r.Items, r.LastEvaluatedKey, r.ConsumedCapacity
	} else {
		s := p.scan
		s.ConsistentRead, s.Limit, s.ExclusiveStartKey, s.ReturnConsumedCapacity = in.ConsistentRead, in.Limit, start, in.ReturnConsumedCapacity
		r, err := c.Scan(ctx, s)
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
	h.Write([]byte(wire.Deref(stmt)))
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

// isTrue dereferences an optional boolean member.
func isTrue(b *bool) bool { return b != nil && *b }
