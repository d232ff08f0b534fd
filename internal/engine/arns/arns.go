package arns

import (
	"regexp"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// Which answer an ARN gets, in DynamoDB's order: validation, then
// authorization, then the resource lookup.
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
// Local, their account is not compared (tables.NameOf).

// Scope is the region and account a server answers for.
type Scope struct {
	Region, AccountID string
}

// TableNameChars are the characters of a table name.
var TableNameChars = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// ValidTableName reports whether s satisfies DynamoDB's table name rules:
// 3 to 255 characters of [a-zA-Z0-9_.-].
func ValidTableName(s string) bool {
	return len(s) >= 3 && len(s) <= 255 && TableNameChars.MatchString(s)
}

// Resource is what a valid ARN names.
type Resource struct {
	// Table is the table's name.
	Table string
	// Sub is the rest after the table, for a stream ("stream/<label>");
	// "" for the table itself.
	Sub string
	// Account is the ARN's account, the caller's to check (Authorize).
	Account string
}

// Parse checks the ARN of a table or of its stream in this region.
func (s Scope) Parse(arn string) (Resource, *ddberr.Error) {
	// Built only when refused: authorization asks for every request.
	invalid := func() *ddberr.Error {
		return ddberr.Validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn)
	}
	if !strings.HasPrefix(arn, "arn:") {
		return Resource{}, ddberr.InvalidParam("ARNs must start with 'arn:': %s", arn)
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return Resource{}, invalid()
	}
	if parts[2] != "dynamodb" {
		return Resource{}, ddberr.InvalidParam("Provided Arn is not a DynamoDB resource arn: %s", arn)
	}
	res, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return Resource{}, invalid()
	}
	name, sub, hasSub := strings.Cut(res, "/")
	if strings.HasPrefix(sub, "backup/") {
		// Backups are not taggable; DynamoDB's words (a probe of
		// DynamoDB, 2026-10-09).
		return Resource{}, ddberr.InvalidParam("Provided Arn is not a DynamoDB resource arn: %s", arn)
	}
	if hasSub && !strings.HasPrefix(sub, "stream/") {
		return Resource{}, ddberr.InvalidParam("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", arn)
	}
	if !ValidTableName(name) || parts[3] != s.Region {
		return Resource{}, invalid()
	}
	return Resource{Table: name, Sub: sub, Account: parts[4]}, nil
}

// ParseTable is Parse of an ARN that must name a table: a stream's is not
// found (streams carry no tags).
func (s Scope) ParseTable(arn string) (string, *ddberr.Error) {
	r, err := s.Parse(arn)
	if err != nil {
		return "", err
	}
	if r.Sub != "" {
		return "", NotFound(arn)
	}
	return r.Table, nil
}

// NotFound is the ResourceNotFoundException of an ARN that names nothing
// the operation finds.
func NotFound(arn string) *ddberr.Error {
	return ddberr.ResourceNotFound("Requested resource not found: ResourceArn: " + arn + " not found")
}

// AccessDenied is the AccessDeniedException of action on resource; the
// caller is named as the account's root user, who signs every request
// without --iam-file (with it, api names the signing principal instead:
// asCaller). crossAccount adds IAM's reason for another account's
// resource.
func (s Scope) AccessDenied(action, resource string, crossAccount bool) *ddberr.Error {
	msg := "User: arn:aws:iam::" + s.AccountID + ":root is not authorized to perform: dynamodb:" + action + " on resource: " + resource
	if crossAccount {
		msg += " because no resource-based policy allows the dynamodb:" + action + " action"
	}
	return ddberr.AccessDenied(msg)
}

// Authorize refuses action on an ARN that names another account's
// resource (the ARN's syntax is checked before, by the operation).
func (s Scope) Authorize(action, arn string) *ddberr.Error {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) == 6 && parts[0] == "arn" && parts[4] != s.AccountID {
		return s.AccessDenied(action, arn, true)
	}
	return nil
}
