// Package reads owns Query and Scan, on a table or one of its secondary
// indexes: their request phase in DynamoDB's order (the legacy and the
// expression parameters, Select, parallel-scan segments, the key
// condition matched against the table's or the index's key schema), the
// storage range a read covers (a partition narrowed by the sort-key
// condition; a segment's contiguous range of partition hashes), the
// ExclusiveStartKey checks in each operation's words, the page (Limit and
// the 1 MB cap counted over scanned items, the filter, the projection,
// Select=COUNT, LastEvaluatedKey), pages kept as DynamoDB JSON transcoded
// from the stored items (QueryEncoded, ScanEncoded), the fetch of an
// index entry's other attributes from the table, and the read capacity
// of a page, admitted and paid through package throttle's quota.
//
// The core gives it a Core: the table a read names, as package reads'
// Table (name, ID and key schema, secondary and vector indexes, the quota's
// Target, the core's check of key paths); the engine implements it in
// engine/reads.go, whose Query, QueryEncoded, Scan and ScanEncoded are
// one-line entry points. The package never imports internal/engine.
//
// GetItem, BatchGetItem and the reads of transactions stay in the core:
// they read one item by its key through the item cache and the store's
// point reads, which the write path fills and shares under the items'
// stripe locks (the item cache is the core's), not a range of a snapshot.
//
// Each page reads one consistent view: a single iterator over the latest
// state when the store offers one (storage.RangeReader) and nothing else
// is read, else a snapshot, which also serves an index read's fetches
// from the table.
//
// State in memory: none beyond the store, the quota and the Core it was
// built over at Open; every read resolves its table anew.
package reads
