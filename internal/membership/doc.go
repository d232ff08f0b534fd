// Package membership is the membership of the Kura nodes that serve one store
// together in cluster mode (--cluster; docs/running.md "Several nodes"):
// each node registers itself in the store, under "mnode/" + its ID, with
// its host, process ID, advertised address, start time and a heartbeat it
// renews every Heartbeat; a record whose heartbeat is older than TTL is
// a node that is gone (List skips it, and Join sweeps it).
//
// Membership says who serves; it does not arbitrate anything. Correctness
// across nodes rests on the store's transactions (the engine's doc.go,
// "Several nodes"), and exclusion of a server that is not in cluster mode
// on the backend's shared lease (storage/internal/holder.SharedOwner).
//
// State: a Member keeps only its own record in memory; the list is read
// from the store at each List, so nothing needs rebuilding after a
// restart (a restarted node joins under a new ID, and its old record
// lapses). Time is the node's clock (injected): nodes' clocks must agree
// to well within TTL.
package membership
