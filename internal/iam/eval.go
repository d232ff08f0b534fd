package iam

import "strings"

// Principal is who signed a request.
type Principal struct {
	// ARN is the principal's ARN as AWS reports it: a user's
	// (arn:aws:iam::ACCOUNT:user/NAME), an assumed-role session's
	// (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION) or the root user's
	// (arn:aws:iam::ACCOUNT:root).
	ARN string
	// RoleARN is the role an assumed-role session acts as ("" else).
	RoleARN string
	Account string
	// UserName is set for IAM users (aws:username).
	UserName string
	// UserID is aws:userid: a user's ID, ROLEID:SESSION for a session,
	// the account ID for root.
	UserID string
	Tags   map[string]string
	Root   bool
	// Policies are its identity-based policies (inline, attached, its
	// groups').
	Policies []*Policy
}

// Type is aws:PrincipalType.
func (p *Principal) Type() string {
	switch {
	case p.Root:
		return "Account"
	case p.RoleARN != "":
		return "AssumedRole"
	}
	return "User"
}

// Request is one authorization question: may the principal perform
// Action on Resource, with these condition keys?
type Request struct {
	Principal *Principal
	Action    string // "dynamodb:GetItem"
	Resource  string // an ARN, or "*"
	Context   Context
}

// Decision is the answer to a Request.
type Decision struct {
	Allowed bool
	// ExplicitDeny is set when a Deny statement decided; InResource says
	// the deciding statement (Allow or Deny) is in the resource-based
	// policy.
	ExplicitDeny bool
	InResource   bool
	// Policy and Sid name the deciding statement ("" when the request is
	// implicitly denied, or allowed as root).
	Policy, Sid string
}

// Evaluate decides r as AWS does within one account: an explicit Deny in
// any applicable policy (identity-based or resource-based) wins; otherwise
// an Allow in an identity-based policy or in the resource-based policy
// (resource may be nil) allows; otherwise the request is implicitly
// denied. The root user is allowed everything.
func Evaluate(r *Request, resource *Policy) Decision {
	if r.Principal.Root {
		return Decision{Allowed: true}
	}
	var allow *Decision
	for _, p := range r.Principal.Policies {
		if d, deny := scan(p, r, false); deny {
			return d
		} else if allow == nil && d.Allowed {
			allow = &d
		}
	}
	if resource != nil {
		if d, deny := scan(resource, r, true); deny {
			return d
		} else if allow == nil && d.Allowed {
			allow = &d
		}
	}
	if allow != nil {
		return *allow
	}
	return Decision{}
}

// get answers condition key key for r: the principal's global keys, then
// r's Context (nil: none).
func (r *Request) get(key string) ([]string, bool) {
	if v, ok := principalKey(r.Principal, key); ok {
		return v, true
	}
	if r.Context == nil {
		return nil, false
	}
	return r.Context.Get(key)
}

// scan looks through one policy for a matching Deny (deny true) or else
// the first matching Allow (d.Allowed).
func scan(p *Policy, r *Request, isResource bool) (d Decision, deny bool) {
	for i := range p.Statements {
		st := &p.Statements[i]
		if !st.applies(r, isResource) {
			continue
		}
		if !st.Allow {
			return Decision{ExplicitDeny: true, InResource: isResource, Policy: p.Name, Sid: st.Sid}, true
		}
		if !d.Allowed {
			d = Decision{Allowed: true, InResource: isResource, Policy: p.Name, Sid: st.Sid}
		}
	}
	return d, false
}

// applies reports whether the statement covers r: its action, resource,
// principal (resource-based policies) and conditions all match.
func (st *Statement) applies(r *Request, isResource bool) bool {
	if matchList(st.actions, r.Action, true, nil) == st.NotAction {
		return false
	}
	if st.Resources != nil || !isResource {
		if matchList(st.resources, r.Resource, false, r) == st.NotResource {
			return false
		}
	}
	if isResource && (st.Principals == nil || st.Principals.matches(r.Principal) == st.NotPrincipal) {
		return false
	}
	for i := range st.Conditions {
		if !st.Conditions[i].holds(r) {
			return false
		}
	}
	return true
}

// matchList reports whether s matches one of the patterns (policy
// variables substituted from r's keys; r is nil for patterns that cannot
// hold any, actions).
func matchList(patterns []pattern, s string, fold bool, r *Request) bool {
	for i := range patterns {
		p := &patterns[i]
		if p.vars && r != nil {
			sub, ok := substitute(p.s, r)
			if !ok {
				continue
			}
			if sub == "*" || wildcard(sub, s, fold) {
				return true
			}
			continue
		}
		if p.match(s, fold) {
			return true
		}
	}
	return false
}

// matches reports whether a Principal element names p: "*", or an "AWS"
// entry that is p's ARN, its role's ARN (for a session), or a wildcard
// matching them. An account (ID or :root ARN) names only the root user
// within the account: for IAM users and roles of the same account it
// delegates to their identity-based policies, as in AWS.
func (ps *Principals) matches(p *Principal) bool {
	if ps.Any {
		return true
	}
	for _, v := range ps.Kinds["AWS"] {
		switch {
		case v == "*":
			return true
		case v == p.Account || v == "arn:aws:iam::"+p.Account+":root":
			if p.Root {
				return true
			}
		case wildcard(v, p.ARN, false), p.RoleARN != "" && wildcard(v, p.RoleARN, false):
			return true
		}
	}
	return false
}

// Global condition keys about the principal, answered for every request
// (the caller's Context answers the rest).
func principalKey(p *Principal, key string) ([]string, bool) {
	k := strings.ToLower(key)
	switch k {
	case "aws:principalarn":
		if p.RoleARN != "" {
			return []string{p.RoleARN}, true
		}
		return []string{p.ARN}, true
	case "aws:principalaccount":
		return []string{p.Account}, true
	case "aws:principaltype":
		return []string{p.Type()}, true
	case "aws:userid":
		return []string{p.UserID}, true
	case "aws:username":
		if p.UserName == "" {
			return nil, false
		}
		return []string{p.UserName}, true
	}
	if tag, ok := strings.CutPrefix(k, "aws:principaltag/"); ok {
		for tk, tv := range p.Tags {
			if strings.EqualFold(tk, tag) {
				return []string{tv}, true
			}
		}
	}
	return nil, false
}

// WithPrincipal is a Context that answers the principal's global keys and
// then asks c (nil: nothing more).
func WithPrincipal(p *Principal, c Context) Context { return &Request{Principal: p, Context: c} }

// Get implements Context: r's condition keys, as policies see them.
func (r *Request) Get(key string) ([]string, bool) { return r.get(key) }
