package policies

import (
	"strconv"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/iam"
)

// The texts are those of moto's tests that are run against DynamoDB
// (2024); the size's was recorded against DynamoDB in 2026 (see
// internal/iam/resource_check.go).

// Record is one attached policy, as the table record stores it.
type Record struct {
	Document string `json:"doc"`
	// Revision is DynamoDB's RevisionId: the attach time in Unix
	// milliseconds, so later revisions compare greater as strings of
	// equal length do.
	Revision string `json:"rev"`
}

// Set is a table's policies: the table's under "", its stream's under the
// stream's ARN. A nil Set has none.
type Set map[string]*Record

// Document is the document attached under key, if any: the authorizer's
// lookup, which builds nothing when there is none.
func (s Set) Document(key string) (string, bool) {
	if r := s[key]; r != nil {
		return r.Document, true
	}
	return "", false
}

const (
	// MaxBytes is a document's largest size; DynamoDB counts whitespace too.
	MaxBytes = 20 * 1024
	// NoPolicy is the ExpectedRevisionId of PutResourcePolicy that
	// expects no policy to be attached yet.
	NoPolicy        = "NO_POLICY"
	msgPolicyPrefix = "Resource-based policy not found for the provided ResourceArn: "
)

// NotFound is the PolicyNotFoundException of a resource with no policy.
func NotFound(arn string) *ddberr.Error {
	return ddberr.PolicyNotFound(msgPolicyPrefix + arn)
}

// Check checks a policy document for a table (stream false) or a stream:
// at most MaxBytes, then what internal/iam's CheckResourcePolicy finds.
func Check(doc string, stream bool) error {
	if len(doc) > MaxBytes {
		return ddberr.Validation("One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded")
	}
	if err := iam.CheckResourcePolicy([]byte(doc), stream); err != nil {
		return ddberr.Validation(err.Error())
	}
	return nil
}

// CheckRevision applies an ExpectedRevisionId (nil: none) to the policy
// there is (nil: none) on table's resource arn; put says whether NoPolicy
// means "none expected" (PutResourcePolicy) rather than being a revision
// ID like any other.
func CheckRevision(expected *string, cur *Record, table, arn string, put bool) error {
	switch {
	case expected == nil:
		return nil
	case put && *expected == NoPolicy && cur != nil:
		return ddberr.PolicyNotFound(msgPolicyPrefix + "Requested policy update expecting none to be present for table " +
			table + ", but a policy exists with revision id " + cur.Revision + ".")
	case put && *expected == NoPolicy:
		return nil
	case cur == nil:
		return NotFound(arn)
	case *expected != cur.Revision:
		return ddberr.PolicyNotFound(msgPolicyPrefix + "Requested update for policy with revision id " + *expected +
			", but the policy associated to target table " + table + " has revision id " + cur.Revision + ".")
	}
	return nil
}

// NextRevision is the RevisionId of a policy attached at now, after prev
// ("" for none): the time in Unix milliseconds, later than prev's.
func NextRevision(now time.Time, prev string) string {
	ms := now.UnixMilli()
	if p, err := strconv.ParseInt(prev, 10, 64); err == nil && ms <= p {
		ms = p + 1
	}
	return strconv.FormatInt(ms, 10)
}
