// Package export runs exports to S3 (ExportTableToPointInTime's job, and
// DescribeExport and ListExports over its records): it writes a table as
// a snapshot reader gives it at the export time (snapshot.ItemsAt) to an
// object store, in DynamoDB's layout (files.go), and keeps each export's
// record in a job log.
//
// The core validates the request against its catalog (the table, its
// point-in-time recovery, the export time, the FilterSpecification parsed
// into a Filter) and hands the package a Record to Start; the package
// never imports internal/engine. Options carries what it needs from the
// core, the way etcd's ApplierOptions hands an applier its subsystems.
//
// State in memory: the job log's copy of every export record (package
// jobs), and the goroutine of each running export. Both are rebuilt from
// the store at Open: the records are read back from "mexport/" + ARN, and
// an export still IN_PROGRESS (a stop interrupted it) runs again from the
// start over a new snapshot, writing the same object keys (the data
// file's name derives from the ARN). Among nodes sharing the store, the
// one holding an export's claim (package jobs, Runs) runs it; Adopt takes
// over the exports of a node whose claim lapsed.
//
// Requests (request.go) run over a Catalog the core implements (its DDL
// lock and table lookups); with Options.Shared (cluster mode) every answer
// reads the records from the store first, so all nodes answer alike.
package export
