package partiqlexec

import (
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/partiql"
	"github.com/kura-db/kura/internal/wire"
)

// plan is a lowered statement: exactly one of the inputs is set.
type plan struct {
	st     *partiql.Statement
	table  Table
	def    *change.Table // table's
	query  *wire.QueryInput
	scan   *wire.ScanInput
	put    *wire.PutItemInput
	update *wire.UpdateItemInput
	del    *wire.DeleteItemInput
	check  *wire.ConditionCheck
	// get is a single-item read (batch and transaction SELECTs, whose
	// WHERE clause is the key and nothing else).
	get *wire.Get
}

// pqSurface is the API a statement arrives through: ExecuteStatement
// (Query or Scan), or a batch or transaction member (tx: its index in
// TransactStatements), which reads one item by its full key.
type pqSurface struct {
	batch, inTx bool
	tx          int
}

// singleRead reports whether SELECTs read one item by its full key.
func (s pqSurface) singleRead() bool { return s.batch || s.inTx }

// keyRequired is the surface's refusal of a SELECT that does not name the
// full primary key (or names an index).
func (s pqSurface) keyRequired() error {
	if s.batch {
		return ddberr.Validation("Select statements within BatchExecuteStatement must specify the primary key in the where clause.")
	}
	return ddberr.Validationf("Validation failed in TransactStatements[%d]: Select statements within ExecuteTransaction must specify the primary key in the where clause.", s.tx)
}

// existsRefused is the surface's refusal of an EXISTS that is no single
// item read with a further condition.
func (s pqSurface) existsRefused() error {
	const msg = "EXISTS() must contain a single item read with additional condition"
	if s.inTx {
		return ddberr.Validationf("Validation failed in TransactStatements[%d]: %s", s.tx, msg)
	}
	return ddberr.Validation(msg)
}

