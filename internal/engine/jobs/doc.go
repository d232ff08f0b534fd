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
// copy in memory changes, so the store is always the truth. Reload reads
// the records again (another node may have saved some); a Share'd log
// (cluster mode) does so before every answer (Find, Page, WithToken), and
// SaveWith hands a merge the record as stored, inside the transaction
// that saves it (a cancellation another node saved is kept).
//
// Runs are the jobs of one kind running on this node, each under its
// Claim (the engine's lease "job/" + ARN, package internal/lease): a job
// runs on the node that claims it, and only if its stored record, read
// again after the claim, still asks for a run; every Save of a running
// job's record is fenced by its claim in the same transaction, so a node
// that lost the job to another cannot overwrite its record. The engine
// calls each kind's Adopt every lease TTL to take over the jobs of a node
// that stopped or died (their leases lapsed).
//
// It never imports internal/engine: the core hands a Log its store.
package jobs
