package expr

import (
	"bytes"
	"sort"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// Evaluation-phase update errors (no "1 validation error detected" prefix).
var (
	errBadPath    = "The document path provided in the update expression is invalid for update"
	errBadOperand = "An operand in the update expression has an incorrect data type"
	// errLegacyType is the same failure for AttributeUpdates ADD/DELETE
	// (DynamoDB's text, as SDK users report it, e.g. aws/aws-sdk-java#905).
	errLegacyType  = "Type mismatch for attribute to update"
	errMissingAttr = "The provided expression refers to an attribute that does not exist in the item"
)

// Paths returns the document paths the update writes, in action order. The
// engine projects the old and new items on them for UPDATED_OLD and
// UPDATED_NEW (DynamoDB returns every touched attribute, changed or not).
func (u *Update) Paths() []Path {
	ps := make([]Path, len(u.Actions))
	for i, a := range u.Actions {
		ps[i] = a.Path
	}
	return ps
}

// Apply returns the item that results from applying the (resolved) update
// to item (nil for an absent item), together with the paths it touched
// (a SET past the end of a list reports the appended element's index).
// item is never modified: touched maps and lists are copied on write.
func (u *Update) Apply(item attr.Item) (attr.Item, []Path, error) {
	out := make(attr.Item, len(item)+len(u.Actions))
	for k, v := range item {
		out[k] = v
	}
	// SET values are computed from the original item, before any change.
	vals := make([]attr.Value, len(u.Actions))
	for i, a := range u.Actions {
		if a.Kind != ActionSet {
			continue
		}
		v, err := setValue(item, a.Value)
		if err != nil {
			return nil, nil, err
		}
		vals[i] = v
	}
	var removes []Path
	touched := u.Paths()
	order := u.applyOrder()
	for k := range u.Actions {
		i := k
		if order != nil {
			i = order[k]
		}
		a := u.Actions[i]
		var err error
		switch a.Kind {
		case ActionSet:
			// On a copy: modify rewrites an index past the end of a list
			// to the appended element's position. touched keeps the index
			// as written, so UPDATED_NEW does not return the appended
			// element (DynamoDB's rule, as ScyllaDB's Alternator tests
			// record it).
			at := append(Path(nil), a.Path...)
			err = modify(out, at, func(old attr.Value, ok bool) (attr.Value, bool, error) { return vals[i], true, nil })
		case ActionRemove:
			removes = append(removes, a.Path)
		case ActionAdd:
			err = modify(out, a.Path, func(old attr.Value, ok bool) (attr.Value, bool, error) {
				return addValue(old, ok, a.Value.Value, u.legacy)
			})
		case ActionDelete:
			err = modify(out, a.Path, func(old attr.Value, ok bool) (attr.Value, bool, error) {
				if a.Value == nil { // legacy DELETE without a value
					return attr.Value{}, false, nil
				}
				v, keep, err := deleteValue(old, ok, a.Value.Value)
				if err != nil && u.legacy {
					err = ddberr.Validation(errLegacyType)
				}
				return v, keep, err
			})
		}
		if err != nil {
			return nil, nil, err
		}
	}
	// Remove list elements from the highest index down so that indexes
	// refer to the original list.
	sort.SliceStable(removes, func(i, j int) bool { return pathLess(removes[j], removes[i]) })
	for _, p := range removes {
		if err := modify(out, p, func(attr.Value, bool) (attr.Value, bool, error) { return attr.Value{}, false, nil }); err != nil {
			return nil, nil, err
		}
	}
	return out, touched, nil
}

// applyOrder is the order in which Apply takes the actions (nil: as
// written): as written, except that SETs of list elements are taken in
// element order, so that
// several past the end of a list are appended sorted by element number, as
// DynamoDB documents. (Resolve refuses overlapping paths, so no other
// action's outcome depends on the order of these.)
func (u *Update) applyOrder() []int {
	var elems []int
	for i, a := range u.Actions {
		if a.Kind == ActionSet && a.Path[len(a.Path)-1].IsIndex {
			elems = append(elems, i)
		}
	}
	if len(elems) < 2 {
		return nil // as written
	}
	order := make([]int, len(u.Actions))
	for i := range order {
		order[i] = i
	}
	sorted := append([]int(nil), elems...)
	sort.SliceStable(sorted, func(x, y int) bool { return pathLess(u.Actions[sorted[x]].Path, u.Actions[sorted[y]].Path) })
	for k, pos := range elems {
		order[pos] = sorted[k]
	}
	return order
}

// pathLess orders paths element-wise, indexes numerically.
func pathLess(a, b Path) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x.IsIndex != y.IsIndex {
			return !x.IsIndex
		}
		if x.IsIndex && x.Index != y.Index {
			return x.Index < y.Index
		}
		if !x.IsIndex && x.Name != y.Name {
			return x.Name < y.Name
		}
	}
	return len(a) < len(b)
}

