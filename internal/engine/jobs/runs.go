package jobs

import (
	"sync"

	"github.com/kura-db/kura/internal/storage"
)

// Claim is this node's hold on one job among the nodes sharing a store
// (the engine's lease "job/" + ARN, package lease): while it holds, no
// other node runs the job.
type Claim interface {
	// Fence checks, inside txn, that this node still holds the claim (a
	// takeover makes txn fail to commit).
	Fence(txn storage.Txn) error
	// Release gives the claim up.
	Release()
}

// Claimer claims the job arn for this node; false while another node
// holds it.
type Claimer func(arn string) (Claim, bool)

// Runs are the jobs of one kind running on this node, each under its
// claim. The zero Runs claims nothing (one node: every job is its own).
type Runs struct {
	claim   Claimer
	live    func(arn string) bool // the job's stored record still asks for a run
	mu      sync.Mutex
	running map[string]Claim // nil Claim: no claimer
}

// SetClaimer makes Start claim each job with c (nil: none), and then
// check with live that the job's record, as stored now, still asks for a
// run (another node may have finished it since this node read it).
func (r *Runs) SetClaimer(c Claimer, live func(arn string) bool) { r.claim, r.live = c, live }

// Start marks arn running here, claiming it first; false when it runs
// here already, another node holds it, or it no longer needs to run.
func (r *Runs) Start(arn string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.running[arn]; ok {
		return false
	}
	var c Claim
	if r.claim != nil {
		var ok bool
		if c, ok = r.claim(arn); !ok {
			return false
		}
		if r.live != nil && !r.live(arn) {
			c.Release()
			return false
		}
	}
	if r.running == nil {
		r.running = map[string]Claim{}
	}
	r.running[arn] = c
	return true
}

// Done ends arn's run here and releases its claim.
func (r *Runs) Done(arn string) {
	r.mu.Lock()
	c := r.running[arn]
	delete(r.running, arn)
	r.mu.Unlock()
	if c != nil {
		c.Release()
	}
}

// Running reports whether arn runs on this node.
func (r *Runs) Running(arn string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.running[arn]
	return ok
}

// fence checks the claim of arn inside txn when arn runs here.
func (r *Runs) fence(arn string, txn storage.Txn) error {
	r.mu.Lock()
	c := r.running[arn]
	r.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Fence(txn)
}

// Launch runs run for the job arn in the background (through goFn, the
// engine's) when this node can claim it, and ends the run's claim after
// it; false when the job runs here already or another node holds it.
func (r *Runs) Launch(goFn func(func()), arn string, run func()) bool {
	if !r.Start(arn) {
		return false
	}
	goFn(func() {
		defer r.Done(arn)
		run()
	})
	return true
}
