package engine

import (
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// Which answer an ARN gets (issue 33, item 18), in DynamoDB's order:
// validation, then authorization, then the resource lookup.
//
//   - An ARN of another account: AccessDeniedException. IAM authorizes a
//     request before DynamoDB looks the resource up, and another account's
//     resource can only be reached through its resource-based policy;
//     Kura serves one account, so none grants it. The refusal is IAM's
//     cross-account form ("... because no resource-based policy allows the
//     <action> action", IAM's documentation of its access-denied
//     messages; a DescribeTable of another account's table ARN answered
//     AccessDeniedException in redpanda-data/connect #3159, 2025).
//   - ListTagsOfResource of an ARN of this account that names no table:
//     AccessDeniedException too, in the form without the reason (two
//     emulators checked against DynamoDB in 2026, floci and dynoxide; the
//     older answer, ResourceNotFoundException "ResourcArn ... not found",
//     is in dynalite's DynamoDB-verified tests and client reports of 2019
//     and 2022: the newest evidence decides).
//   - TagResource and UntagResource of such an ARN, and a table of this
//     account that exists but is not ACTIVE yet: ResourceNotFoundException
//     (ScyllaDB's Alternator tests run against DynamoDB,
//     test_tag_resource_subtly_incorrect_arn; floci agrees).
//
// TableName members that carry an ARN are not checked here: as in DynamoDB
// Local, their account is not compared (tableNameOf).

// accessDenied is the AccessDeniedException of action on resource; the
// caller is named as the account's root user, who signs every request
// without --iam-file (with it, api names the signing principal instead:
// asCaller). crossAccount adds IAM's reason for another account's
// resource.
func (e *Engine) accessDenied(action, resource string, crossAccount bool) *ddberr.Error {
	msg := "User: arn:aws:iam::" + e.cfg.AccountID + ":root is not authorized to perform: dynamodb:" + action + " on resource: " + resource
	if crossAccount {
		msg += " because no resource-based policy allows the dynamodb:" + action + " action"
	}
	return ddberr.AccessDenied(msg)
}

// authorizeARN refuses action on an ARN that names another account's
// resource (the ARN's syntax is checked before, by the operation).
func (e *Engine) authorizeARN(action, arn string) *ddberr.Error {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) == 6 && parts[0] == "arn" && parts[4] != e.cfg.AccountID {
		return e.accessDenied(action, arn, true)
	}
	return nil
}