// setValue evaluates a SET right-hand side against the original item.
func setValue(item attr.Item, o *Operand) (attr.Value, error) {
	switch o.Kind {
	case OperandValue:
		return o.Value, nil
	case OperandPath:
		v, ok := getPath(item, o.Path)
		if !ok {
			return attr.Value{}, ddberr.Validation(errMissingAttr)
		}
		return v, nil
	case OperandCall:
		switch o.Func {
		case "if_not_exists":
			if v, ok := getPath(item, o.Args[0].Path); ok {
				return v, nil
			}
			return setValue(item, o.Args[1])
		case "list_append":
			a, err := setValue(item, o.Args[0])
			if err != nil {
				return a, err
			}
			b, err := setValue(item, o.Args[1])
			if err != nil {
				return b, err
			}
			if a.T != attr.L || b.T != attr.L {
				return attr.Value{}, ddberr.Validation(errBadOperand)
			}
			l := make([]attr.Value, 0, len(a.List)+len(b.List))
			l = append(append(l, a.List...), b.List...)
			return attr.Value{T: attr.L, List: l}, nil
		}
	case OperandPlus, OperandMinus:
		a, err := setValue(item, o.Args[0])
		if err != nil {
			return a, err
		}
		b, err := setValue(item, o.Args[1])
		if err != nil {
			return b, err
		}
		if a.T != attr.N || b.T != attr.N {
			return attr.Value{}, ddberr.Validation(errBadOperand)
		}
		var s string
		if o.Kind == OperandPlus {
			s, err = attr.AddNumbers(a.Str, b.Str)
		} else {
			s, err = attr.SubNumbers(a.Str, b.Str)
		}
		if err != nil {
			return attr.Value{}, ddberr.Validation(err.Error())
		}
		return attr.Value{T: attr.N, Str: s}, nil
	}
	return attr.Value{}, ddberr.Validation(errBadOperand)
}

// modifyFn maps the current value at a path (ok=false when absent) to the
// new value; keep=false removes it.
type modifyFn func(old attr.Value, ok bool) (v attr.Value, keep bool, err error)

// modify rewrites the value at path in out, copying every map and list on
// the way down so that values shared with the input item are not changed.
func modify(out attr.Item, path Path, fn modifyFn) error {
	name := path[0].Name
	old, ok := out[name]
	if len(path) == 1 {
		v, keep, err := fn(old, ok)
		if err != nil {
			return err
		}
		if keep {
			out[name] = v
		} else {
			delete(out, name)
		}
		return nil
	}
	if !ok {
		return ddberr.Validation(errBadPath)
	}
	v, err := modifyValue(old, path[1:], fn)
	if err != nil {
		return err
	}
	out[name] = v
	return nil
}

