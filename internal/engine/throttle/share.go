package throttle

import (
	"log/slog"
	"time"
)

// Several nodes (the core's Config.Cluster): every node of a cluster
// serves every table, but the buckets are in each node's memory. Each
// node therefore enforces its share of every limit: with n live nodes
// (internal/membership's records in the shared store), a bucket fills at
// Rate/n and holds a burst of Burst×Rate/n, so that the sum over the
// nodes is the table's (or GSI's) capacity. The share follows the
// membership: Follow recounts the live nodes every period and SetNodes
// rebalances (a lowered share caps the tokens held at once; a raised one
// lets them fill faster).
//
// Why shares and not buckets in the store: a bucket in the store is one
// more read-modify-write of one hot key in every request's path, which
// on PostgreSQL costs a round trip and, with several nodes charging the
// same table, serialisation conflicts and retries; a share costs nothing
// per request and one listing of the node records per period.
//
// Accuracy, for a load a load balancer spreads evenly over the nodes:
// over any window of length T the nodes together admit at most
// Rate×T + Burst×Rate (as one node does), plus the overdraft of the
// requests in flight on each node when its bucket runs out (a request is
// admitted while its bucket is positive and pays after, so it may take it
// below zero), plus, after a node joined and before the others
// noticed (at most one period), what the old shares exceed the new ones
// by. A node that died still counts until its record lapses
// (membership.TTL), so the survivors enforce less than the budget
// meanwhile. A load sent to one node only gets that node's share, 1/n of
// the capacity: throttled early, never late. DynamoDB's own enforcement
// is per partition and bursty too; neither is exact.

// SetNodes makes each bucket hold the share of n nodes (n < 1 counts as
// one: this node alone).
func (b *Buckets) SetNodes(n int) {
	n = max(n, 1)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nodes = n
}

// Nodes is how many nodes the buckets share their limits with.
func (b *Buckets) Nodes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nodes
}

// Refresh sets the share from count, the live nodes now; an error keeps
// the current share.
func (b *Buckets) Refresh(count func() (int, error)) {
	n, err := count()
	if err != nil {
		slog.Warn("throughput enforcement: counting the cluster's nodes", "err", err)
		return
	}
	b.SetNodes(n)
}

// Follow refreshes the share from count every period until sleep (which
// waits for the period) reports false.
func (b *Buckets) Follow(count func() (int, error), period time.Duration, sleep func(time.Duration) bool) {
	for sleep(period) {
		b.Refresh(count)
	}
}
