// Package transact owns DynamoDB's transactions as the engine runs them
// (TransactWriteItems, TransactGetItems, and ExecuteTransaction through
// them):
//   - an action's members, whichever of the four kinds it is, and the
//     request-phase refusal of one that is not exactly one (ActionOf;
//     CheckExpressions, the older layer's parse-only check);
//   - a write transaction's request as answered (WriteItems,
//     WriteStatements): run once per token, a repeat's output;
//   - the order in which a write transaction is validated and refused
//     (Prepare: every action's request-phase checks, then tables and keys,
//     then two actions on one item and the 4 MB limit, then a key of the
//     wrong type as a cancellation reason), and a read transaction
//     (PrepareGets), and the read transaction's run (GetItems: prepared,
//     checked against preparing writers, admitted, read, billed);
//   - the all-or-nothing run (Run): hold the items, lock them, stage every
//     action in one attempt, collect the actions' failures as cancellation
//     reasons in request order, commit once, try again on a storage
//     conflict;
//   - the items in-flight write transactions hold (held.go), which make a
//     single-item write on one fail with TransactionConflictException and
//     cancel another transaction, and which readers wait on briefly;
//   - the ClientRequestTokens of recent requests (tokens.go), shared by
//     the nodes of a store in cluster mode (shared_tokens.go);
//   - TransactionCanceledException and its reasons (cancel.go);
//   - a transaction's ConsumedCapacity, reads and writes apart per table
//     and index (Tally; the core works out the units).
//
// The core gives it what only the core can do, through small interfaces
// (Actions, Gets, Reads, Write, Attempt, Prepared): validate one action against
// its table, lock items in the core's one global order, inside one
// storage transaction read an item, check its condition and stage its
// write through the write path's subsystems, and count capacity and item
// collections. The package never imports
// internal/engine; the item semantics (conditions, updates, sizes,
// capacity) stay in the core.
//
// State in memory (State, made at Open): the held items and the tokens.
// Neither is rebuilt: no transaction survives a restart. With one node a
// token lives only in memory, and one repeated after a restart is applied
// again (DynamoDB keeps tokens for ten minutes; Kura for ten minutes of
// one process's life). In cluster mode (ShareTokens, shared_tokens.go)
// the tokens are shared through the store: a transaction records its
// token ("mtxtok/" + token → expiry, request hash) inside its own commit,
// reading the key first, so two nodes racing with one token conflict and
// only one commits; a token the node's memory does not hold is looked up
// in the store; expired records are ignored, overwritten, and deleted by
// SweepTokens on the node holding the engine's token-sweep lease. The
// memory map stays in front (repeats on one node wait for the first, as
// with one node). The held items stay per process: a transaction on
// another node meets this one's items in the store (a storage conflict,
// retried) rather than as TransactionConflict.
package transact
