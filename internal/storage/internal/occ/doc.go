// Package occ is the optimistic concurrency control shared by Kura's local
// storage backends (memory and pebble): a timestamp Oracle that detects
// conflicts at commit time, and Txn, the backend-independent part of a
// read-write transaction (write buffer, Get read set, commit protocol).
// The postgres backend also runs one per store, over that store's own
// commits, for the window between BeginLazy and the snapshot that
// PostgreSQL cannot see (its doc.go).
//
// # Conflict rule
//
// Every transaction gets a start timestamp at Begin. At commit the oracle,
// under a short mutex, checks every key the transaction read with Get or
// wrote: if another transaction committed a write to that key with a commit
// timestamp greater than the start timestamp, the commit fails with
// storage.ErrConflict. Otherwise the oracle assigns the next commit
// timestamp and records the transaction's write keys under it. Keys that
// were only observed through iterators are not conflict-checked: range reads
// get snapshot isolation, not serializability (callers needing stronger
// guarantees for a range must Get the keys they depend on, or serialise
// writers themselves, as the engine does with its item locks).
//
// # Applying outside the mutex
//
// The backend applies the writes (for pebble: a synced batch commit) after
// the oracle mutex is released, so concurrent durable commits share WAL
// fsyncs. Applies may therefore finish out of order. To stay correct the
// oracle hands out start timestamps from a watermark: the highest timestamp
// at or below which every commit is fully applied. A transaction's snapshot
// is taken after its start timestamp is chosen, so it contains at least
// every commit at or below its start; any commit it may miss has a larger
// timestamp and is caught by the conflict check. (A snapshot may also
// contain a few commits above its start; that can only cause a conservative,
// retryable conflict, never a missed one.)
//
// A commit is acknowledged only once the watermark has reached its
// timestamp (it waits for any earlier-stamped commits still applying, which
// are normally in the same group commit). So a transaction that begins after
// another's commit returned always starts at or above that commit: it sees
// the commit and cannot conflict with it. Without this, a client writing the
// same key twice in a row could get a spurious conflict while an unrelated
// commit was still being applied.
//
// Two commits that write the same key are never applied concurrently: the
// later one either started after the earlier one was applied, or it
// conflicts. So per-key write order always matches commit timestamp order.
//
// # Memory
//
// The oracle keeps the write keys of recent commits only while some active
// transaction could still conflict with them: entries at or below the
// oldest active start timestamp (and the watermark) are pruned. Callers must
// therefore end every transaction with Commit or Rollback; a leaked
// transaction pins the history.
package occ
