package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// bounds are the latency histogram's bucket upper bounds, in seconds: from
// 100 µs (a cached GetItem) to 2.5 s.
var bounds = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// op is one operation's figures.
type op struct {
	name    string
	count   atomic.Uint64
	nanos   atomic.Uint64 // total latency
	buckets [len(bounds) + 1]atomic.Uint64
}

// Unknown is the operation label of requests whose target names no
// operation.
const Unknown = "unknown"

// Requests counts requests by operation. The zero value is not usable:
// NewRequests fixes the operations.
type Requests struct {
	ops     map[string]*op // by X-Amz-Target
	unknown op

	mu     sync.Mutex
	errors map[errorKey]*atomic.Uint64
}

type errorKey struct{ op, typ string }

// NewRequests returns counters for the operations with these X-Amz-Target
// values; each is labelled with what follows the target's last dot.
func NewRequests(targets []string) *Requests {
	r := &Requests{ops: map[string]*op{}, unknown: op{name: Unknown}, errors: map[errorKey]*atomic.Uint64{}}
	for _, t := range targets {
		name := t
		if i := strings.LastIndexByte(t, '.'); i >= 0 {
			name = t[i+1:]
		}
		r.ops[t] = &op{name: name}
	}
	return r
}

// Observe records one request to target that took d and failed with
// errType (DynamoDB's error type, "" for success).
func (r *Requests) Observe(target string, d time.Duration, errType string) {
	o := r.ops[target]
	if o == nil {
		o = &r.unknown
	}
	o.count.Add(1)
	o.nanos.Add(uint64(max(d, 0)))
	s := d.Seconds()
	i := 0
	for i < len(bounds) && s > bounds[i] {
		i++
	}
	o.buckets[i].Add(1)
	if errType != "" {
		r.errorCounter(o.name, errType).Add(1)
	}
}

func (r *Requests) errorCounter(op, typ string) *atomic.Uint64 {
	k := errorKey{op, typ}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.errors[k]
	if c == nil {
		c = new(atomic.Uint64)
		r.errors[k] = c
	}
	return c
}

// Write writes the request families: kura_requests_total,
// kura_request_errors_total and kura_request_duration_seconds, operations
// that served nothing yet left out.
func (r *Requests) Write(w *Writer) {
	ops := make([]*op, 0, len(r.ops)+1)
	for _, o := range r.ops {
		if o.count.Load() > 0 {
			ops = append(ops, o)
		}
	}
	if r.unknown.count.Load() > 0 {
		ops = append(ops, &r.unknown)
	}
	slices.SortFunc(ops, func(a, b *op) int { return strings.Compare(a.name, b.name) })

	w.Family("kura_requests_total", "counter", "Requests answered, by operation (errors included).")
	for _, o := range ops {
		w.Sample("kura_requests_total", float64(o.count.Load()), "operation", o.name)
	}

	type errorCount struct {
		errorKey
		n *atomic.Uint64
	}
	r.mu.Lock()
	errs := make([]errorCount, 0, len(r.errors))
	for k, n := range r.errors {
		errs = append(errs, errorCount{k, n})
	}
	r.mu.Unlock()
	slices.SortFunc(errs, func(a, b errorCount) int {
		return cmp.Or(strings.Compare(a.op, b.op), strings.Compare(a.typ, b.typ))
	})
	w.Family("kura_request_errors_total", "counter", "Requests answered with an error, by operation and DynamoDB error type.")
	for _, e := range errs {
		w.Sample("kura_request_errors_total", float64(e.n.Load()), "operation", e.op, "type", e.typ)
	}

	w.Family("kura_request_duration_seconds", "histogram", "Time from a request's body read to its answer ready to be written, by operation.")
	for _, o := range ops {
		// Read the buckets first: a request counted meanwhile shows in
		// +Inf (the count) at worst, never makes a bucket exceed it.
		var cum uint64
		for i, b := range bounds {
			cum += o.buckets[i].Load()
			w.Sample("kura_request_duration_seconds_bucket", float64(cum), "operation", o.name, "le", strconv.FormatFloat(b, 'g', -1, 64))
		}
		n := max(o.count.Load(), cum+o.buckets[len(bounds)].Load())
		w.Sample("kura_request_duration_seconds_bucket", float64(n), "operation", o.name, "le", "+Inf")
		w.Sample("kura_request_duration_seconds_sum", float64(o.nanos.Load())/1e9, "operation", o.name)
		w.Sample("kura_request_duration_seconds_count", float64(n), "operation", o.name)
	}
}
