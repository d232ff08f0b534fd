package expr

// ParseCondition parses a condition-like expression of kind and resolves
// its names and values against p.
func (p *Params) ParseCondition(kind Kind, s string) (*Condition, error) {
	c, err := ParseCondition(kind, s)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveCondition(c); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseProjection parses a ProjectionExpression and resolves its names
// against p.
func (p *Params) ParseProjection(s string) (*Projection, error) {
	pr, err := ParseProjection(s)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveProjection(pr); err != nil {
		return nil, err
	}
	return pr, nil
}
