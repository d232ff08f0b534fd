// Package change is what the engine's write path and the subsystems that
// plug into it share: the definition of a table as a write sees it
// (Table, KeyAttr), one item change (Change) and the interface through
// which a subsystem joins the change's storage commit (Subsystem).
//
// The write path (internal/engine, stageWrite) computes a change of one
// item under the item's lock and offers it to each subsystem in the order
// the engine wired them at Open. A subsystem adds its own mutations to the
// item's transaction in Stage (index entries, stream records, point-in-time
// images, vector bookkeeping), so they commit exactly when the item does;
// an error from Stage aborts the whole write. Once the commit succeeded the
// write path calls Committed on each subsystem, and only then may a
// subsystem change its in-memory state for the change. A write that is
// retried after a storage conflict is staged again in a new transaction;
// Committed is called once, for the attempt that committed.
//
// Subsystems live in packages of their own under internal/engine and never
// import internal/engine: the dependencies point from the engine to them
// and from both to this package.
//
// State: none. This package holds types only; it keeps nothing in memory
// and has nothing to rebuild.
package change
