// Package iam is Kura's authorization (--iam-file): the IAM policy
// language (Parse: Version, Statement, Sid, Effect, Action/NotAction,
// Resource/NotResource, Principal/NotPrincipal, Condition with IAM's
// operators, IfExists and the ForAllValues/ForAnyValue qualifiers, policy
// variables) and AWS's evaluation logic for requests within one account
// (Evaluate: an explicit Deny wins, then an Allow in an identity-based or
// the resource-based policy, else an implicit deny).
//
// ParseAccount reads the JSON of `aws iam get-account-authorization-details`
// into users and roles with their resolved policies (inline, attached
// managed policies' default versions, groups'). An Authorizer holds the
// loaded file and the principal of each access key; its state is replaced
// whole on Reload (SIGHUP, or Watch seeing the file change) and a file that
// does not load leaves the previous state in force. In memory: that state,
// the decisions cached under it (only those no condition or policy
// variable can change; dropped with the state), and the parsed
// resource-based policies by document text. Everything is rebuilt from the
// file at start-up.
//
// The package knows nothing of DynamoDB's operations: api maps each request
// to its actions, resources and condition keys (internal/api/authorize*.go)
// and words the refusal (ddberr.NotAuthorized).
package iam
