package reads

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/layout"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// queryExprs are a Query's parsed and resolved expressions; legacy
// parameters arrive converted.
type queryExprs struct {
	key       *expr.Condition
	filter    *expr.Condition
	proj      *expr.Projection
	legacyKey bool // key condition came from KeyConditions
	filterBy  string
}

// query runs Query; with a non-nil encode buffer, a page that may keep its
// items encoded does, appending them to it (the page is returned, for
// encodedItems).
func (r *Reads) query(in *wire.QueryInput, encode []byte) (*wire.QueryOutput, *page, error) {
	x, err := prepareQuery(in)
	if err != nil {
		return nil, nil, err
	}
	t, err := r.core.ReadTable(in.TableName, in.IndexName)
	if err != nil {
		return nil, nil, err
	}
	if in.IndexName != nil {
		if err := vectors.CheckRead(t.VectorIndexes(), *in.IndexName, true); err != nil {
			return nil, nil, err
		}
		return r.queryIndex(in, x, t, encode)
	}
	if err := checkLegacyKeyCount(in, x, 2); err != nil {
		return nil, nil, err
	}
	def := t.Def()
	kc, err := AnalyzeKeyCondition(def, x.key)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckFilterKeys(def, x.filter, x.filterBy); err != nil {
		return nil, nil, err
	}
	opts := queryBounds(def, kc, in.ScanIndexForward == nil || *in.ScanIndexForward)
	if in.ExclusiveStartKey != nil {
		if err := startQueryAfter(def, &opts, kc, in.ExclusiveStartKey); err != nil {
			return nil, nil, err
		}
	}
	if err := t.CheckKeyPaths(x.filter, x.proj); err != nil {
		return nil, nil, err
	}
	p := newPage(in.Limit, in.Select, x.filter, x.proj)
	pk := kc.Hash[0].Values[0]
	if encode != nil && p.canEncode() {
		p.enc = encodedPage{on: true, json: encode, guardName: def.Hash.Name, guardPK: pk}
	}
	res, err := r.tablePage(context.Background(), t, p, opts, func(it attr.Item) bool { return attr.Equal(it[def.Hash.Name], pk) },
		in.ConsistentRead, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, nil, err
	}
	return &wire.QueryOutput{
		Items: res.items, Count: res.count, ScannedCount: res.scanned,
		LastEvaluatedKey: res.last, ConsumedCapacity: res.consumed,
	}, p, nil
}

// prepareQuery is Query's request phase, in DynamoDB's order.
func prepareQuery(in *wire.QueryInput) (queryExprs, error) {
	var x queryExprs
	legacy, exprs := presentParams(
		[]bool{in.AttributesToGet != nil, in.QueryFilter != nil, in.ConditionalOperator != "",
			in.KeyConditions != nil && in.KeyConditionExpression != nil},
		[]string{"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"},
	), presentParams(
		[]bool{in.ProjectionExpression != nil, in.FilterExpression != nil, in.KeyConditionExpression != nil},
		[]string{"ProjectionExpression", "FilterExpression", "KeyConditionExpression"},
	)
	if err := expr.CheckMixed(legacy, exprs); err != nil {
		return x, err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.QueryFilter)); err != nil {
		return x, err
	}
	if msg := checkSelect(in.Select, projectionParam(in.ProjectionExpression, in.AttributesToGet), in.IndexName != nil); msg != "" {
		return x, ddberr.Detected(msg)
	}
	valueExpr := in.FilterExpression != nil || in.KeyConditionExpression != nil
	if err := expr.ValidateParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues, len(exprs) > 0, valueExpr); err != nil {
		return x, err
	}
	var err error
	if in.QueryFilter != nil {
		x.filterBy = "QueryFilter"
		if x.filter, err = expr.ConvertConditions(expr.KindFilter, in.QueryFilter, in.ConditionalOperator); err != nil {
			return x, err
		}
	}
	if x.proj, err = expr.ConvertAttributesToGet(in.AttributesToGet); err != nil {
		return x, err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return x, ddberr.Detected("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	params := expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if in.KeyConditionExpression != nil {
		if x.key, err = params.ParseCondition(expr.KindKeyCondition, *in.KeyConditionExpression); err != nil {
			return x, err
		}
	}
	if in.FilterExpression != nil {
		x.filterBy = "Filter Expression"
		if x.filter, err = params.ParseCondition(expr.KindFilter, *in.FilterExpression); err != nil {
			return x, err
		}
	}
	if in.ProjectionExpression != nil {
		if x.proj, err = params.ParseProjection(*in.ProjectionExpression); err != nil {
			return x, err
		}
	}
	if err := params.CheckUnused(); err != nil {
		return x, err
	}
	if x.key == nil {
		// A multi-attribute GSI key takes a condition per attribute; the
		// old limit of two applies to any other key once the table and
		// index are known (checkLegacyKeyCount).
		if n := len(in.KeyConditions); n < 1 || n > indexes.MaxHashAttrs+indexes.MaxRangeAttrs {
			return x, errKeyConditionsLength
		}
		x.legacyKey = true
		for _, c := range in.KeyConditions {
			switch c.ComparisonOperator {
			case "NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN":
				return x, ddberr.Validation("Attempted conditional constraint is not an indexable operation")
			}
		}
		if x.key, err = expr.ConvertConditions(expr.KindKeyCondition, in.KeyConditions, ""); err != nil {
			return x, err
		}
	}
	_, err = expr.CheckKeyCondition(x.key)
	return x, err
}

