package engine

import (
	"context"
	"strconv"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/iam"
	"github.com/kura-db/kura/internal/wire"
)

// Resource-based policies (PutResourcePolicy, GetResourcePolicy,
// DeleteResourcePolicy, CreateTable's ResourcePolicy): a JSON policy
// document attached to a table or to its stream, with a revision ID that
// changes with the document and lets a caller update or delete it
// conditionally. Kura keeps them with the table's record and answers as
// DynamoDB does (the texts are those of moto's tests that are run against
// DynamoDB, 2024). The engine only stores them: with --iam-file, api's
// authorization (internal/api/authorize.go, internal/iam) reads them
// through GetResourcePolicy and evaluates them; without it they grant or
// deny nothing (docs/compatibility.md).

// policyRecord is one attached policy.
type policyRecord struct {
	Document string `json:"doc"`
	// Revision is DynamoDB's RevisionId: the attach time in Unix
	// milliseconds, so later revisions compare greater as strings of
	// equal length do.
	Revision string `json:"rev"`
}

const (
	maxPolicyBytes  = 20 * 1024 // DynamoDB counts whitespace too
	noPolicy        = "NO_POLICY"
	msgPolicyPrefix = "Resource-based policy not found for the provided ResourceArn: "
)

// policyTarget resolves a ResourceArn: the table, and the key of its policy
// in the table's record ("" for the table, the stream's ARN for a stream).
func (e *Engine) policyTarget(action, arn string) (*Table, string, error) {
	name, sub, err := e.parseResourceARN(arn)
	if err != nil {
		return nil, "", err
	}
	if err := e.authorizeARN(action, arn); err != nil {
		return nil, "", err
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

// checkPolicy checks a policy document for a table (stream false) or a
// stream: at most 20 KB, then what internal/iam's CheckResourcePolicy
// finds, in DynamoDB's words (the size's too: recorded against DynamoDB
// in 2026, see internal/iam/resource_check.go).
func checkPolicy(doc string, stream bool) error {
	if len(doc) > maxPolicyBytes {
		return ddberr.Validation("One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded")
	}
	if err := iam.CheckResourcePolicy([]byte(doc), stream); err != nil {
		return ddberr.Validation(err.Error())
	}
	return nil
}

// checkRevision applies an ExpectedRevisionId (nil: none) to the policy
// there is (nil: none) on table name's resource arn; put says whether
// NO_POLICY means "none expected" (PutResourcePolicy) rather than being a
// revision ID like any other.
func checkRevision(expected *string, cur *policyRecord, name, arn string, put bool) error {
	switch {
	case expected == nil:
		return nil
	case put && *expected == noPolicy && cur != nil:
		return ddberr.PolicyNotFound(msgPolicyPrefix + "Requested policy update expecting none to be present for table " +
			name + ", but a policy exists with revision id " + cur.Revision + ".")
	case put && *expected == noPolicy:
		return nil
	case cur == nil:
		return ddberr.PolicyNotFound(msgPolicyPrefix + arn)
	case *expected != cur.Revision:
		return ddberr.PolicyNotFound(msgPolicyPrefix + "Requested update for policy with revision id " + *expected +
			", but the policy associated to target table " + name + " has revision id " + cur.Revision + ".")
	}
	return nil
}

// newRevision is the RevisionId of a policy attached now, after prev (""
// for none): the time in Unix milliseconds, later than prev's.
func (e *Engine) newRevision(prev string) string {
	ms := e.clock.Now().UnixMilli()
	if p, err := strconv.ParseInt(prev, 10, 64); err == nil && ms <= p {
		ms = p + 1
	}
	return strconv.FormatInt(ms, 10)
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
	if err := checkPolicy(doc, key != ""); err != nil {
		return nil, err
	}
	cur := t.rec.Policies[key]
	if err := checkRevision(in.ExpectedRevisionId, cur, t.Name, arn, true); err != nil {
		return nil, err
	}
	if cur != nil && cur.Document == doc {
		return &wire.PutResourcePolicyOutput{RevisionId: cpPtr(cur.Revision)}, nil
	}
	prev := ""
	if cur != nil {
		prev = cur.Revision
	}
	rec := t.rec.clone()
	if rec.Policies == nil {
		rec.Policies = map[string]*policyRecord{}
	}
	p := &policyRecord{Document: doc, Revision: e.newRevision(prev)}
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
		return nil, ddberr.PolicyNotFound(msgPolicyPrefix + arn)
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
	if err := checkRevision(in.ExpectedRevisionId, cur, t.Name, arn, false); err != nil {
		return nil, err
	}
	if cur == nil {
		return &wire.DeleteResourcePolicyOutput{}, nil
	}
	rec := t.rec.clone()
	delete(rec.Policies, key)
	if _, err := e.saveRecord(rec); err != nil {
		return nil, err
	}
	return &wire.DeleteResourcePolicyOutput{RevisionId: cpPtr(cur.Revision)}, nil
}
