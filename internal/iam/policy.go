package iam

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Policy is one parsed policy document (identity-based or resource-based).
type Policy struct {
	// Name says where the policy came from, for decisions and logs: an
	// inline policy's name, a managed policy's ARN, "resource policy".
	Name       string
	Version    string
	Statements []Statement

	once     sync.Once
	isStatic bool
}

// Statement is one statement of a policy.
type Statement struct {
	Sid   string
	Allow bool // Effect: Allow (true) or Deny
	// Actions are the Action (or, with NotAction set, the NotAction)
	// patterns; Resources likewise with NotResource.
	Actions     []string
	NotAction   bool
	Resources   []string
	NotResource bool
	// Principals is the Principal (or NotPrincipal) element of a
	// resource-based policy: nil when absent.
	Principals   *Principals
	NotPrincipal bool
	Conditions   []Condition

	// actions and resources are Actions and Resources compiled for
	// matching (Parse).
	actions, resources []pattern
}

// Principals is a Principal element: "*" (Any), or per kind ("AWS",
// "Service", "Federated", "CanonicalUser") a list of values.
type Principals struct {
	Any   bool
	Kinds map[string][]string
}

// Parse reads a policy document. A document may come URL-encoded (as IAM's
// get-account-authorization-details returns it).
func Parse(name string, doc []byte) (*Policy, error) {
	p, err := parse(doc)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %v", name, err)
	}
	p.Name = name
	return p, nil
}

func parse(doc []byte) (*Policy, error) {
	doc = bytes.TrimSpace(doc)
	if len(doc) > 0 && doc[0] == '%' {
		s, err := url.QueryUnescape(string(doc))
		if err != nil {
			return nil, fmt.Errorf("not URL-encoded JSON: %v", err)
		}
		doc = []byte(s)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	p := &Policy{}
	for k, v := range raw {
		switch k {
		case "Version":
			if err := json.Unmarshal(v, &p.Version); err != nil {
				return nil, errors.New("Version is not a string")
			}
			if p.Version != "2012-10-17" && p.Version != "2008-10-17" {
				return nil, fmt.Errorf("unknown Version %q", p.Version)
			}
		case "Id":
		case "Statement":
			sts, err := parseStatements(v)
			if err != nil {
				return nil, err
			}
			p.Statements = sts
		default:
			return nil, fmt.Errorf("unknown element %q", k)
		}
	}
	if _, ok := raw["Statement"]; !ok {
		return nil, errors.New("no Statement")
	}
	return p, nil
}

// parseStatements reads Statement: one object or a list of them.
func parseStatements(v json.RawMessage) ([]Statement, error) {
	var list []json.RawMessage
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '{' {
		list = []json.RawMessage{v}
	} else if err := json.Unmarshal(v, &list); err != nil {
		return nil, errors.New("Statement is neither an object nor a list")
	}
	out := make([]Statement, 0, len(list))
	for i, e := range list {
		st, err := parseStatement(e)
		if err != nil {
			return nil, fmt.Errorf("statement %d: %v", i+1, err)
		}
		out = append(out, st)
	}
	return out, nil
}

func parseStatement(v json.RawMessage) (Statement, error) {
	var raw map[string]json.RawMessage
	var st Statement
	if err := json.Unmarshal(v, &raw); err != nil {
		return st, errors.New("not a JSON object")
	}
	has := func(k string) bool { _, ok := raw[k]; return ok }
	if has("Action") == has("NotAction") {
		return st, errors.New("exactly one of Action and NotAction is required")
	}
	if has("Resource") && has("NotResource") {
		return st, errors.New("Resource and NotResource are exclusive")
	}
	if has("Principal") && has("NotPrincipal") {
		return st, errors.New("Principal and NotPrincipal are exclusive")
	}
	for k, e := range raw {
		var err error
		switch k {
		case "Sid":
			err = json.Unmarshal(e, &st.Sid)
		case "Effect":
			var eff string
			if err = json.Unmarshal(e, &eff); err == nil {
				switch eff {
				case "Allow":
					st.Allow = true
				case "Deny":
				default:
					err = fmt.Errorf("Effect %q is neither Allow nor Deny", eff)
				}
			}
		case "Action", "NotAction":
			st.NotAction = k == "NotAction"
			st.Actions, err = stringOrList(e)
		case "Resource", "NotResource":
			st.NotResource = k == "NotResource"
			st.Resources, err = stringOrList(e)
		case "Principal", "NotPrincipal":
			st.NotPrincipal = k == "NotPrincipal"
			st.Principals, err = parsePrincipals(e)
		case "Condition":
			st.Conditions, err = parseConditions(e)
		default:
			err = errors.New("unknown element")
		}
		if err != nil {
			return st, fmt.Errorf("%s: %v", k, err)
		}
	}
	if !has("Effect") {
		return st, errors.New("Effect is required")
	}
	st.actions, st.resources = compileAll(st.Actions), compileAll(st.Resources)
	return st, nil
}

// stringOrList reads a string or a non-empty list of strings.
func stringOrList(v json.RawMessage) ([]string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{s}, nil
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, errors.New("not a string or a list of strings")
	}
	if len(list) == 0 {
		return nil, errors.New("empty list")
	}
	return list, nil
}

