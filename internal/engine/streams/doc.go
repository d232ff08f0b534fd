// Package streams is DynamoDB Streams: the stream of every table that has
// one enabled, its shards and their records, and the Streams API
// (ListStreams, DescribeStream, GetShardIterator, GetRecords) over them.
//
// It plugs into the engine's write path as a change.Subsystem: Registry.
// Stage appends the record of one item change to the item's own storage
// transaction (so the record commits exactly when the item does), with the
// images the stream's view type asks for; a TTL deletion (change.Change.TTL)
// is labelled as the service's. The engine begins every transaction through
// Store (WrapStore), whose transactions release the sequence numbers they
// reserved when they commit or roll back. The engine tells the registry of
// every new version of a table (Observe): a stream is created when a table's
// description first names it, and disabled when the table disables it or is
// deleted. A background loop (on the one node holding the engine's lease
// "streams", Config.Hold) rolls shards over (Config.ShardPeriod) and trims
// records, shards and disabled streams past the retention.
//
// Key layout: see store.go ("s" records, "mstream/" metadata and the
// "mstreams/" sequence floor, MAC key and stream counter; in cluster mode
// the stored positions and each table's newest stream).
//
// State in memory, and how it is rebuilt (Open, from the store):
//   - every retained stream's metadata (shards, lineage, trim points): read
//     from the "mstream/" records, then reconciled with the catalog's tables
//     (streams a table no longer names, or of tables that are gone, are
//     disabled);
//   - the engine-wide sequence counter: the highest of the persisted floor,
//     every shard's bounds and the last record of every shard;
//   - the numbers reserved by transactions still in flight, which bound what
//     readers see (the watermark): empty at Open, since no transaction
//     survives a restart;
//   - the shard-iterator MAC key: persisted once, read back.
//
// Several nodes sharing the store (Config.Cluster, shared.go): the
// engine-wide counter and the in-flight sets would be one process's, so
// each stream's position (open shard, last number drawn, disabled) is a
// key of the store instead, read with Get and advanced in the
// transaction of every write that records into the stream: the store
// serialises the stream's writers on every node, numbers commit in their
// order (none reused, none skipped), and any snapshot holds exactly the
// records up to the position it shows, so readers need no watermark.
// This node's writers of a stream take turns (streamState.turn), a write
// of one item before its transaction begins (BeginFor), so that they wait
// for each other rather than conflict on the position. Rollover, disabling and trimming read the metadata and the position
// and write them back in one transaction; a stream is created once
// ("mstreams/tab/", the table's newest stream, read in the creating
// transaction). The registry is then a cache: the Streams API reads each
// stream's metadata and position from the store (one snapshot per
// GetRecords, which its records come from), streams other nodes created
// are looked for in the store, and the lease holder's upkeep starts from
// the store's streams and disables those their table no longer names. At
// Open a node derives the positions a single server left unstored; a
// single server drops them at its Open (folding them into the floor).
package streams
