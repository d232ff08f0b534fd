package vectors

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// SearchVectors is the SearchVectors request: checked and its expressions
// parsed in DynamoDB's order, before the table is looked up (table, the
// core's lookup of an active table with its refusals), then searched
// (Search).
func (r *Registry) SearchVectors(in *wire.SearchVectorsInput, table func(name *string) (Table, error)) (*wire.SearchVectorsOutput, error) {
	topK := int(wire.Deref(in.TopK))
	if maxK := r.MaxTopK(); topK < 1 || topK > maxK {
		return nil, ddberr.Validationf("Provided TopK value '%d' is out of valid range. The value must be between 1 and %d inclusive", topK, maxK)
	}
	cond := in.SearchConditionExpression
	anyExpr := cond != nil || in.ProjectionExpression != nil
	if err := expr.ValidateParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues, anyExpr, cond != nil); err != nil {
		return nil, err
	}
	params := expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	var c *expr.Condition
	if cond != nil {
		var err error
		if c, err = parseCondition(params, *cond); err != nil {
			return nil, RenameSearchErr(err)
		}
	}
	q := Query{Index: wire.Deref(in.IndexName), Vector: in.SearchVector, TopK: topK,
		Capacity: in.ReturnConsumedCapacity == indexes.CapacityTotal || in.ReturnConsumedCapacity == indexes.CapacityIndexes}
	if in.ProjectionExpression != nil {
		var err error
		if q.Proj, err = parseProjection(params, *in.ProjectionExpression); err != nil {
			return nil, err
		}
	}
	if err := params.CheckUnused(); err != nil {
		return nil, err
	}
	if c != nil {
		var err error
		if q.Eqs, err = Equalities(c); err != nil {
			return nil, err
		}
	}
	t, err := table(in.TableName)
	if err != nil {
		return nil, err
	}
	return r.Search(t, q)
}

// parseCondition parses and resolves a SearchConditionExpression.
func parseCondition(params *expr.Params, s string) (*expr.Condition, error) {
	c, err := expr.ParseCondition(expr.KindCondition, s)
	if err != nil {
		return nil, err
	}
	return c, params.ResolveCondition(c)
}

// parseProjection parses and resolves a ProjectionExpression.
func parseProjection(params *expr.Params, s string) (*expr.Projection, error) {
	pr, err := expr.ParseProjection(s)
	if err != nil {
		return nil, err
	}
	return pr, params.ResolveProjection(pr)
}