func parsePrincipals(v json.RawMessage) (*Principals, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s != "*" {
			return nil, errors.New(`a string Principal must be "*"`)
		}
		return &Principals{Any: true}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, errors.New(`neither "*" nor an object`)
	}
	p := &Principals{Kinds: map[string][]string{}}
	for kind, e := range m {
		vals, err := stringOrList(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", kind, err)
		}
		p.Kinds[kind] = vals
	}
	return p, nil
}

// Condition is one operator and key of a Condition element, with its
// values.
type Condition struct {
	// Operator is the operator as written ("ForAllValues:StringLike",
	// "NumericLessThanIfExists"); op is its base ("StringLike").
	Operator string
	op       string
	ifExists bool
	set      setQualifier
	Key      string
	key      string // Key in lower case, as contexts are asked
	Values   []string
}

type setQualifier int

const (
	setNone setQualifier = iota
	setForAll
	setForAny
)

func parseConditions(v json.RawMessage) ([]Condition, error) {
	var m map[string]map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, errors.New("not an object of operators to objects of keys")
	}
	var out []Condition
	for operator, keys := range m {
		base, ifExists, set := operator, false, setNone
		if q, rest, ok := strings.Cut(base, ":"); ok {
			switch q {
			case "ForAllValues":
				set = setForAll
			case "ForAnyValue":
				set = setForAny
			default:
				return nil, fmt.Errorf("unknown qualifier %q", q)
			}
			base = rest
		}
		if b, ok := strings.CutSuffix(base, "IfExists"); ok && base != "Null" {
			base, ifExists = b, true
		}
		if !knownOperator(base) {
			return nil, fmt.Errorf("unknown operator %q", operator)
		}
		for key, e := range keys {
			vals, err := conditionValues(e)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", operator, key, err)
			}
			out = append(out, Condition{Operator: operator, op: base, ifExists: ifExists, set: set, Key: key, key: strings.ToLower(key), Values: vals})
		}
	}
	// Map order is random; a fixed order keeps evaluation (and its
	// cost) the same from one load to the next.
	sort.Slice(out, func(i, j int) bool {
		if out[i].Operator != out[j].Operator {
			return out[i].Operator < out[j].Operator
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// conditionValues reads a condition's value: a string, number or boolean,
// or a list of them; all are compared as strings.
func conditionValues(v json.RawMessage) ([]string, error) {
	var list []json.RawMessage
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(v, &list); err != nil {
			return nil, err
		}
	} else {
		list = []json.RawMessage{v}
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		var s string
		if json.Unmarshal(e, &s) == nil {
			out = append(out, s)
			continue
		}
		var a any
		if err := json.Unmarshal(e, &a); err != nil {
			return nil, err
		}
		switch a.(type) {
		case float64, bool:
			out = append(out, strings.TrimSpace(string(e)))
		default:
			return nil, fmt.Errorf("value %s is not a string, number or boolean", e)
		}
	}
	return out, nil
}

// static reports whether no statement of p depends on a request's
// condition keys: none has a Condition or a policy variable.
func (p *Policy) static() bool {
	p.once.Do(func() {
		p.isStatic = true
		for _, st := range p.Statements {
			if len(st.Conditions) > 0 || hasVariable(st.Resources) {
				p.isStatic = false
			}
		}
	})
	return p.isStatic
}

func hasVariable(ss []string) bool {
	for _, s := range ss {
		if strings.Contains(s, "${") {
			return true
		}
	}
	return false
}
