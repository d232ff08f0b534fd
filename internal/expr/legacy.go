package expr

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// invalidParam is the request-phase "One or more parameter values were
// invalid: ..." error.
func invalidParam(format string, args ...any) error {
	return ddberr.RequestInvalidf("One or more parameter values were invalid: "+format, args...)
}

// argCount returns whether n operands suit the legacy ComparisonOperator op
// (and whether op is known).
func argCountOK(op string, n int) (ok, known bool) {
	switch op {
	case "EQ", "NE", "LE", "LT", "GE", "GT", "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH":
		return n == 1, true
	case "NULL", "NOT_NULL":
		return n == 0, true
	case "IN":
		return n >= 1, true
	case "BETWEEN":
		return n == 2, true
	}
	return false, false
}

// legacyTypes lists the AttributeValue types each operator accepts.
var legacyTypes = map[string][]attr.Type{
	// "EQ is supported for all data types, including lists and maps" (the
	// API reference's Condition); so is NE.
	"EQ":           {attr.S, attr.N, attr.B, attr.BOOL, attr.NULL, attr.M, attr.L, attr.SS, attr.NS, attr.BS},
	"NE":           {attr.S, attr.N, attr.B, attr.BOOL, attr.NULL, attr.M, attr.L, attr.SS, attr.NS, attr.BS},
	"LE":           {attr.S, attr.N, attr.B},
	"LT":           {attr.S, attr.N, attr.B},
	"GE":           {attr.S, attr.N, attr.B},
	"GT":           {attr.S, attr.N, attr.B},
	"CONTAINS":     {attr.S, attr.N, attr.B},
	"NOT_CONTAINS": {attr.S, attr.N, attr.B},
	"BEGINS_WITH":  {attr.S, attr.B},
	"IN":           {attr.S, attr.N, attr.B},
	"BETWEEN":      {attr.S, attr.N, attr.B},
}

