package engine

import (
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
)

// tableNameOf returns the table name a TableName member refers to
// (tables.NameOf).
func tableNameOf(s string) string { return tables.NameOf(s) }

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
// 3 to 255 characters of [a-zA-Z0-9_.-] (tableNameChars: package arns).
func validTableName(s string) bool {
	return len(s) >= 3 && len(s) <= 255 && tableNameChars.MatchString(s)
}
