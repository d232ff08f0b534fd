package expr

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// KeyPart is one condition of a key condition on one key attribute.
type KeyPart struct {
	Name string
	// Op is OpEQ, OpLT, OpLE, OpGT, OpGE, OpBetween or OpBeginsWith, with
	// the key attribute on the left.
	Op     Op
	Values []attr.Value // 1 value (2 for BETWEEN)
}

// KeyCondition is an analysed key condition: equality on every hash key
// attribute and conditions on a leading run of range key attributes,
// equalities first and at most one other condition last.
type KeyCondition struct {
	Hash  []KeyPart // in key-schema order, all OpEQ
	Range []KeyPart // in key-schema order
}

// flattenAnd returns the conjuncts of c.
func flattenAnd(c *Condition, out []*Condition) []*Condition {
	if c.Op == OpAnd {
		for _, s := range c.Sub {
			out = flattenAnd(s, out)
		}
		return out
	}
	return append(out, c)
}

// CheckKeyCondition runs the schema-independent checks of a resolved
// KeyConditionExpression (request phase) and returns its conditions, one per
// key attribute, with the key attribute on the left.
func CheckKeyCondition(c *Condition) ([]KeyPart, error) {
	var parts []KeyPart
	var bad error
	walkCondition(c, func(n *Condition) {
		if bad != nil {
			return
		}
		switch n.Op {
		case OpOr, OpNot, OpIn, OpNE:
			bad = ddberr.RequestInvalidf("Invalid operator used in KeyConditionExpression: %s", n.Op)
		case OpAttributeExists, OpAttributeNotExists, OpAttributeType, OpContains:
			bad = ddberr.RequestInvalidf("Invalid operator used in KeyConditionExpression: %s", n.Func)
		}
	}, func(o *Operand) {
		if bad == nil && o.Kind == OperandCall {
			bad = ddberr.RequestInvalid("KeyConditionExpressions cannot contain nested operations")
		}
	})
	if bad != nil {
		return nil, bad
	}
	seen := map[string]bool{}
	for _, n := range flattenAnd(c, nil) {
		if (n.Op == OpBetween || n.Op == OpBeginsWith) && n.Operands[0].Kind != OperandPath {
			name := "BETWEEN"
			if n.Op == OpBeginsWith {
				name = n.Func
			}
			return nil, ddberr.RequestInvalidf("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand", name)
		}
		pathAt := -1
		for i, o := range n.Operands {
			if o.Kind != OperandPath {
				continue
			}
			if pathAt >= 0 {
				return nil, ddberr.RequestInvalid("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
			}
			if len(o.Path) > 1 {
				return nil, ddberr.RequestInvalid("KeyConditionExpressions cannot have conditions on nested attributes")
			}
			pathAt = i
		}
		if pathAt < 0 {
			return nil, ddberr.RequestInvalid("Invalid condition in KeyConditionExpression: No key attribute specified")
		}
		name := n.Operands[pathAt].Path[0].Name
		if seen[name] {
			return nil, ddberr.RequestInvalid("Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key")
		}
		seen[name] = true
		part := KeyPart{Name: name, Op: n.Op}
		for i, o := range n.Operands {
			if i != pathAt {
				part.Values = append(part.Values, o.Value)
			}
		}
		if pathAt == 1 { // :v < k  ==  k > :v
			part.Op = map[Op]Op{OpEQ: OpEQ, OpLT: OpGT, OpLE: OpGE, OpGT: OpLT, OpGE: OpLE}[n.Op]
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// AnalyzeKeyCondition matches a resolved key condition against a key
// schema. hashNames and rangeNames list the key attributes in schema order
// (one hash and at most one range attribute for tables and classic indexes;
// up to four each for multi-attribute index keys). Every hash attribute
// needs an equality; range attributes may be constrained left to right,
// equalities first and the last condition of any supported kind.
func AnalyzeKeyCondition(c *Condition, hashNames, rangeNames []string) (*KeyCondition, error) {
	parts, err := CheckKeyCondition(c)
	if err != nil {
		return nil, err
	}
	if keys := len(hashNames) + len(rangeNames); len(parts) > keys {
		return nil, ddberr.Validationf("The number of query conditions (%d) exceeds the number of key attributes defined in the schema (%d)", len(parts), keys)
	}
	byName := map[string]KeyPart{}
	for _, p := range parts {
		byName[p.Name] = p
	}
	kc := &KeyCondition{}
	for _, h := range hashNames {
		p, ok := byName[h]
		if !ok {
			return nil, ddberr.Validationf("Query condition missed key schema element: %s", h)
		}
		if p.Op != OpEQ {
			return nil, ddberr.Validation("Query key condition not supported")
		}
		kc.Hash = append(kc.Hash, p)
		delete(byName, h)
	}
	// A condition on a RANGE attribute needs equalities on every RANGE
	// attribute before it (multi-attribute index keys); DynamoDB names the
	// first one lacking it and the later attribute.
	for li, later := range rangeNames {
		if _, ok := byName[later]; !ok {
			continue
		}
		for _, prior := range rangeNames[:li] {
			if p, ok := byName[prior]; !ok || p.Op != OpEQ {
				return nil, ddberr.Validationf("RANGE key attributes %s must have equality conditions specified in the query because a condition is present on key attribute %s", prior, later)
			}
		}
	}
	for _, r := range rangeNames {
		p, ok := byName[r]
		if !ok {
			break
		}
		kc.Range = append(kc.Range, p)
		delete(byName, r)
		if p.Op != OpEQ {
			break // a later condition was refused above
		}
	}
	if len(byName) > 0 {
		if len(rangeNames) > 0 && len(kc.Range) == 0 {
			for name := range byName {
				if !isOneOf(name, rangeNames) {
					return nil, ddberr.Validationf("Query condition missed key schema element: %s", rangeNames[0])
				}
			}
		}
		return nil, ddberr.Validation("Query key condition not supported")
	}
	return kc, nil
}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