// checkLegacyValues runs the operand checks shared by Expected and the
// filter/key-condition maps.
func checkLegacyValues(op string, vals []attr.Value, checkTypes bool) error {
	if ok, _ := argCountOK(op, len(vals)); !ok {
		return invalidParam("Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	for _, v := range vals[min(1, len(vals)):] {
		if v.T != vals[0].T {
			return invalidParam("AttributeValues inside AttributeValueList must be of same type")
		}
	}
	if checkTypes {
		for _, v := range vals {
			allowed := false
			for _, t := range legacyTypes[op] {
				allowed = allowed || t == v.T
			}
			if !allowed {
				return invalidParam("ComparisonOperator %s is not valid for %s AttributeValue type", op, v.T)
			}
		}
	}
	if op == "BETWEEN" {
		if c, ok := attr.Compare(vals[0], vals[1]); ok && c > 0 {
			return ddberr.RequestInvalid("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	return nil
}

// checkLegacyNames refuses an attribute name longer than an attribute
// name may be in the legacy parameters (AttributesToGet, Expected, the
// filters, AttributeUpdates), as in items and expressions (ScyllaDB's
// Alternator tests, which are run against DynamoDB), and an empty one, as
// DynamoDB refuses it there too (issue 33 item 11, from suites run against
// it; the text is the one recorded for an item's empty name, no capture
// of the legacy parameters' own wording was found).
func checkLegacyNames(names ...string) error {
	for _, n := range names {
		switch {
		case n == "":
			return attr.EmptyName()
		case len(n) > attr.MaxNameSize:
			return attr.NameTooLarge()
		}
	}
	return nil
}

// legacyCondition builds the condition node for one legacy comparison.
func legacyCondition(kind Kind, name, op string, vals []attr.Value) *Condition {
	path := PathOperand(NamePath(name))
	ops := []*Operand{path}
	for _, v := range vals {
		ops = append(ops, ValueOperand(v))
	}
	c := &Condition{Kind: kind, Operands: ops}
	switch op {
	case "EQ":
		c.Op = OpEQ
	case "NE":
		c.Op = OpNE
	case "LT":
		c.Op = OpLT
	case "LE":
		c.Op = OpLE
	case "GT":
		c.Op = OpGT
	case "GE":
		c.Op = OpGE
	case "IN":
		c.Op = OpIn
	case "BETWEEN":
		c.Op = OpBetween
	case "NULL":
		c.Op, c.Func = OpAttributeNotExists, "attribute_not_exists"
	case "NOT_NULL":
		c.Op, c.Func = OpAttributeExists, "attribute_exists"
	case "BEGINS_WITH":
		c.Op, c.Func = OpBeginsWith, "begins_with"
	case "CONTAINS", "NOT_CONTAINS":
		c.Op, c.Func = OpContains, "contains"
		if op == "NOT_CONTAINS" {
			// NOT_CONTAINS, like CONTAINS, is false when the attribute is
			// missing (ScyllaDB's Alternator tests, which are run against
			// DynamoDB), unlike NOT contains(...) in an expression.
			exists := &Condition{Kind: kind, Op: OpAttributeExists, Func: "attribute_exists", Operands: []*Operand{path}}
			return &Condition{Kind: kind, Op: OpAnd, Sub: []*Condition{exists, {Kind: kind, Op: OpNot, Sub: []*Condition{c}}}}
		}
	}
	return c
}

// combine joins conditions with ConditionalOperator (AND by default).
func combine(kind Kind, conds []*Condition, conditionalOperator string) *Condition {
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	op := OpAnd
	if conditionalOperator == "OR" {
		op = OpOr
	}
	return &Condition{Kind: kind, Op: op, Sub: conds}
}

// ConvertExpected converts the legacy Expected parameter (with
// ConditionalOperator) into a resolved condition; nil when expected is
// empty.
func ConvertExpected(expected map[string]wire.ExpectedAttributeValue, conditionalOperator string) (*Condition, error) {
	if err := checkLegacyNames(sortedKeys(expected)...); err != nil {
		return nil, err
	}
	var conds []*Condition
	for _, name := range sortedKeys(expected) {
		e := expected[name]
		if e.AttributeValueList != nil && e.Value != nil {
			return nil, invalidParam("Value and AttributeValueList cannot be used together for Attribute: %s", name)
		}
		if e.ComparisonOperator != "" {
			if e.Exists != nil {
				return nil, invalidParam("Exists and ComparisonOperator cannot be used together for Attribute: %s", name)
			}
			op := e.ComparisonOperator
			if op != "NULL" && op != "NOT_NULL" && e.AttributeValueList == nil && e.Value == nil {
				return nil, invalidParam("Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", op, name)
			}
			vals := e.AttributeValueList
			if e.Value != nil {
				vals = []attr.Value{*e.Value}
			}
			if err := checkLegacyValues(op, vals, true); err != nil {
				return nil, err
			}
			conds = append(conds, legacyCondition(KindCondition, name, op, vals))
			continue
		}
		if e.AttributeValueList != nil {
			return nil, invalidParam("AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", name)
		}
		exists := e.Exists == nil || *e.Exists
		switch {
		case exists && e.Value == nil:
			state := "null"
			if e.Exists != nil {
				state = "true"
			}
			return nil, invalidParam("Value must be provided when Exists is %s for Attribute: %s", state, name)
		case !exists && e.Value != nil:
			return nil, invalidParam("Value cannot be used when Exists is false for Attribute: %s", name)
		case exists:
			conds = append(conds, legacyCondition(KindCondition, name, "EQ", []attr.Value{*e.Value}))
		default:
			conds = append(conds, legacyCondition(KindCondition, name, "NULL", nil))
		}
	}
	return combine(KindCondition, conds, conditionalOperator), nil
}

// ConvertConditions converts QueryFilter, ScanFilter (kind KindFilter) or
// KeyConditions (kind KindKeyCondition, conditionalOperator "") into a
// resolved condition; nil when conds is empty. Key conditions are then
// checked with AnalyzeKeyCondition.
func ConvertConditions(kind Kind, conds map[string]wire.Condition, conditionalOperator string) (*Condition, error) {
	if err := checkLegacyNames(sortedKeys(conds)...); err != nil {
		return nil, err
	}
	var out []*Condition
	for _, name := range sortedKeys(conds) {
		c := conds[name]
		if err := checkLegacyValues(c.ComparisonOperator, c.AttributeValueList, true); err != nil {
			return nil, err
		}
		out = append(out, legacyCondition(kind, name, c.ComparisonOperator, c.AttributeValueList))
	}
	return combine(kind, out, conditionalOperator), nil
}

// ConvertAttributeUpdates converts the legacy AttributeUpdates parameter into
// a resolved update. PUT sets, DELETE without a value removes, DELETE with a
// set value subtracts, ADD adds numbers and sets and appends lists.
func ConvertAttributeUpdates(updates map[string]wire.AttributeValueUpdate) (*Update, error) {
	if err := checkLegacyNames(sortedKeys(updates)...); err != nil {
		return nil, err
	}
	u := &Update{legacy: true}
	for _, name := range sortedKeys(updates) {
		a := updates[name]
		action := a.Action
		if action == "" {
			action = "PUT"
		}
		if a.Value == nil && action != "DELETE" {
			return nil, invalidParam("Only DELETE action is allowed when no attribute value is specified")
		}
		path := NamePath(name)
		switch action {
		case "PUT":
			u.Actions = append(u.Actions, Action{Kind: ActionSet, Path: path, Value: ValueOperand(*a.Value)})
		case "DELETE":
			if a.Value == nil {
				u.Actions = append(u.Actions, Action{Kind: ActionRemove, Path: path})
				continue
			}
			if !a.Value.T.IsSet() {
				return nil, invalidParam("DELETE action with value is not supported for the type %s", a.Value.T)
			}
			u.Actions = append(u.Actions, Action{Kind: ActionDelete, Path: path, Value: ValueOperand(*a.Value)})
		case "ADD":
			switch a.Value.T {
			case attr.N, attr.SS, attr.NS, attr.BS, attr.L:
			default:
				return nil, invalidParam("ADD action is not supported for the type %s", a.Value.T)
			}
			u.Actions = append(u.Actions, Action{Kind: ActionAdd, Path: path, Value: ValueOperand(*a.Value)})
		}
	}
	return u, nil
}

// ConvertAttributesToGet converts AttributesToGet into a projection; nil
// when names is empty. Duplicates are rejected as DynamoDB does.
func ConvertAttributesToGet(names []string) (*Projection, error) {
	if len(names) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	pr := &Projection{}
	if err := checkLegacyNames(names...); err != nil {
		return nil, err
	}
	for _, n := range names {
		if seen[n] {
			return nil, invalidParam("Duplicate value in attribute name: %s", n)
		}
		seen[n] = true
		pr.Paths = append(pr.Paths, NamePath(n))
	}
	return pr, nil
}