// lowerStatement parses and lowers one statement for its surface.
func lowerStatement(c Core, src *string, params []attr.Value, rvccf string, surface pqSurface) (*plan, error) {
	if src == nil {
		return nil, ddberr.Validation("Statement wasn't well formed, can't be processed: Expected data manipulation")
	}
	st, err := partiql.Parse(*src)
	if err != nil {
		return nil, err
	}
	if surface.inTx {
		if err := checkPQTransactStatement(surface.tx, st); err != nil {
			return nil, err
		}
	}
	if err := checkParams(st, params); err != nil {
		return nil, err
	}
	if err := checkPQOperandTypes(st.Where, params); err != nil {
		return nil, err
	}
	if err := checkPQWhereFunctions(st); err != nil {
		return nil, err
	}
	// A write to an index, and a misused projection, are refused before the
	// table is looked up (eu-west-2, 2026-08-15 and 2026-07-29, captured by
	// another emulator's authors); a multi-attribute index key is refused
	// before the projection (below).
	if st.Index != "" && st.Kind != partiql.Select {
		return nil, ddberr.Validation("This operation is not supported on an index")
	}
	t, err := c.Table(&st.Table)
	if err != nil {
		if st.ProjectionFault != nil && errors.Is(err, ddberr.TableNotFound()) {
			return nil, st.ProjectionFault
		}
		return nil, err
	}
	if ix, ok := t.Index(st.Index); ok && st.Index != "" && (len(ix.Hashes) > 1 || len(ix.Ranges) > 1) {
		// DynamoDB refuses PartiQL on a multi-attribute index key, ahead of
		// the key types and WHERE rules (eu-west-2 and us-east-1, October
		// 2026, in a public conformance suite).
		return nil, ddberr.Validation("PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys.")
	}
	if st.ProjectionFault != nil {
		return nil, st.ProjectionFault
	}
	p := &plan{st: st, table: t, def: t.Def()}
	b := newExprBuilder(st, params)
	switch st.Kind {
	case partiql.Select:
		if surface.singleRead() {
			err = p.lowerGet(b, surface)
		} else {
			err = p.lowerSelect(b)
		}
	case partiql.Exists:
		err = p.lowerExists(b, rvccf, surface)
	case partiql.Insert:
		err = p.lowerInsert(b, rvccf)
	case partiql.Update:
		err = p.lowerUpdate(b, rvccf)
	case partiql.Delete:
		err = p.lowerDelete(b, rvccf)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// projection renders the SELECT list (nil for *).
func (p *plan) projection(b *exprBuilder) *string {
	if p.st.Projection == nil {
		return nil
	}
	s := ""
	for i, path := range p.st.Projection {
		if i > 0 {
			s += ", "
		}
		s += b.path(path)
	}
	return &s
}

// lowerSelect makes a Query when the WHERE clause pins the (table's or
// index's) partition key with an equality, a Scan otherwise. A sort-key
// comparison joins the key condition; every other conjunct is the filter.
func (p *plan) lowerSelect(b *exprBuilder) error {
	hash, rng := p.def.Hash.Name, ""
	if p.def.Range != nil {
		rng = p.def.Range.Name
	}
	var index *string
	if p.st.Index != "" {
		ix, err := p.checkPQIndexRead()
		if err != nil {
			return err
		}
		index = &p.st.Index
		hash, rng = ix.hash(), ix.rng()
	}
	var keyConds, rest []partiql.Expr
	hashFound := false
	for _, c := range conjuncts(p.st.Where, nil) {
		if name, _, ok := keyEquality(c); ok && name == hash && !hashFound {
			hashFound = true
			keyConds = append(keyConds, c)
			continue
		}
		rest = append(rest, c)
	}
	if hashFound && rng != "" {
		for i, c := range rest {
			if isSortKeyCond(c, rng) {
				keyConds = append(keyConds, c)
				rest = append(rest[:i:i], rest[i+1:]...)
				break
			}
		}
	}
	proj := p.projection(b)
	if !hashFound {
		if p.st.OrderBy != nil {
			return ddberr.Validation(msgPQOrderBy)
		}
		filter, err := b.andAll(rest)
		if err != nil {
			return err
		}
		p.scan = &wire.ScanInput{TableName: &p.st.Table, IndexName: index, ProjectionExpression: proj}
		if filter != "" {
			p.scan.FilterExpression = &filter
		}
		p.scan.ExpressionAttributeNames, p.scan.ExpressionAttributeValues = b.namesOrNil(), b.valuesOrNil()
		return nil
	}
	if p.st.OrderBy != nil {
		ob := *p.st.OrderBy
		if len(ob) != 1 || ob[0].Name != hash && ob[0].Name != rng {
			return ddberr.Validationf("Variable reference %s in ORDER BY clause must be part of the primary key", ob.String())
		}
	}
	kc, err := b.andAll(keyConds)
	if err != nil {
		return err
	}
	filter, err := b.andAll(rest)
	if err != nil {
		return err
	}
	forward := !p.st.OrderDesc
	p.query = &wire.QueryInput{TableName: &p.st.Table, IndexName: index, KeyConditionExpression: &kc,
		ProjectionExpression: proj, ScanIndexForward: &forward}
	if filter != "" {
		p.query.FilterExpression = &filter
	}
	p.query.ExpressionAttributeNames, p.query.ExpressionAttributeValues = b.namesOrNil(), b.valuesOrNil()
	return nil
}

// isSortKeyCond reports whether c is a key-condition-shaped comparison on
// the sort key: rng op constant, BETWEEN or begins_with.
func isSortKeyCond(c partiql.Expr, rng string) bool {
	isKey := func(e partiql.Expr) bool {
		pr, ok := e.(*partiql.PathRef)
		return ok && len(pr.Path) == 1 && pr.Path[0].Index < 0 && pr.Path[0].Name == rng
	}
	switch x := c.(type) {
	case *partiql.Binary:
		switch x.Op {
		case "=", "<", "<=", ">", ">=":
			return isKey(x.L) && isConstant(x.R)
		}
	case *partiql.Between:
		return isKey(x.X) && isConstant(x.Lo) && isConstant(x.Hi)
	case *partiql.Call:
		return x.Name == "begins_with" && len(x.Args) == 2 && isKey(x.Args[0]) && isConstant(x.Args[1])
	}
	return false
}

// lowerGet is a full-key SELECT: one item. DynamoDB refuses anything
// beside the key in such a read with the surface's key text (a suite run
// against it, four regions, October 2026: 'pk = ... AND
// attribute_exists(ss)'; an emulator's tests record the same for a plain
// comparison).
func (p *plan) lowerGet(b *exprBuilder, surface pqSurface) error {
	if p.st.Index != "" { // a transaction refused it already (checkPQTransactStatement)
		return surface.keyRequired()
	}
	key, rest, err := b.fullKey(p.def, p.st.Where)
	if err != nil {
		if err.Error() == ddberr.Validation(msgPQIncompleteKey).Error() {
			return surface.keyRequired()
		}
		return err
	}
	if len(rest) > 0 {
		return surface.keyRequired()
	}
	p.get = &wire.Get{TableName: &p.st.Table, Key: key, ProjectionExpression: p.projection(b)}
	p.get.ExpressionAttributeNames = b.namesOrNil()
	return nil
}

// lowerExists is EXISTS(SELECT ...) in a transaction: a ConditionCheck
// that the item exists and matches the rest of the WHERE clause. In
// ExecuteTransaction the WHERE clause must name the full key and something
// more, or the statement is refused before anything runs (a public
// conformance suite run against DynamoDB, us-east-1 and eu-west-2, 2026-10:
// 'EXISTS(SELECT * FROM t WHERE pk = ...)').
func (p *plan) lowerExists(b *exprBuilder, rvccf string, surface pqSurface) error {
	key, rest, err := b.fullKey(p.def, p.st.Where)
	if err != nil || surface.inTx && len(rest) == 0 {
		return surface.existsRefused()
	}
	cond := "attribute_exists(" + b.name(p.def.Hash.Name) + ")"
	if len(rest) > 0 {
		s, err := b.andAll(rest)
		if err != nil {
			return err
		}
		cond += " AND " + s
	}
	p.check = &wire.ConditionCheck{TableName: &p.st.Table, Key: key, ConditionExpression: &cond,
		ExpressionAttributeNames: b.namesOrNil(), ExpressionAttributeValues: b.valuesOrNil(),
		ReturnValuesOnConditionCheckFailure: rvccf}
	return nil
}

// lowerInsert is a PutItem that must not replace an item.
func (p *plan) lowerInsert(b *exprBuilder, rvccf string) error {
	switch p.st.Value.(type) {
	case *partiql.Struct, *partiql.Param:
	default:
		return ddberr.Validation(msgPQInsertItem)
	}
	v, err := b.literalAt(p.st.Value, "")
	if err != nil {
		return err
	}
	if v.T != attr.M {
		return ddberr.Validation(msgPQInsertItem)
	}
	cond := "attribute_not_exists(" + b.name(p.def.Hash.Name) + ")"
	p.put = &wire.PutItemInput{TableName: &p.st.Table, Item: attr.Item(v.Map), ConditionExpression: &cond,
		ExpressionAttributeNames: b.namesOrNil(), ReturnValuesOnConditionCheckFailure: rvccf}
	if p.st.Returning != "" {
		return ddberr.Validation("RETURNING is not supported in INSERT")
	}
	return nil
}

// lowerUpdate is an UpdateItem of an existing item (a missing one fails
// the condition, as in DynamoDB).
func (p *plan) lowerUpdate(b *exprBuilder, rvccf string) error {
	key, rest, err := b.fullKey(p.def, p.st.Where)
	if err != nil {
		return err
	}
	var set, add, del, remove []string
	for _, a := range p.st.Sets {
		target := b.path(a.Path)
		if c, ok := a.Value.(*partiql.Call); ok && (c.Name == "set_add" || c.Name == "set_delete") {
			arg, err := setFuncArg(b, c, a.Path)
			if err != nil {
				return err
			}
			if c.Name == "set_add" {
				add = append(add, target+" "+arg)
			} else {
				del = append(del, target+" "+arg)
			}
			continue
		}
		v, err := b.operand(a.Value)
		if err != nil {
			return err
		}
		set = append(set, target+" = "+v)
	}
	for _, r := range p.st.Removes {
		remove = append(remove, b.path(r))
	}
	upd := ""
	for _, clause := range []struct {
		kw    string
		parts []string
	}{{"SET", set}, {"ADD", add}, {"DELETE", del}, {"REMOVE", remove}} {
		if len(clause.parts) > 0 {
			upd += clause.kw + " " + strings.Join(clause.parts, ", ") + " "
		}
	}
	cond := "attribute_exists(" + b.name(p.def.Hash.Name) + ")"
	if len(rest) > 0 {
		s, err := b.andAll(rest)
		if err != nil {
			return err
		}
		cond += " AND " + s
	}
	rv, err := returningValues(p.st.Returning, false)
	if err != nil {
		return err
	}
	p.update = &wire.UpdateItemInput{TableName: &p.st.Table, Key: key, UpdateExpression: &upd,
		ConditionExpression: &cond, ExpressionAttributeNames: b.namesOrNil(),
		ExpressionAttributeValues: b.valuesOrNil(), ReturnValues: rv, ReturnValuesOnConditionCheckFailure: rvccf}
	return nil
}

// setFuncArg checks SET a = set_add(a, <<...>>) and renders the set. Its
// refusals carry a position: the function name's, but the first argument's
// when the second is no set (a public conformance suite run against
// DynamoDB, us-east-1 and eu-west-2, 2026-10).
func setFuncArg(b *exprBuilder, c *partiql.Call, target partiql.Path) (string, error) {
	fn := "ADD"
	if c.Name == "set_delete" {
		fn = "DELETE"
	}
	if len(c.Args) != 2 {
		return "", ddberr.Validationf("SET_%s must have exactly two arguments%s", fn, b.st.At(c.At))
	}
	if pr, ok := c.Args[0].(*partiql.PathRef); !ok || pr.Path.String() != target.String() {
		return "", ddberr.Validationf("The first argument to SET_%s must equal the assignment value%s", fn, b.st.At(c.At))
	}
	v, err := b.literal(c.Args[1])
	if _, bag := c.Args[1].(*partiql.Bag); bag && err != nil {
		// A set literal's own refusal: 'Empty bags are not supported', or
		// its duplicate members (worded by pqError; a suite run against
		// DynamoDB, four regions, October 2026).
		return "", err
	}
	if err != nil || v.T != attr.SS && v.T != attr.NS && v.T != attr.BS {
		return "", ddberr.Validationf("The second argument to SET_%s must be a value with type SET%s", fn, b.st.At(c.ArgAt[0]))
	}
	return b.value(v), nil
}

// lowerDelete is a DeleteItem; extra conjuncts must hold when the item
// exists (deleting a missing item is a no-op, as in DynamoDB).
func (p *plan) lowerDelete(b *exprBuilder, rvccf string) error {
	key, rest, err := b.fullKey(p.def, p.st.Where)
	if err != nil {
		return err
	}
	rv, err := returningValues(p.st.Returning, true)
	if err != nil {
		return err
	}
	p.del = &wire.DeleteItemInput{TableName: &p.st.Table, Key: key, ReturnValues: rv, ReturnValuesOnConditionCheckFailure: rvccf}
	if len(rest) > 0 {
		s, err := b.andAll(rest)
		if err != nil {
			return err
		}
		cond := "attribute_not_exists(" + b.name(p.def.Hash.Name) + ") OR " + s
		p.del.ConditionExpression = &cond
		p.del.ExpressionAttributeNames, p.del.ExpressionAttributeValues = b.namesOrNil(), b.valuesOrNil()
	}
	return nil
}

// returningValues maps a RETURNING clause to ReturnValues.
func returningValues(r string, isDelete bool) (string, error) {
	if isDelete && r != "" && r != "ALL OLD" {
		return "", ddberr.Validationf("Invalid returning clause: RETURNING %s *. Only RETURNING ALL OLD * is allowed in DELETE statements.", r)
	}
	return map[string]string{"": "", "ALL OLD": "ALL_OLD", "MODIFIED OLD": "UPDATED_OLD",
		"ALL NEW": "ALL_NEW", "MODIFIED NEW": "UPDATED_NEW"}[r], nil
}
