// Package holder names the Kura server that holds a distributed backend's
// namespace lease (storage/tikv, storage/postgres): a random owner per
// store, the host and the process, and whether such a process still runs
// on this host; and Closing, the closed state of a store that holds a
// lease.
//
// State: none of its own. The lease itself lives in the backend's store
// (a TiKV key, a PostgreSQL row) and each backend's lease.go renews it;
// after a restart a store gets a new owner from Me and takes the lease
// over at once when the previous holder's process is gone from this host,
// or after it lapses otherwise.
package holder
