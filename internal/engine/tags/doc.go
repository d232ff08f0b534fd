// Package tags owns the tag APIs of tables: TagResource, UntagResource and
// ListTagsOfResource in DynamoDB's order (the ARN checked by package arns,
// the tags, authorization, then the table), which keys and values AWS
// accepts (Check, CheckKey), how many a resource may have (Max), and what
// TagResource and UntagResource make of a table's tags (Merge, Remove),
// in DynamoDB's words.
//
// The core gives it a Core: the region and account it answers for, the
// control-plane lock, a table's status and tags, and the storing of a
// table's new tags in its record (catalog.go: tableRecord.Tags; the core
// implements it in engine/table_meta.go). The package never imports
// internal/engine.
//
// State in memory: none. The tags are part of the catalog, read at Open
// with the table records; another node sharing the store reads them
// from the store the same way, and a change made on one node is stored
// as the table record's next generation, which the others read when they
// recheck the table (catalog_nodes.go).
package tags
