package engine

import (
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// tableNameOf returns the table name a TableName member refers to: the
// name itself, or the name inside a table ARN
// (arn:<partition>:dynamodb:<region>:<account>:table/<name>), which
// DynamoDB accepts wherever a TableName is read. As in DynamoDB Local the
// ARN's region and account are not compared with the server's (with
// --shared-db=false one server answers for many). Anything else, an index
// or stream ARN included, is returned unchanged and so names no table.
func tableNameOf(s string) string {
	if !strings.HasPrefix(s, "arn:") {
		return s
	}
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" {
		return s
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return s
	}
	return name
}

// createTableName is the name CreateTable gives a table named by raw: a
// table ARN stands for the name in it, which must then be a valid name;
// any other ARN fails the name pattern (the request layer only checked an
// ARN's length).
func createTableName(raw string) (string, error) {
	if !strings.HasPrefix(raw, "arn:") {
		return raw, nil
	}
	name := tableNameOf(raw)
	if name == raw || !validTableName(name) {
		return "", ddberr.Constraints([]ddberr.Constraint{{Value: "'" + raw + "'", Member: "tableName",
			Text: "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"}})
	}
	return name, nil
}

// validTableName reports whether s satisfies DynamoDB's table name rules:
// 3 to 255 characters of [a-zA-Z0-9_.-] (tableNameChars, tags.go).
func validTableName(s string) bool {
	return len(s) >= 3 && len(s) <= 255 && tableNameChars.MatchString(s)
}
