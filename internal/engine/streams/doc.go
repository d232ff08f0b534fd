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
// "mstreams/" sequence floor, MAC key and stream counter).
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
// Another node sharing the store would need the same counter (numbers are
// unique only within one process today, as are the in-flight sets that make
// the watermark safe), and would have to learn of streams and shards other
// nodes create (the metadata is in the store, the registry is not).
package streams
