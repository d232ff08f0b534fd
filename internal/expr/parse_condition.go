package expr

import "github.com/kura-db/kura/internal/ddberr"

// ParseCondition parses a ConditionExpression, FilterExpression or
// KeyConditionExpression (kind says which, for messages) and runs the checks
// that need only the text. The result must be resolved with
// Params.ResolveCondition before evaluation. Repeated texts are served from
// the parse cache (cache.go).
func ParseCondition(kind Kind, s string) (*Condition, error) {
	return conditionCache.parse(kind, s, parseCondition, (*Condition).clone)
}

func parseCondition(kind Kind, s string) (*Condition, error) {
	p, derr := newParser(kind, s)
	if derr != nil {
		return nil, derr
	}
	c, _, err := p.parseOr()
	if err == nil && p.peek().kind != tokEOF {
		err = p.fail()
	}
	if err != nil {
		return nil, p.finish(err)
	}
	if derr := p.parsed(); derr != nil {
		return nil, derr
	}
	if derr := p.checkCondition(c); derr != nil {
		return nil, derr
	}
	return c, nil
}

func (p *parser) parseOr() (*Condition, bool, error) {
	c, group, err := p.parseAnd()
	if err != nil || !p.peek().isKeyword("OR") {
		return c, group, err
	}
	or := &Condition{Kind: p.kind, Op: OpOr, Sub: []*Condition{c}}
	for p.peek().isKeyword("OR") {
		if err := p.operator(); err != nil {
			return nil, false, err
		}
		p.pos++
		d, _, err := p.parseAnd()
		if err != nil {
			return nil, false, err
		}
		or.Sub = append(or.Sub, d)
	}
	return or, false, nil
}

func (p *parser) parseAnd() (*Condition, bool, error) {
	c, group, err := p.parseNot()
	if err != nil || !p.peek().isKeyword("AND") {
		return c, group, err
	}
	and := &Condition{Kind: p.kind, Op: OpAnd, Sub: []*Condition{c}}
	for p.peek().isKeyword("AND") {
		if err := p.operator(); err != nil {
			return nil, false, err
		}
		p.pos++
		d, _, err := p.parseNot()
		if err != nil {
			return nil, false, err
		}
		and.Sub = append(and.Sub, d)
	}
	return and, false, nil
}

func (p *parser) parseNot() (*Condition, bool, error) {
	if !p.peek().isKeyword("NOT") {
		return p.parsePrimary()
	}
	if err := p.enter(); err != nil {
		return nil, false, err
	}
	defer p.leave()
	if err := p.operator(); err != nil {
		return nil, false, err
	}
	p.pos++
	c, _, err := p.parseNot()
	if err != nil {
		return nil, false, err
	}
	return &Condition{Kind: p.kind, Op: OpNot, Sub: []*Condition{c}}, false, nil
}

// isComparisonStart reports whether t can follow the left operand of a
// comparison, BETWEEN or IN.
func isComparisonStart(t token) bool {
	if t.kind == tokPunct {
		switch t.text {
		case "=", "<>", "<", "<=", ">", ">=":
			return true
		}
	}
	return t.isKeyword("BETWEEN") || t.isKeyword("IN")
}

// parsePrimary parses a parenthesised condition or a comparison/function.
// The bool result reports that the condition was exactly one parenthesised
// group (used to detect redundant parentheses).
func (p *parser) parsePrimary() (*Condition, bool, error) {
	if !p.peek().is("(") {
		return p.parseComparison()
	}
	// "(" starts either a parenthesised operand, as in "(a) = :v", or a
	// parenthesised condition. Try the operand reading first.
	save, saveRed, saveDepth, saveOps := p.pos, p.redundant, p.depth, p.ops
	if _, _, err := p.parseOperand(); err == nil && isComparisonStart(p.peek()) {
		p.pos, p.redundant, p.depth, p.ops = save, saveRed, saveDepth, saveOps
		return p.parseComparison()
	}
	p.pos, p.redundant, p.depth, p.ops = save, saveRed, saveDepth, saveOps
	if err := p.enter(); err != nil {
		return nil, false, err
	}
	defer p.leave()
	p.pos++
	c, group, err := p.parseOr()
	if err != nil {
		return nil, false, err
	}
	if err := p.expect(")"); err != nil {
		return nil, false, err
	}
	if group {
		p.redundant = true
	}
	return c, true, nil
}

var comparators = map[string]Op{"=": OpEQ, "<>": OpNE, "<": OpLT, "<=": OpLE, ">": OpGT, ">=": OpGE}