// modifyValue returns a copy of container with fn applied at path.
func modifyValue(container attr.Value, path Path, fn modifyFn) (attr.Value, error) {
	e := path[0]
	switch {
	case e.IsIndex && container.T == attr.L:
		l := append([]attr.Value(nil), container.List...)
		if len(path) == 1 {
			var old attr.Value
			ok := e.Index < len(l)
			if ok {
				old = l[e.Index]
			}
			v, keep, err := fn(old, ok)
			if err != nil {
				return container, err
			}
			switch {
			case keep && ok:
				l[e.Index] = v
			case keep:
				path[0].Index = len(l) // past the end: append
				l = append(l, v)
			case ok:
				l = append(l[:e.Index], l[e.Index+1:]...)
			}
			return attr.Value{T: attr.L, List: l}, nil
		}
		if e.Index >= len(l) {
			return container, ddberr.Validation(errBadPath)
		}
		v, err := modifyValue(l[e.Index], path[1:], fn)
		if err != nil {
			return container, err
		}
		l[e.Index] = v
		return attr.Value{T: attr.L, List: l}, nil
	case !e.IsIndex && container.T == attr.M:
		m := make(map[string]attr.Value, len(container.Map)+1)
		for k, v := range container.Map {
			m[k] = v
		}
		old, ok := m[e.Name]
		if len(path) == 1 {
			v, keep, err := fn(old, ok)
			if err != nil {
				return container, err
			}
			if keep {
				m[e.Name] = v
			} else {
				delete(m, e.Name)
			}
			return attr.Value{T: attr.M, Map: m}, nil
		}
		if !ok {
			return container, ddberr.Validation(errBadPath)
		}
		v, err := modifyValue(old, path[1:], fn)
		if err != nil {
			return container, err
		}
		m[e.Name] = v
		return attr.Value{T: attr.M, Map: m}, nil
	}
	return container, ddberr.Validation(errBadPath)
}

// addValue implements ADD: numeric addition (absent counts as 0) and set
// union. legacy additionally appends lists (AttributeUpdates ADD).
func addValue(old attr.Value, ok bool, v attr.Value, legacy bool) (attr.Value, bool, error) {
	if !ok {
		return v, true, nil
	}
	switch {
	case old.T == attr.N && v.T == attr.N:
		s, err := attr.AddNumbers(old.Str, v.Str)
		if err != nil {
			return old, true, ddberr.Validation(err.Error())
		}
		return attr.Value{T: attr.N, Str: s}, true, nil
	case old.T == v.T && (v.T == attr.SS || v.T == attr.NS):
		out := attr.Value{T: v.T, Strs: append([]string(nil), old.Strs...)}
		for _, s := range v.Strs {
			if !setContains(old, scalarOf(v.T, s, nil)) {
				out.Strs = append(out.Strs, s)
			}
		}
		attr.SortSet(&out)
		return out, true, nil
	case old.T == attr.BS && v.T == attr.BS:
		out := attr.Value{T: attr.BS, Bins: append([][]byte(nil), old.Bins...)}
		for _, b := range v.Bins {
			if !setContains(old, attr.Value{T: attr.B, Bin: b}) {
				out.Bins = append(out.Bins, b)
			}
		}
		attr.SortSet(&out)
		return out, true, nil
	case legacy && old.T == attr.L && v.T == attr.L:
		l := append(append([]attr.Value(nil), old.List...), v.List...)
		return attr.Value{T: attr.L, List: l}, true, nil
	}
	if legacy {
		return old, true, ddberr.Validation(errLegacyType)
	}
	return old, true, ddberr.Validation(errBadOperand)
}

// deleteValue implements DELETE: set difference; an emptied set is removed.
func deleteValue(old attr.Value, ok bool, v attr.Value) (attr.Value, bool, error) {
	if !ok {
		return old, false, nil
	}
	if old.T != v.T || !old.T.IsSet() {
		return old, true, ddberr.Validation(errBadOperand)
	}
	out := attr.Value{T: old.T}
	if old.T == attr.BS {
		for _, b := range old.Bins {
			found := false
			for _, d := range v.Bins {
				if bytes.Equal(b, d) {
					found = true
					break
				}
			}
			if !found {
				out.Bins = append(out.Bins, b)
			}
		}
		return out, len(out.Bins) > 0, nil
	}
	for _, s := range old.Strs {
		if !setContains(v, scalarOf(old.T, s, nil)) {
			out.Strs = append(out.Strs, s)
		}
	}
	return out, len(out.Strs) > 0, nil
}

// scalarOf returns the element value of a set of type t.
func scalarOf(t attr.Type, s string, b []byte) attr.Value {
	switch t {
	case attr.SS:
		return attr.Value{T: attr.S, Str: s}
	case attr.NS:
		return attr.Value{T: attr.N, Str: s}
	}
	return attr.Value{T: attr.B, Bin: b}
}
