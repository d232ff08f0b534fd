package insights

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// Contributor Insights statuses and modes.
const (
	Enabled   = "ENABLED"
	Disabled  = "DISABLED"
	Enabling  = "ENABLING"
	Disabling = "DISABLING"
	All       = "ACCESSED_AND_THROTTLED_KEYS"
	Throttled = "THROTTLED_KEYS"
)

// Record is the Contributor Insights state of a table or of one of its
// GSIs, as the table record stores it.
type Record struct {
	Enabled bool      `json:"enabled"`
	Mode    string    `json:"mode"`
	Stamp   int64     `json:"stamp"`   // ms in the rule names: the enabling time
	Changed time.Time `json:"changed"` // LastUpdateDateTime
}

// CheckIndexName is DynamoDB's own check of an IndexName given to the
// Contributor Insights operations.
func CheckIndexName(p *string) error {
	if p != nil && (len(*p) < 3 || len(*p) > 255) {
		return ddberr.Validation("IndexName must be at least 3 characters long and at most 255 characters long")
	}
	return nil
}

// Update is what UpdateContributorInsights does to cur (nil: never
// configured) at now: enable (in mode, ACCESSED_AND_THROTTLED_KEYS when
// ""), or disable. It returns the Record to store (nil: nothing changes),
// the status to answer (the transition when something changes, the
// settled status otherwise: DynamoDB's answers, probe reports captured
// 2026-10-08/09) and the mode to answer.
func Update(cur *Record, enable bool, mode string, now time.Time) (next *Record, status, answerMode string) {
	if !enable {
		if cur == nil || !cur.Enabled {
			if cur != nil {
				answerMode = cur.Mode
			}
			return nil, Disabled, answerMode // nothing to do
		}
		// The current mode, whatever was sent.
		return &Record{Mode: cur.Mode, Stamp: cur.Stamp, Changed: now}, Disabling, cur.Mode
	}
	if mode == "" {
		mode = All
	}
	if cur != nil && cur.Enabled && cur.Mode == mode {
		return nil, Enabled, mode // nothing to do
	}
	next = &Record{Enabled: true, Mode: mode, Stamp: now.UnixMilli(), Changed: now}
	if cur != nil && cur.Enabled {
		next.Stamp = cur.Stamp // a mode change keeps the rules' names
	}
	return next, Enabling, mode
}

// Rules are the names of the rules DynamoDB keeps for a table or GSI
// (resource: the table's name, or "<table>-<index>") in r's mode:
// partition-key rules, and sort-key ones when it has a sort key;
// consumed (C) ones only when all access is tracked.
func Rules(resource string, sortKey bool, r *Record) []string {
	kinds := []string{"PKC", "PKT"}
	if sortKey {
		kinds = append(kinds, "SKC", "SKT")
	}
	var out []string
	for _, k := range kinds {
		if r.Mode == Throttled && k[2] == 'C' {
			continue
		}
		out = append(out, fmt.Sprintf("DynamoDBContributorInsights-%s-%s-%d", k, resource, r.Stamp))
	}
	return out
}

// Position is where a ListContributorInsights page stands: after the
// entry of table and index ("" for the table itself); positions order as
// the list does (tables by name, each before its GSIs).
func Position(table, index string) string { return table + "\x00" + index }

// Token is the NextToken that resumes after position.
func Token(position string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(position))
}

// ParseToken reads a ListContributorInsights NextToken (nil: from the
// start, "").
func ParseToken(p *string) (string, error) {
	if p == nil {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*p)
	if err != nil || !strings.Contains(string(b), "\x00") {
		return "", ddberr.Validation("Invalid NextToken: " + *p)
	}
	return string(b), nil
}
