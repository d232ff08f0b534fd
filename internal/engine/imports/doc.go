// Package imports runs imports from S3 (ImportTable's job, and
// DescribeImport and ListImports over its records): it reads the objects
// under an import's S3BucketSource prefix (DYNAMODB_JSON or CSV; NONE,
// GZIP or ZSTD), counts what it processed, imported and refused, and
// writes the items into the new table through a Target the core gives
// it: the core's write path (the table's index entries and vector marks
// are written with each item) in transactions of chunkItems items.
//
// The core validates the request and creates the table (CREATING), then
// hands the package a Record and the table's Target to Start; when the
// import ends the Target makes the table ACTIVE, or drops it when the
// objects could not be read. The package never imports internal/engine;
// Options carries what it needs from the core.
//
// State in memory: the job log's copy of every import record (package
// jobs), and the goroutine of each running import. Both are rebuilt from
// the store at Open: the records are read back from "mimport/" + ARN, and
// an import still IN_PROGRESS whose table still exists runs again from
// the first object (what it wrote already is written again, the same
// items). Among nodes sharing the store, the one holding an import's
// claim (package jobs, Runs) runs it; Adopt takes over the imports of a
// node whose claim lapsed.
//
// Requests (request.go) run over a Catalog the core implements (its DDL
// lock and table lookups); with Options.Shared (cluster mode) every answer
// reads the records from the store first, so all nodes answer alike.
package imports
