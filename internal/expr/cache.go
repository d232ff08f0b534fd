package expr

import (
	"sync"
	"sync/atomic"
)

// Applications send the same few expression texts over and over, so the
// parsers keep what they produced for each text (after the checks that need
// only the text) and hand out deep copies: resolution fills placeholders in
// place, so a template is never given out itself. Only successful parses
// are kept; a text that fails is parsed again each time, so its error is
// always the parser's own.

// parseCacheMax bounds each cache; a full cache is emptied and refills.
// Texts longer than parseCacheMaxText are not kept.
const (
	parseCacheMax     = 1024
	parseCacheMaxText = 1024
)

var (
	conditionCache  parseCache[*Condition]
	updateCache     parseCache[*Update]
	projectionCache parseCache[*Projection]
)

type parseKey struct {
	kind Kind
	text string
}

// parseCache maps expression texts to parsed templates.
type parseCache[T any] struct {
	m sync.Map // parseKey → T
	n atomic.Int32
}

// parse returns a copy of the cached template for (kind, s), or parses s,
// keeps the result and returns a copy of it.
func (c *parseCache[T]) parse(kind Kind, s string, parse func(Kind, string) (T, error), clone func(T) T) (T, error) {
	key := parseKey{kind, s}
	if v, ok := c.m.Load(key); ok {
		return clone(v.(T)), nil
	}
	t, err := parse(kind, s)
	if err != nil || len(s) > parseCacheMaxText {
		return t, err
	}
	if c.n.Add(1) > parseCacheMax {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(key, t)
	return clone(t), nil
}

// clone copies c and everything it points to.
func (c *Condition) clone() *Condition {
	d := *c
	if c.Operands != nil {
		d.Operands = make([]*Operand, len(c.Operands))
		for i, o := range c.Operands {
			d.Operands[i] = o.clone()
		}
	}
	if c.Sub != nil {
		d.Sub = make([]*Condition, len(c.Sub))
		for i, s := range c.Sub {
			d.Sub[i] = s.clone()
		}
	}
	return &d
}

// clone copies o and everything it points to; nil stays nil.
func (o *Operand) clone() *Operand {
	if o == nil {
		return nil
	}
	d := *o
	d.Path = o.Path.clone()
	if o.Args != nil {
		d.Args = make([]*Operand, len(o.Args))
		for i, a := range o.Args {
			d.Args[i] = a.clone()
		}
	}
	return &d
}

func (p Path) clone() Path {
	if p == nil {
		return nil
	}
	return append(make(Path, 0, len(p)), p...)
}

func (u *Update) clone() *Update {
	d := &Update{legacy: u.legacy, Actions: make([]Action, len(u.Actions))}
	for i, a := range u.Actions {
		d.Actions[i] = Action{Kind: a.Kind, Path: a.Path.clone(), Value: a.Value.clone()}
	}
	return d
}

func (p *Projection) clone() *Projection {
	d := &Projection{Paths: make([]Path, len(p.Paths))}
	for i, q := range p.Paths {
		d.Paths[i] = q.clone()
	}
	return d
}
