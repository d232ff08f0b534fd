package policies

import (
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/arns"
	"github.com/kura-db/kura/internal/wire"
)

// Core is what the resource-policy APIs need of the core: its clock, its
// tables and their records. (The region and account the server answers
// for come with each request, as an arns.Scope.)
type Core interface {
	// DDL is the control-plane lock: table records change holding it.
	DDL() sync.Locker
	Now() time.Time
	// PolicyTable is the named table now, ok false when there is none.
	PolicyTable(name string) (t Table, ok bool)
	// SetPolicies stores the named table's Set in its record (the caller
	// holds DDL).
	SetPolicies(name string, s Set) error
}

// Table is a table as the resource-policy APIs see it.
type Table struct {
	Name   string
	Status string // CREATING, ACTIVE, UPDATING or DELETING
	// StreamARN is its latest stream's ARN ("" for none).
	StreamARN string
	Policies  Set
}

// target resolves a ResourceArn: the table, and the key of its policy in
// the table's Set ("" for the table, the stream's ARN for a stream).
func target(c Core, scope arns.Scope, action, arn string) (Table, string, error) {
	r, err := scope.Parse(arn)
	if err != nil {
		return Table{}, "", err
	}
	if r.Account != scope.AccountID { // Authorize's check, the ARN split once
		return Table{}, "", scope.AccessDenied(action, arn, true)
	}
	t, ok := c.PolicyTable(r.Table)
	if !ok || t.Status == "DELETING" {
		return Table{}, "", ddberr.TableNamedNotFound(r.Table)
	}
	if r.Sub == "" {
		return t, "", nil
	}
	if arn != t.StreamARN {
		return Table{}, "", arns.NotFound(arn)
	}
	return t, arn, nil
}

// Lookup is the policy document GetResourcePolicy would answer for arn,
// if it would answer one: api's authorizer asks it for every request, and
// for the many resources with no policy it builds no error.
func Lookup(c Core, scope arns.Scope, arn string) (string, bool) {
	t, key, err := target(c, scope, "GetResourcePolicy", arn)
	if err != nil {
		return "", false
	}
	return t.Policies.Document(key)
}

// PutResourcePolicy attaches a policy to a table or stream, or replaces
// it; attaching the same document again keeps its revision.
func PutResourcePolicy(c Core, scope arns.Scope, in *wire.PutResourcePolicyInput) (*wire.PutResourcePolicyOutput, error) {
	arn, doc := wire.Deref(in.ResourceArn), wire.Deref(in.Policy)
	ddl := c.DDL()
	ddl.Lock()
	defer ddl.Unlock()
	t, key, err := target(c, scope, "PutResourcePolicy", arn)
	if err != nil {
		return nil, err
	}
	if err := Check(doc, key != ""); err != nil {
		return nil, err
	}
	cur := t.Policies[key]
	if err := CheckRevision(in.ExpectedRevisionId, cur, t.Name, arn, true); err != nil {
		return nil, err
	}
	if cur != nil && cur.Document == doc {
		return &wire.PutResourcePolicyOutput{RevisionId: wire.Ptr(cur.Revision)}, nil
	}
	prev := ""
	if cur != nil {
		prev = cur.Revision
	}
	p := &Record{Document: doc, Revision: NextRevision(c.Now(), prev)}
	if err := c.SetPolicies(t.Name, t.Policies.with(key, p)); err != nil {
		return nil, err
	}
	return &wire.PutResourcePolicyOutput{RevisionId: wire.Ptr(p.Revision)}, nil
}

// GetResourcePolicy returns a table's or stream's policy.
func GetResourcePolicy(c Core, scope arns.Scope, in *wire.GetResourcePolicyInput) (*wire.GetResourcePolicyOutput, error) {
	arn := wire.Deref(in.ResourceArn)
	t, key, err := target(c, scope, "GetResourcePolicy", arn)
	if err != nil {
		return nil, err
	}
	p := t.Policies[key]
	if p == nil {
		return nil, NotFound(arn)
	}
	return &wire.GetResourcePolicyOutput{Policy: wire.Ptr(p.Document), RevisionId: wire.Ptr(p.Revision)}, nil
}

// DeleteResourcePolicy removes a table's or stream's policy; without an
// ExpectedRevisionId, deleting none succeeds with no RevisionId.
func DeleteResourcePolicy(c Core, scope arns.Scope, in *wire.DeleteResourcePolicyInput) (*wire.DeleteResourcePolicyOutput, error) {
	arn := wire.Deref(in.ResourceArn)
	ddl := c.DDL()
	ddl.Lock()
	defer ddl.Unlock()
	t, key, err := target(c, scope, "DeleteResourcePolicy", arn)
	if err != nil {
		return nil, err
	}
	cur := t.Policies[key]
	if err := CheckRevision(in.ExpectedRevisionId, cur, t.Name, arn, false); err != nil {
		return nil, err
	}
	if cur == nil {
		return &wire.DeleteResourcePolicyOutput{}, nil
	}
	if err := c.SetPolicies(t.Name, t.Policies.with(key, nil)); err != nil {
		return nil, err
	}
	return &wire.DeleteResourcePolicyOutput{RevisionId: wire.Ptr(cur.Revision)}, nil
}

// with is a copy of s with r under key (nil: none); s is not changed.
func (s Set) with(key string, r *Record) Set {
	out := make(Set, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	if r == nil {
		delete(out, key)
	} else {
		out[key] = r
	}
	return out
}
