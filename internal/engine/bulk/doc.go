// Package bulk runs bulk operations (StartBulkPutItems' job, and
// DescribeBulkOperation, ListBulkOperations and CancelBulkOperation over
// its records): the objects under an S3 prefix are read record by record,
// and each record's item is put into an existing table through the
// core's PutItem (so indexes, streams, TTL and capacity see it as any
// other write), under the record's own condition when it has one, paced
// to MaxWriteRequestUnits. Items that cannot be written are reported to
// the output bucket (report.go).
//
// The core validates the request against its catalog (the table ACTIVE,
// no index being created) and hands the package a Record and the table's
// Target (its name, PutItem, and the index entries an item makes, for
// BulkOperationUsage); the package never imports internal/engine.
//
// State in memory: the job log's copy of every operation's record
// (package jobs), the set of operations cancelled, and the goroutine of
// each running operation. All are rebuilt from the store at Open: the
// records are read back from "mbulk/" + ARN; one IN_PROGRESS or
// CANCELLING goes on from its resume point (Object, Line) over the
// listing of its input objects stored under "mbulkobj/" + ARN, a
// CANCELLING one marked cancelled again, and one whose table is gone
// ends FAILED. Among nodes sharing the store, the one holding an
// operation's claim (package jobs, Runs) runs it, its checkpoints fenced
// by the claim; Adopt takes over, from the last checkpoint, the
// operations of a node whose claim lapsed. A cancellation made through
// another node is seen by the running node's next checkpoint save
// (jobs.Log.SaveWith), which stops the run.
//
// Requests (request.go) run over a Catalog the core implements (its DDL
// lock and table lookups); with Options.Shared (cluster mode) every answer
// reads the records from the store first, so all nodes answer alike.
package bulk
