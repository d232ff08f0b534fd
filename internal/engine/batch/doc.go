// Package batch owns BatchWriteItem's and BatchGetItem's request flows as
// the engine runs them:
//   - the request phase of each, touching no table (CheckWrites,
//     CheckGets: one of PutRequest and DeleteRequest, no put item over
//     400 KB, at most 25 requests; no key twice in one table, at most 100
//     keys, the projection parameters, one projection form per request);
//   - their tables and keys resolved in table-name order, so that
//     validation errors are deterministic (SortedNames), with
//     BatchWriteItem's wording of a put item's bad key (KeyError) and no
//     item written twice;
//   - the answer: the requests the write path refused (the quota applier
//     when throughput is enforced) as UnprocessedItems, BatchGetItem's
//     keys past 16 MB of response or its table's read capacity as
//     UnprocessedKeys (the throttling error when no key was read), the
//     consumed capacity per table and index (Tally) and, through the core,
//     the item collections written.
//
// The core gives it what only the core can do, through small interfaces
// (WriteCore, GetCore; implemented in engine/batch_write.go and
// engine/batch_get.go): look up a table and validate a key against it,
// apply the writes through the one write path (one storage transaction
// under the items' stripe locks, commitBatchWrites), read items from one
// snapshot, admit and charge read capacity, count a write's units and
// item collections. The package never imports internal/engine.
//
// State in memory: none.
package batch