func (p *parser) parseComparison() (*Condition, bool, error) {
	left, _, err := p.parseOperand()
	if err != nil {
		return nil, false, err
	}
	t := p.peek()
	cmp, isCmp := comparators[t.text]
	if t.kind == tokPunct && isCmp || t.isKeyword("BETWEEN") || t.isKeyword("IN") {
		if err := p.operator(); err != nil {
			return nil, false, err
		}
	}
	switch {
	case t.kind == tokPunct && isCmp:
		p.pos++
		right, _, err := p.parseOperand()
		if err != nil {
			return nil, false, err
		}
		return &Condition{Kind: p.kind, Op: cmp, Operands: []*Operand{left, right}}, false, nil
	case t.isKeyword("BETWEEN"):
		p.pos++
		lo, _, err := p.parseOperand()
		if err != nil {
			return nil, false, err
		}
		if !p.peek().isKeyword("AND") {
			return nil, false, p.fail()
		}
		p.pos++
		hi, _, err := p.parseOperand()
		if err != nil {
			return nil, false, err
		}
		return &Condition{Kind: p.kind, Op: OpBetween, Operands: []*Operand{left, lo, hi}}, false, nil
	case t.isKeyword("IN"):
		p.pos++
		if err := p.expect("("); err != nil {
			return nil, false, err
		}
		c := &Condition{Kind: p.kind, Op: OpIn, Operands: []*Operand{left}}
		for {
			o, _, err := p.parseOperand()
			if err != nil {
				return nil, false, err
			}
			c.Operands = append(c.Operands, o)
			if p.peek().is(",") {
				p.pos++
				continue
			}
			if err := p.expect(")"); err != nil {
				return nil, false, err
			}
			return c, false, nil
		}
	case left.Kind == OperandCall:
		op, ok := condFuncs[left.Func]
		if !ok {
			op = opCall
		}
		return &Condition{Kind: p.kind, Op: op, Func: left.Func, Operands: left.Args}, false, nil
	}
	return nil, false, p.fail()
}

// checkCondition runs the text-only checks in DynamoDB's order: redundant
// parentheses, unknown functions, misused functions, reserved words, operand
// counts and document-path operands.
func (p *parser) checkCondition(c *Condition) *ddberr.Error {
	if p.redundant {
		return requestErr(p.kind, "The expression has redundant parentheses;")
	}
	var conds []*Condition
	var ops []*Operand
	walkCondition(c, func(c *Condition) { conds = append(conds, c) }, func(o *Operand) { ops = append(ops, o) })
	// Unknown function names; an update's functions are known but not
	// allowed here (several emulators' DynamoDB texts and applications'
	// notes agree on this one).
	unknown := func(fn string) *ddberr.Error {
		if updateFuncs[fn] {
			return requestErr(p.kind, "The function is not allowed in a condition expression; function: %s", fn)
		}
		return requestErr(p.kind, "Invalid function name; function: %s", fn)
	}
	for _, c := range conds {
		if c.Op == opCall && c.Func != "size" {
			return unknown(c.Func)
		}
	}
	for _, o := range ops {
		if o.Kind == OperandCall {
			if _, ok := condFuncs[o.Func]; !ok && o.Func != "size" {
				return unknown(o.Func)
			}
		}
	}
	// Functions used in the wrong place.
	for _, c := range conds {
		if c.Op == opCall {
			return requestErr(p.kind, "The function is not allowed to be used this way in an expression; function: %s", c.Func)
		}
	}
	for _, o := range ops {
		if o.Kind == OperandCall && o.Func != "size" {
			return requestErr(p.kind, "The function is not allowed to be used this way in an expression; function: %s", o.Func)
		}
	}
	if err := checkReserved(p.kind, ops); err != nil {
		return err
	}
	// Operand counts.
	for _, c := range conds {
		if c.Op.isFunction() && len(c.Operands) != funcArity[c.Func] {
			return requestErr(p.kind, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", c.Func, len(c.Operands))
		}
		if c.Op == OpIn && len(c.Operands)-1 > MaxInOperands {
			return requestErr(p.kind, "The IN operator is provided with too many operands; number of operands: %d", len(c.Operands)-1)
		}
	}
	for _, o := range ops {
		if o.Kind == OperandCall && len(o.Args) != funcArity[o.Func] {
			return requestErr(p.kind, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", o.Func, len(o.Args))
		}
	}
	for _, c := range conds {
		if (c.Op == OpAttributeExists || c.Op == OpAttributeNotExists) && c.Operands[0].Kind != OperandPath {
			return requestErr(p.kind, "Operator or function requires a document path; operator or function: %s", c.Func)
		}
	}
	return nil
}

// checkReserved reports the first bare path element that is a reserved word.
func checkReserved(kind Kind, ops []*Operand) *ddberr.Error {
	for _, o := range ops {
		if o.Kind != OperandPath {
			continue
		}
		if err := checkReservedPath(kind, o.Path); err != nil {
			return err
		}
	}
	return nil
}

func checkReservedPath(kind Kind, path Path) *ddberr.Error {
	for _, e := range path {
		if !e.IsIndex && e.Placeholder == "" && IsReserved(e.Name) {
			return requestErr(kind, "Attribute name is a reserved keyword; reserved keyword: %s", e.Name)
		}
	}
	return nil
}

// walkCondition visits every condition node and every operand (including
// nested function arguments) in source order.
func walkCondition(c *Condition, fc func(*Condition), fo func(*Operand)) {
	fc(c)
	for _, o := range c.Operands {
		walkOperand(o, fo)
	}
	for _, s := range c.Sub {
		walkCondition(s, fc, fo)
	}
}

func walkOperand(o *Operand, fo func(*Operand)) {
	fo(o)
	for _, a := range o.Args {
		walkOperand(a, fo)
	}
}
