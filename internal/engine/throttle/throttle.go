package throttle

import (
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// Config turns throughput enforcement on.
type Config struct {
	On bool
	// Burst is how much unused provisioned capacity a bucket keeps, in
	// seconds of its rate (default 300s; at least one second's worth).
	Burst time.Duration
}

// DefaultBurst is DynamoDB's burst capacity: five minutes of unused
// capacity.
const DefaultBurst = 300 * time.Second

// Key names one bucket: a table ID (a re-created table starts afresh), a
// GSI name ("" for the table) and the side.
type Key struct {
	Table uint64
	Index string
	Write bool
}

// Limit is the rate of one bucket; OnDemand marks an OnDemandThroughput
// maximum rather than provisioned capacity.
type Limit struct {
	Key      Key
	Rate     float64
	OnDemand bool
}

type bucket struct {
	tokens float64
	at     time.Time
}

// Buckets are the token buckets of one engine.
type Buckets struct {
	burst   time.Duration
	mu      sync.Mutex
	buckets map[Key]*bucket
	// nodes is how many nodes share each limit (SetNodes, share.go):
	// every bucket fills at Rate/nodes and holds a burst of that.
	nodes int
}

// New returns empty buckets that keep burst of unused provisioned
// capacity (at least one second's).
func New(burst time.Duration) *Buckets {
	return &Buckets{burst: max(burst, time.Second), nodes: 1}
}

// Empty reports whether lim's bucket has no capacity left at now: a
// request that needs it is refused.
func (b *Buckets) Empty(lim Limit, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fill(lim, now).tokens <= 0
}

// Charge pays units from lim's bucket at now; it may go below zero (one
// large request), and the next requests wait until it refills.
func (b *Buckets) Charge(lim Limit, now time.Time, units float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fill(lim, now).tokens -= units
}

// fill brings lim's bucket up to now (a new bucket starts full) and
// returns it. b.mu is held.
func (b *Buckets) fill(lim Limit, now time.Time) *bucket {
	burst := b.burst
	if lim.OnDemand {
		burst = time.Second
	}
	rate := lim.Rate / float64(b.nodes)
	capacity := rate * burst.Seconds()
	bk := b.buckets[lim.Key]
	if bk == nil {
		if b.buckets == nil {
			b.buckets = map[Key]*bucket{}
		}
		bk = &bucket{tokens: capacity, at: now}
		b.buckets[lim.Key] = bk
	}
	if d := now.Sub(bk.at); d > 0 {
		bk.tokens += rate * d.Seconds()
		bk.at = now
	}
	bk.tokens = min(bk.tokens, capacity) // also after the limit (or the share) was lowered
	return bk
}

// Forget drops the buckets of a deleted table's ID.
func (b *Buckets) Forget(table uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.buckets {
		if k.Table == table {
			delete(b.buckets, k)
		}
	}
}

// Refused is the error for a request lim refused, on the table whose ARN
// is tableARN: ProvisionedThroughputExceededException, or
// ThrottlingException for an on-demand maximum, with its
// ThrottlingReasons.
func Refused(tableARN string, lim Limit) *ddberr.Error {
	kind, resource := "Table", tableARN
	if lim.Key.Index != "" {
		kind, resource = "Index", resource+"/index/"+lim.Key.Index
	}
	side := "Read"
	if lim.Key.Write {
		side = "Write"
	}
	if lim.OnDemand {
		msg := ddberr.MsgOnDemandTable
		if lim.Key.Index != "" {
			msg = ddberr.MsgOnDemandIndex
		}
		return ddberr.OnDemandThroughputExceeded(msg, ddberr.ThrottlingReason{Reason: kind + side + "MaxOnDemandThroughputExceeded", Resource: resource})
	}
	msg := ddberr.MsgThroughputTable
	if lim.Key.Index != "" {
		msg = ddberr.MsgThroughputIndex
	}
	return ddberr.ProvisionedThroughputExceeded(msg, ddberr.ThrottlingReason{Reason: kind + side + "ProvisionedThroughputExceeded", Resource: resource})
}