// errKeyConditionsLength refuses KeyConditions with more conditions than
// the queried key has attributes (DynamoDB's text from before
// multi-attribute keys, which it still sends for a key of one or two).
var errKeyConditionsLength = ddberr.Detected("Conditions can be of length 1 or 2 only")

// checkLegacyKeyCount applies the limit of two KeyConditions to a key of
// keyAttrs attributes that has no more than two; a multi-attribute GSI key
// takes one per attribute (moto's tests, run against DynamoDB, query one
// with three).
func checkLegacyKeyCount(in *wire.QueryInput, x queryExprs, keyAttrs int) error {
	if x.legacyKey && keyAttrs <= 2 && len(in.KeyConditions) > 2 {
		return errKeyConditionsLength
	}
	return nil
}

// presentParams returns the names whose flag is set, in order.
func presentParams(present []bool, names []string) []string {
	var out []string
	for i, ok := range present {
		if ok {
			out = append(out, names[i])
		}
	}
	return out
}

// projectionParam names the projection parameter present, or "".
func projectionParam(projection *string, attributesToGet []string) string {
	switch {
	case projection != nil:
		return "ProjectionExpression"
	case attributesToGet != nil:
		return "AttributesToGet"
	}
	return ""
}

// AnalyzeKeyCondition matches a table Query's key condition against the
// table's key schema and checks the operand types against the key types
// (an export's FilterSpecification is checked the same way).
func AnalyzeKeyCondition(t *change.Table, c *expr.Condition) (*expr.KeyCondition, error) {
	var rangeNames []string
	if t.Range != nil {
		rangeNames = []string{t.Range.Name}
	}
	kc, err := expr.AnalyzeKeyCondition(c, []string{t.Hash.Name}, rangeNames)
	if err != nil {
		return nil, err
	}
	check := func(parts []expr.KeyPart, want attr.Type) error {
		for _, p := range parts {
			for _, v := range p.Values {
				if v.T != want {
					return ddberr.InvalidParam("Condition parameter type does not match schema type")
				}
			}
		}
		return nil
	}
	if err := check(kc.Hash, t.Hash.Type); err != nil {
		return nil, err
	}
	if t.Range != nil {
		if err := check(kc.Range, t.Range.Type); err != nil {
			return nil, err
		}
	}
	if err := attr.ValidateKeyValue(t.Hash.Name, kc.Hash[0].Values[0], t.Hash.Type, true); err != nil {
		return nil, err
	}
	return kc, nil
}

// CheckFilterKeys rejects a Query filter on a key attribute of t (by
// names the filter parameter in the message).
func CheckFilterKeys(t *change.Table, filter *expr.Condition, by string) error {
	if filter == nil {
		return nil
	}
	var bad string
	walkConditionPaths(filter, func(p expr.Path) {
		if bad == "" && t.IsKeyAttr(p[0].Name) {
			bad = p[0].Name
		}
	})
	if bad != "" {
		return ddberr.Validationf("%s can only contain non-primary key attributes: Primary key attribute: %s", by, bad)
	}
	return nil
}

