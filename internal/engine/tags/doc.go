// Package tags owns the rules of a table's tags: which keys and values
// AWS accepts (Check, CheckKey), how many a resource may have (Max), and
// what TagResource and UntagResource make of a table's tags (Merge,
// Remove), in DynamoDB's words.
//
// The core resolves the resource a request names (the ARN, the table,
// authorization) and keeps the tags in the table record (catalog.go:
// tableRecord.Tags); the package never imports internal/engine.
//
// State in memory: none. The tags are part of the catalog, read at Open
// with the table records; another node reads them from the store the same
// way.
package tags
