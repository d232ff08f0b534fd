package engine

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/expr"
)

// UpdateItem's size limit.
//
// Every write surface refuses a finished item over 409,600 bytes. In most
// regions a standalone UpdateItem with an UpdateExpression is also refused
// when what its statement writes is over the limit:
//
//	max(finished item, statement charge) > 409600
//
// The statement charge is sized from the request, not from the item: the
// key attributes and every attribute the statement leaves alone are out of
// it, and each clause adds a fixed cost. It is
//
//	3 for the update, plus for each action:
//	  SET target = rhs     19 + target + rhs
//	  ADD target :v        19 + target + the size of v
//	  REMOVE target        1 + target
//	  DELETE target :v     1 + target (the members removed are free)
//
// where a target costs its first name's bytes plus 4 and the element for
// each later element, and a right-hand side costs
//
//	:v                       v's DynamoDB size, at every use
//	a path                   1 + for each element 14 and the element
//	x + y / x - y            34 / 37 + both operands
//	if_not_exists(p, v)      39 + both operands, whether p exists or not
//	list_append(x, y)        37 + both operands
//
// An element is a name's UTF-8 bytes or a list index's decimal digits. The
// charge is refused before the ConditionExpression is evaluated, so a failing
// condition does not hide it. Neither AttributeUpdates, a PartiQL UPDATE nor
// a transacted Update is charged: they size the finished item only.
//
// Source: a public conformance suite run against DynamoDB, 2026
// (eu-west-2, August to October, every ceiling bisected and the accepted
// item read back; all 33 regions measured in September).

// flatUpdateSizeRegions are the regions where UpdateItem sizes the finished
// item only, like every other write (the same public conformance suite run
// against DynamoDB across 33 regions, 2026-09-28/29). Every other region,
// us-east-1 among them, charges the statement.
var flatUpdateSizeRegions = map[string]bool{
	"ap-south-2":     true,
	"ap-southeast-6": true,
	"ap-southeast-7": true,
	"ca-central-1":   true,
	"eu-central-2":   true,
	"eu-south-1":     true,
	"eu-south-2":     true,
	"eu-west-1":      true,
	"me-central-1":   true,
	"us-east-2":      true,
}

// chargesUpdateStatements reports whether UpdateItem in region charges its
// statement (see above) as well as sizing the finished item.
func chargesUpdateStatements(region string) bool { return !flatUpdateSizeRegions[region] }

// Statement charge costs, in bytes (see above).
const (
	chargeUpdate      = 3  // the update itself
	chargeWrite       = 19 // a SET or ADD action
	chargeRemove      = 1  // a REMOVE or DELETE action
	chargeTargetElem  = 4  // each target element after the first
	chargePathOperand = 1  // a path operand
	chargeOperandElem = 14 // each element of a path operand
	chargePlus        = 34 // x + y
	chargeMinus       = 37 // x - y
	chargeIfNotExists = 39 // if_not_exists(p, v)
	chargeListAppend  = 37 // list_append(x, y)
)

// updateCharge returns the statement charge of update u. It allocates
// nothing; its cost is one pass over the actions plus the sizing of the
// values they use. It stops adding once the charge is past limit (the
// figure returned is then only known to be over it).
func updateCharge(u *expr.Update, limit int) int {
	n := chargeUpdate
	for i := range u.Actions {
		a := &u.Actions[i]
		switch a.Kind {
		case expr.ActionSet, expr.ActionAdd:
			n += chargeWrite + targetCharge(a.Path) + operandCharge(a.Value)
		case expr.ActionRemove, expr.ActionDelete:
			n += chargeRemove + targetCharge(a.Path)
		}
		if n > limit {
			break
		}
	}
	return n
}

// targetCharge is what an action's target path costs: its first name, then
// 4 and the element for each later element.
func targetCharge(p expr.Path) int {
	n := 0
	for i, e := range p {
		if i > 0 {
			n += chargeTargetElem
		}
		n += elemBytes(e)
	}
	return n
}

// operandCharge is what a SET right-hand side (or an ADD value) costs.
func operandCharge(o *expr.Operand) int {
	if o == nil {
		return 0
	}
	switch o.Kind {
	case expr.OperandValue:
		return attr.ValueSize(o.Value)
	case expr.OperandPath:
		n := chargePathOperand
		for _, e := range o.Path {
			n += chargeOperandElem + elemBytes(e)
		}
		return n
	case expr.OperandPlus:
		return chargePlus + operandCharge(o.Args[0]) + operandCharge(o.Args[1])
	case expr.OperandMinus:
		return chargeMinus + operandCharge(o.Args[0]) + operandCharge(o.Args[1])
	case expr.OperandCall:
		n := 0 // no other function reaches an update
		switch o.Func {
		case "if_not_exists":
			n = chargeIfNotExists
		case "list_append":
			n = chargeListAppend
		}
		for _, a := range o.Args {
			n += operandCharge(a)
		}
		return n
	}
	return 0
}

// elemBytes is a path element's own bytes: a name's UTF-8 length or a list
// index's decimal digits.
func elemBytes(e expr.PathElem) int {
	if !e.IsIndex {
		return len(e.Name)
	}
	n, i := 1, e.Index
	for i >= 10 {
		i /= 10
		n++
	}
	return n
}
