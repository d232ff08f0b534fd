// Package kinesisdest owns Kinesis streaming destinations: the
// destinations of each table (Enable/Disable/Update/Describe
// KinesisStreamingDestination and their states), the change feed that puts
// every item change to the destination's Kinesis data stream as DynamoDB's
// Kinesis record, and its durability.
//
// It does not depend on the table's DynamoDB stream, and it does not
// import internal/engine: a Feed is one of the write path's subsystems
// (change.Subsystem). The engine offers it each item change (the table,
// the old and new images, whether the TTL expirer made it) inside the
// item's own storage transaction, and Stage adds one outbox record per
// live destination to that transaction, so a change is in the outbox
// exactly when the item commits; Committed wakes the forwarder. A forwarder goroutine
// drains the outbox to Kinesis (PutRecords, at most 500 records a call, in
// key order, which is the order the item's changes committed in: writers of
// one item are serialised by the engine's item lock, which they hold while
// the sequence number is drawn), retries with backoff while Kinesis is away
// or throttles, and deletes what Kinesis acknowledged: the outbox itself is
// the checkpoint. Delivery is at least once: a record Kinesis took whose
// deletion did not commit is put again after a restart. DeleteTable stops
// the capture of the table's destinations and leaves their states as they
// were (a DELETING table still describes them, as DynamoDB's does); their
// outboxes are delivered all the same.
//
// Key layout in storage:
//
//	"mkdest/" + destID(8)            → a destination (JSON)
//	"mkout/"  + destID(8) + seq(8)   → one outbox record: partition key and Kinesis data
//
// In cluster mode (Config.Cluster) also:
//
//	"mkseq/"  + destID(8)            → the destination's last outbox number (uint64 BE)
//
// State in memory: the destinations by table (read from "mkdest/" at Open)
// and the next outbox sequence number (one past the largest stored, found
// at Open). Nothing else: after a restart the forwarder resumes from the
// outbox as stored, and destinations in ENABLING, DISABLING or UPDATING move
// on when their time comes, as before.
//
// Several nodes sharing the store (shared.go): the counter above would be
// one process's, and so would the destinations read at Open. In cluster
// mode each destination's outbox numbers are stored ("mkseq/", read and
// advanced in the capturing write's transaction, so outbox order is commit
// order on every node); each operation reads the destinations from the
// store and writes its change only over the destination as it read it,
// rewriting the table's catalog record as its next generation
// (Config.Touch) in the same transaction, so every node's next write of
// the table conflicts, reloads the table and reads its live destinations
// again (Stage keeps them per version of the table's definition); and only
// the holder of the lease Config.Hold runs the forwarder, reading the
// destinations from the store each round. A single server drops the
// stored numbers at Open; a node derives a missing one from the outbox.
package kinesisdest
