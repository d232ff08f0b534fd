package iam

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Checking a resource-based policy as PutResourcePolicy (and CreateTable's
// ResourcePolicy) does before attaching it. DynamoDB's answers, all
// ValidationException, were recorded against DynamoDB on 2026-10-09 (the
// ack-api-quirks lab's findings DDB-TABLE-211, 356 and 457 for
// aws-controllers-k8s): "One or more parameter values were invalid:
// Invalid policy document: " and then
//
//   - "This policy contains invalid Json" (not JSON, "", "[]"), "This text
//     appears not to be a policy" ("null"), "Syntax error at position
//     (1,3)" ("{}": the position just past the document, where the
//     missing Statement was expected);
//   - "Could not parse the policy: Statement is empty!" (Statement []);
//   - "Missing required field Effect" (Statement [{}]), "... Resource";
//   - "The Statement Ids in the policy are not unique";
//   - `The following action names are invalid: "dynamodb:GetRecords",
//     "dynamodb:DescribeStream"` (stream actions in a table's policy; also
//     quoted in aws-controllers-k8s/dynamodb-controller PR 176 for
//     dynamodb:ListStreams in a stream's policy, and aws/aws-cdk PR 36194,
//     whose list follows the policy's order with repeats left out);
//   - `The relative-id "table/T/stream/..." is invalid for ARN "..."` (a
//     stream's ARN as the Resource of a table's policy, and the table's in
//     a stream's; the recorded text stops after `for ARN "ar`, so the
//     quoted ARN being the statement's Resource is Kura's reading);
//
// and, without that prefix, "Resource-based policy grants unbounded access
// in one or more elements. Please revise the policy to ensure
// least-privilege form of access" (an Allow to Principal "*" or {"AWS":
// "*"}: block public access, which DynamoDB applies to every policy).
//
// "Missing required field Principal" and "... Action" follow the pattern of
// the recorded ones (IAM words a trust policy's missing Principal so).
// Other grammar errors keep Kura's own words after the prefix.

// tableActions are the actions a table's resource-based policy may name:
// the rows of "DynamoDB API operations supported by resource-based
// policies" (DynamoDB developer guide, rbac-iam-actions) whose resource is
// the table, the PartiQL actions for its statements, ConditionCheckItem for
// its transactions (accepted in aws/aws-cdk PR 36194's policy) and
// SearchVectors (on the table or its index).
var tableActions = actionSet(
	"BatchGetItem", "BatchWriteItem", "ConditionCheckItem", "DeleteItem", "GetItem", "PutItem", "Query", "Scan",
	"UpdateItem", "TransactGetItems", "TransactWriteItems", "SearchVectors",
	"PartiQLSelect", "PartiQLInsert", "PartiQLUpdate", "PartiQLDelete",
	"DeleteTable", "DescribeTable", "UpdateTable",
	"DescribeTableReplicaAutoScaling", "UpdateTableReplicaAutoScaling",
	"ListTagsOfResource", "TagResource", "UntagResource",
	"CreateBackup", "DescribeContinuousBackups", "RestoreTableToPointInTime", "UpdateContinuousBackups",
	"DescribeContributorInsights", "UpdateContributorInsights", "ExportTableToPointInTime",
	"DescribeKinesisStreamingDestination", "DisableKinesisStreamingDestination",
	"EnableKinesisStreamingDestination", "UpdateKinesisStreamingDestination",
	"GetResourcePolicy", "PutResourcePolicy", "DeleteResourcePolicy",
	"DescribeTimeToLive", "UpdateTimeToLive",
)

// streamActions are those of a stream's policy (the same page; not
// ListStreams, which takes no resource).
var streamActions = actionSet("DescribeStream", "GetRecords", "GetShardIterator")

func actionSet(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "dynamodb:" + n
	}
	return out
}

// PolicyError is what is wrong with a resource-based policy, in DynamoDB's
// words (its whole message).
type PolicyError struct{ Message string }

func (e *PolicyError) Error() string { return e.Message }

const invalidDocument = "One or more parameter values were invalid: Invalid policy document: "

func invalidPolicy(detail string) error { return &PolicyError{invalidDocument + detail} }

