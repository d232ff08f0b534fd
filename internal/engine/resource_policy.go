package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/wire"
)

// Resource-based policies (PutResourcePolicy, GetResourcePolicy,
// DeleteResourcePolicy, CreateTable's ResourcePolicy): a JSON policy
// document attached to a table or to its stream, with a revision ID that
// changes with the document and lets a caller update or delete it
// conditionally. Kura keeps them with the table's record and answers as
// DynamoDB does; the rules and texts are package policies'. The engine
// resolves the ARN and keeps them: with --iam-file, api's
// authorization (internal/api/authorize.go, internal/iam) reads them
// through ResourcePolicyDocument and evaluates them; without it they grant or
// deny nothing (docs/compatibility.md).

// policyTarget resolves a ResourceArn: the table, and the key of its policy
// in the table's record ("" for the table, the stream's ARN for a stream).
func (e *Engine) policyTarget(action, arn string) (*Table, string, error) {
	name, sub, account, err := e.parseResourceARNAccount(arn)
	if err != nil {
		return nil, "", err
	}
	if account != e.cfg.AccountID { // authorizeARN's check, the ARN split once
		return nil, "", e.accessDenied(action, arn, true)
	}
	t, ok := e.lookupTable(name)
	if !ok || t.Status == StatusDeleting {
		return nil, "", tableNotFound(name)
	}
	if sub == "" {
		return t, "", nil
	}
	if arn != cpDeref(t.Desc.LatestStreamArn) {
		return nil, "", resourceARNNotFound(arn)
	}
	return t, arn, nil
}

// ResourcePolicyDocument is the policy document GetResourcePolicy would
// answer for arn, if it would answer one: api's authorizer asks it for
// every request, and for the many resources with no policy it builds no
// error.
func (e *Engine) ResourcePolicyDocument(ctx context.Context, arn string) (string, bool) {
	t, key, err := e.policyTarget("GetResourcePolicy", arn)
	if err != nil {
		return "", false
	}
	return t.rec.Policies.Document(key)
}

// PutResourcePolicy attaches a policy to a table or stream, or replaces
// it; attaching the same document again keeps its revision.
func (e *Engine) PutResourcePolicy(ctx context.Context, in *wire.PutResourcePolicyInput) (*wire.PutResourcePolicyOutput, error) {
	arn, doc := cpDeref(in.ResourceArn), cpDeref(in.Policy)
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, key, err := e.policyTarget("PutResourcePolicy", arn)
	if err != nil {
		return nil, err
	}
	if err := policies.Check(doc, key != ""); err != nil {
		return nil, err
	}
	cur := t.rec.Policies[key]
	if err := policies.CheckRevision(in.ExpectedRevisionId, cur, t.Name, arn, true); err != nil {
		return nil, err
	}
	if cur != nil && cur.Document == doc {
		return &wire.PutResourcePolicyOutput{RevisionId: cpPtr(cur.Revision)}, nil
	}
	prev := ""
	if cur != nil {
		prev = cur.Revision
	}
	rec := t.rec.Clone()
	if rec.Policies == nil {
		rec.Policies = policies.Set{}
	}
	p := &policies.Record{Document: doc, Revision: policies.NextRevision(e.clock.Now(), prev)}
	rec.Policies[key] = p
	if _, err := e.saveRecord(rec); err != nil {
		return nil, err
	}
	return &wire.PutResourcePolicyOutput{RevisionId: cpPtr(p.Revision)}, nil
}

// GetResourcePolicy returns a table's or stream's policy.
func (e *Engine) GetResourcePolicy(ctx context.Context, in *wire.GetResourcePolicyInput) (*wire.GetResourcePolicyOutput, error) {
	arn := cpDeref(in.ResourceArn)
	t, key, err := e.policyTarget("GetResourcePolicy", arn)
	if err != nil {
		return nil, err
	}
	p := t.rec.Policies[key]
	if p == nil {
		return nil, policies.NotFound(arn)
	}
	return &wire.GetResourcePolicyOutput{Policy: cpPtr(p.Document), RevisionId: cpPtr(p.Revision)}, nil
}

// DeleteResourcePolicy removes a table's or stream's policy; without an
// ExpectedRevisionId, deleting none succeeds with no RevisionId.
func (e *Engine) DeleteResourcePolicy(ctx context.Context, in *wire.DeleteResourcePolicyInput) (*wire.DeleteResourcePolicyOutput, error) {
	arn := cpDeref(in.ResourceArn)
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, key, err := e.policyTarget("DeleteResourcePolicy", arn)
	if err != nil {
		return nil, err
	}
	cur := t.rec.Policies[key]
	if err := policies.CheckRevision(in.ExpectedRevisionId, cur, t.Name, arn, false); err != nil {
		return nil, err
	}
	if cur == nil {
		return &wire.DeleteResourcePolicyOutput{}, nil
	}
	rec := t.rec.Clone()
	delete(rec.Policies, key)
	if _, err := e.saveRecord(rec); err != nil {
		return nil, err
	}
	return &wire.DeleteResourcePolicyOutput{RevisionId: cpPtr(cur.Revision)}, nil
}