// walkConditionPaths calls f with every document path in c.
func walkConditionPaths(c *expr.Condition, f func(expr.Path)) {
	var walkOperand func(o *expr.Operand)
	walkOperand = func(o *expr.Operand) {
		if o.Kind == expr.OperandPath {
			f(o.Path)
		}
		for _, a := range o.Args {
			walkOperand(a)
		}
	}
	for _, o := range c.Operands {
		walkOperand(o)
	}
	for _, s := range c.Sub {
		walkConditionPaths(s, f)
	}
}

// queryBounds is the storage range of the key condition: the partition,
// narrowed by the sort-key condition. Sort-key encodings are
// order-preserving and self-delimiting, so every comparison is a bound.
func queryBounds(t *change.Table, kc *expr.KeyCondition, forward bool) storage.IterOptions {
	part := layout.PartitionPrefix(t.ID, kc.Hash[0].Values[0])
	opts := storage.IterOptions{Lower: part, Upper: attr.PrefixEnd(part), Reverse: !forward}
	if len(kc.Range) == 0 {
		return opts
	}
	r := kc.Range[0]
	at := func(v attr.Value) []byte { return attr.AppendKey(append([]byte(nil), part...), v) }
	switch r.Op {
	case expr.OpEQ:
		opts.Lower, opts.Upper = at(r.Values[0]), after(at(r.Values[0]))
	case expr.OpLT:
		opts.Upper = at(r.Values[0])
	case expr.OpLE:
		opts.Upper = after(at(r.Values[0]))
	case expr.OpGT:
		opts.Lower = after(at(r.Values[0]))
	case expr.OpGE:
		opts.Lower = at(r.Values[0])
	case expr.OpBetween:
		opts.Lower, opts.Upper = at(r.Values[0]), after(at(r.Values[1]))
	case expr.OpBeginsWith:
		prefix := append(append([]byte(nil), part...), attr.PrefixKey(r.Values[0])...)
		opts.Lower = prefix
		if end := attr.PrefixEnd(prefix); end != nil {
			opts.Upper = end
		}
	}
	return opts
}

// startQueryAfter validates ExclusiveStartKey against the schema and the key
// condition and narrows opts to the items after it (in scan direction).
func startQueryAfter(t *change.Table, opts *storage.IterOptions, kc *expr.KeyCondition, esk attr.Item) error {
	if err := validateStartKey(t, esk, queryStartKey); err != nil {
		return err
	}
	if !attr.Equal(esk[t.Hash.Name], kc.Hash[0].Values[0]) {
		return ddberr.Validation(msgStartKeyOutside)
	}
	if len(kc.Range) > 0 && !sortKeyMatches(kc.Range[0], esk[t.Range.Name]) {
		return ddberr.Validation(msgStartKeyRangeNoMatch)
	}
	sk := itemKey(t, esk)
	if opts.Reverse {
		opts.Upper = sk
	} else {
		opts.Lower = after(sk)
	}
	return nil
}

// sortKeyMatches reports whether sort key value v satisfies key part r.
func sortKeyMatches(r expr.KeyPart, v attr.Value) bool {
	cmp := func(w attr.Value) int {
		c, _ := attr.Compare(v, w)
		return c
	}
	switch r.Op {
	case expr.OpEQ:
		return cmp(r.Values[0]) == 0
	case expr.OpLT:
		return cmp(r.Values[0]) < 0
	case expr.OpLE:
		return cmp(r.Values[0]) <= 0
	case expr.OpGT:
		return cmp(r.Values[0]) > 0
	case expr.OpGE:
		return cmp(r.Values[0]) >= 0
	case expr.OpBetween:
		return cmp(r.Values[0]) >= 0 && cmp(r.Values[1]) <= 0
	case expr.OpBeginsWith:
		p := attr.PrefixKey(r.Values[0])
		k := attr.PrefixKey(v)
		return len(k) >= len(p) && string(k[:len(p)]) == string(p)
	}
	return false
}
