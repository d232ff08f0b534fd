// Package lease owns named leases kept in a storage.Store, so that a piece
// of background work (the TTL expirer's pass, stream and PITR trimming, a
// job's run, a store's garbage collection) is done by one Kura node at a
// time among the nodes sharing the store, and taken over from its
// recorded progress by another node once its holder stops renewing.
//
// A lease is one key, Prefix + name, whose value (JSON) names the holder
// (Node: a random ID per process, the host and the process ID), its
// generation (one more at every change of holder), its expiry (Unix
// milliseconds on the holder's clock) and the progress the holder recorded
// (an opaque cursor or checkpoint). Every operation is one store
// transaction that reads the key with Get, so two nodes racing for a lease
// conflict and only one commits:
//   - Acquire takes a lease that is free, expired or already this node's
//     (a new generation when the holder changes; the recorded progress is
//     kept, for the new holder to resume from);
//   - Renew extends the expiry while the generation is still this node's,
//     and reports ErrLost otherwise;
//   - Save records progress, and Fence lets a caller check the lease
//     inside its own transaction: both read the lease key and check the
//     generation in the same transaction as the write, so a holder that
//     was taken over meanwhile cannot commit (its commit conflicts, or it
//     sees the new generation and gets ErrLost);
//   - Release sets the expiry to zero (the progress stays), so another
//     node takes over at once.
//
// A holder believes it holds a lease until Margin before the expiry it
// wrote (Held), and another node takes it only at or after that expiry on
// its own clock, so with clocks that agree within Margin two nodes never
// both believe they hold one lease; whatever their clocks, fenced writes
// never both commit. The takeover bound: a dead holder's lease is taken
// TTL after its last renewal at the latest, plus the taker's polling
// period (each guarded loop polls at its own interval).
//
// Time is injected (Clock) so tests advance it instead of waiting.
//
// Three ways of using a Manager serve the engine's background work
// (work.go): a Guard is the lease of a loop that asks for it at every
// round and records its progress (the TTL pass's cursor); a Claim is the
// lease a job runs under, fencing its writes; Under runs a piece of work
// once on whichever node holds its lease, waiting while another node
// does, and records it Done so that a later holder does not run it again.
//
// State in memory: a Manager keeps the leases this node holds (name,
// generation, expiry) for its renewer; nothing else. After a restart the
// node holds nothing and acquires again; the store is the truth.
//
// It imports only internal/storage (below the engine, so the storage
// backends' garbage collectors can use it too).
package lease
