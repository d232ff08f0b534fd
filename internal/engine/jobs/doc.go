// Package jobs owns what the engine's background jobs over S3 share: the
// job log (the stored records of one kind of job, by ARN, in the order
// they started: exports, imports and bulk operations each keep one), the
// context a job's S3 requests run in, and how a job that could not read
// or write its objects reports it (Failure).
//
// State in memory: a Log keeps a copy of every record it holds, by ARN,
// and the ARNs oldest first. It is rebuilt from the store by Load (at the
// engine's Open): the records are stored as JSON under the log's prefix
// (an "m" metadata key + ARN) and each Save commits durably before the
// copy in memory changes, so the store is always the truth. Another node
// would have to Load again (or re-read a record before trusting it) to
// see records that node did not save itself.
//
// It never imports internal/engine: the core hands a Log its store.
package jobs