// CheckResourcePolicy reports what is wrong with doc as the resource-based
// policy of a table (stream false) or of a stream, as DynamoDB's
// PutResourcePolicy does (nil: nothing). The error is a *PolicyError.
func CheckResourcePolicy(doc []byte, stream bool) error {
	t := bytes.TrimSpace(doc)
	switch {
	case string(t) == "null":
		return invalidPolicy("This text appears not to be a policy")
	case !json.Valid(t) || len(t) == 0 || t[0] != '{':
		return invalidPolicy("This policy contains invalid Json")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(t, &raw); err != nil {
		return invalidPolicy("This policy contains invalid Json")
	}
	if _, ok := raw["Statement"]; !ok {
		line, col := endPosition(doc)
		return invalidPolicy(fmt.Sprintf("Syntax error at position (%d,%d)", line, col))
	}
	if st := bytes.TrimSpace(raw["Statement"]); string(st) == "[]" {
		return invalidPolicy("Could not parse the policy: Statement is empty!")
	}
	if err := requiredFields(raw["Statement"]); err != nil {
		return err
	}
	p, err := parse(t)
	if err != nil {
		return invalidPolicy(err.Error())
	}
	return checkStatements(p, stream)
}

// endPosition is the line and column (from 1) just past doc's last
// non-blank character.
func endPosition(doc []byte) (line, col int) {
	t := bytes.TrimRight(doc, " \t\r\n")
	line = 1 + bytes.Count(t, []byte("\n"))
	col = len(t) - bytes.LastIndexByte(t, '\n')
	return line, col
}

// requiredFields refuses a statement without Effect, a principal, an
// action or a resource (each in either of its forms).
func requiredFields(v json.RawMessage) error {
	var list []map[string]json.RawMessage
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '{' {
		var one map[string]json.RawMessage
		if json.Unmarshal(t, &one) != nil {
			return nil // parse words it
		}
		list = append(list, one)
	} else if json.Unmarshal(v, &list) != nil {
		return nil
	}
	for _, st := range list {
		for _, field := range [][2]string{{"Effect", ""}, {"Principal", "NotPrincipal"}, {"Action", "NotAction"}, {"Resource", "NotResource"}} {
			if _, ok := st[field[0]]; ok {
				continue
			}
			if _, ok := st[field[1]]; field[1] != "" && ok {
				continue
			}
			return invalidPolicy("Missing required field " + field[0])
		}
	}
	return nil
}

// checkStatements checks what the grammar leaves: unique Sids, action
// names the resource's policy may hold, resources of its kind, and no
// Allow to everyone.
func checkStatements(p *Policy, stream bool) error {
	sids := map[string]bool{}
	for _, st := range p.Statements {
		if st.Sid == "" {
			continue
		}
		if sids[st.Sid] {
			return invalidPolicy("The Statement Ids in the policy are not unique")
		}
		sids[st.Sid] = true
	}
	valid := tableActions
	if stream {
		valid = streamActions
	}
	var bad []string
	for _, st := range p.Statements {
		for _, a := range st.Actions {
			if !validAction(a, valid) && !containsFold(bad, a) {
				bad = append(bad, a)
			}
		}
	}
	if len(bad) > 0 {
		return invalidPolicy("The following action names are invalid: " + quoteAll(bad))
	}
	for _, st := range p.Statements {
		for _, r := range st.Resources {
			if rel, ok := wrongKind(r, stream); ok {
				return invalidPolicy(fmt.Sprintf("The relative-id %q is invalid for ARN %q", rel, r))
			}
		}
	}
	for _, st := range p.Statements {
		if st.Allow && !st.NotPrincipal && st.Principals != nil && st.Principals.everyone() && len(st.Conditions) == 0 {
			return &PolicyError{"Resource-based policy grants unbounded access in one or more elements. " +
				"Please revise the policy to ensure least-privilege form of access"}
		}
	}
	return nil
}

// validAction reports whether action (a name or a wildcard pattern) names
// at least one of valid.
func validAction(action string, valid []string) bool {
	if action == "*" {
		return true
	}
	for _, v := range valid {
		if wildcard(action, v, true) {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, ", ")
}

// wrongKind reports a DynamoDB ARN among a policy's resources that names a
// resource of the other kind (a stream in a table's policy, a table or
// index in a stream's), with its relative id (what follows the account).
// A table policy's resources may be any table's or index's (DynamoDB
// accepts another table's ARN).
func wrongKind(resource string, stream bool) (string, bool) {
	parts := strings.SplitN(resource, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", false
	}
	rel := parts[5]
	if !strings.HasPrefix(rel, "table/") || strings.ContainsAny(rel, "*?") {
		return "", false
	}
	isStream := strings.Contains(rel, "/stream/")
	return rel, isStream != stream
}

// everyone reports whether a Principal element names every principal.
func (ps *Principals) everyone() bool {
	if ps.Any {
		return true
	}
	for _, v := range ps.Kinds["AWS"] {
		if v == "*" {
			return true
		}
	}
	return false
}
