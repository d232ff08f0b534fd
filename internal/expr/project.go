package expr

import (
	"sort"

	"github.com/kura-db/kura/internal/attr"
)

// Apply projects item on the (resolved) projection's paths.
func (pr *Projection) Apply(item attr.Item) attr.Item { return Project(item, pr.Paths) }

// projNode is a trie of requested paths.
type projNode struct {
	whole   bool
	names   map[string]*projNode
	indexes map[int]*projNode
}

func (n *projNode) child(e PathElem) *projNode {
	if e.IsIndex {
		if n.indexes == nil {
			n.indexes = map[int]*projNode{}
		}
		c := n.indexes[e.Index]
		if c == nil {
			c = &projNode{}
			n.indexes[e.Index] = c
		}
		return c
	}
	if n.names == nil {
		n.names = map[string]*projNode{}
	}
	c := n.names[e.Name]
	if c == nil {
		c = &projNode{}
		n.names[e.Name] = c
	}
	return c
}

// Project returns the parts of item named by paths, keeping the nested
// structure: map members keep their keys, and selected list elements are
// returned in index order (a[3], a[1] yields a list of two elements).
func Project(item attr.Item, paths []Path) attr.Item {
	root := &projNode{}
	for _, p := range paths {
		n := root
		for _, e := range p {
			n = n.child(e)
		}
		n.whole = true
	}
	out := attr.Item{}
	for name, n := range root.names {
		v, ok := item[name]
		if !ok {
			continue
		}
		if pv, ok := projectValue(v, n); ok {
			out[name] = pv
		}
	}
	return out
}

func projectValue(v attr.Value, n *projNode) (attr.Value, bool) {
	if n.whole {
		return v, true
	}
	switch {
	case v.T == attr.M && n.names != nil:
		m := map[string]attr.Value{}
		for name, c := range n.names {
			if e, ok := v.Map[name]; ok {
				if pv, ok := projectValue(e, c); ok {
					m[name] = pv
				}
			}
		}
		if len(m) == 0 {
			return attr.Value{}, false
		}
		return attr.Value{T: attr.M, Map: m}, true
	case v.T == attr.L && n.indexes != nil:
		idx := make([]int, 0, len(n.indexes))
		for i := range n.indexes {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var l []attr.Value
		for _, i := range idx {
			if i < len(v.List) {
				if pv, ok := projectValue(v.List[i], n.indexes[i]); ok {
					l = append(l, pv)
				}
			}
		}
		if len(l) == 0 {
			return attr.Value{}, false
		}
		return attr.Value{T: attr.L, List: l}, true
	}
	return attr.Value{}, false
}
