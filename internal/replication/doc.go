// Package replication owns global tables (version 2019.11.21) between the
// regions of one Kura (--regions): which tables are replicated to which
// regions, the asynchronous replication of their writes both ways, and
// the fault controls a test uses to delay, pause or cut off a region.
//
// It sits above the engine: each region is an *engine.Engine, and the
// package uses only its exported operations. Region wraps a region's
// engine as the API's backend, answering UpdateTable's ReplicaUpdates
// (replica.go, replica_update.go), adding GlobalTableVersion and Replicas
// to table descriptions, making the global table's part of any other
// UpdateTable or UpdateTimeToLive in every replica (settings.go),
// passing a replica's Update through UPDATING (Config.UpdateDelay, on the
// clock of the region it was asked in), answering
// DescribeTableReplicaAutoScaling and
// UpdateTableReplicaAutoScaling (autoscaling.go: stored and described, not
// acted on), and routing the item operations of MRSC tables
// (strong_ops.go); every other operation is the engine's. A replicated
// write is applied through the replica's engine, so it consumes write
// capacity there as DynamoDB charges replicated writes; replication's own
// reads are engine.Uncharged.
//
// Replication is driven from each replica's change log, the table's stream
// (NEW_AND_OLD_IMAGES, as DynamoDB requires). A worker per replica reads
// its region's stream (reader.go), stamps each local write with a
// timestamp and queues it for every other replica in an outbox (one store
// commit per page of records), and applies the outbox entries queued for
// its own region (apply.go) with last-writer-wins on the stamp (ties
// broken by region name), so two regions that wrote one item concurrently
// converge on the same item. It applies them in batches of distinct items
// (an item's first queued write, then its second, ...), each batch two
// commits of the replication store around BatchWriteItem requests of 25
// made side by side, so that a replica keeps up with many writers while
// each item's writes are made in their order.
// A multi-Region strongly consistent (MRSC) table (strong.go) uses the
// same stream and outbox (a stream its user did not ask for kept hidden,
// strong_stream.go), but its requests wait for them (strong_io.go):
// a write is answered once a majority of its three regions has it, an
// item being written through one region cannot be written through
// another meanwhile, and a strongly consistent read first applies what is
// queued for its region.
// Writes the worker applied are recognised in the stream they reappear in
// (markers) and not sent back. Stamps and replication delays read the
// clock of the region a write was made in (Config.Now; the server's
// --admin clocks), so a test moves time instead of waiting.
//
// Among Kura nodes sharing the replication store (--cluster), each
// replica's worker runs on one node at a time, the holder of its lease
// (worker.go, package lease), whose commits the lease fences; another
// node takes the worker over from the stored position and queue once the
// holder stops renewing it. Every node rereads the catalogue every 50 ms
// (starting the workers of replicas another node added, except while a
// replica is being created) and the fault controls, which are then kept
// in the store (faults.go).
//
// State: the catalogue of global tables (with each replica's overrides
// and the auto scaling set), the hidden streams, each reader's stream position,
// the outbox, the markers and each item's last stamp per region live in a
// store of their own (Config.Store), changed in one transaction per stream
// record, so a restart resumes where replication stopped and loses
// nothing acknowledged. In memory it keeps the catalogue (rebuilt from the
// store at Open, and every 50 ms with several nodes), the hidden streams
// of MRSC tables (read from the store at Open), each replica's backfill
// progress, the fault settings (not kept across a restart with one node;
// reread from the store with several), the worker leases this node holds,
// each worker's cursor in its queue (where it last stopped: a hint, the
// queue is read from its start at Open and every 100 ms) and the items
// MRSC writes are making (none survive a restart: their requests end with
// it).
package replication
