// Package throttle owns the token buckets of throughput enforcement
// (Config.Throttle): one read and one write bucket per limited table or
// GSI, filling at its provisioned (or on-demand maximum) units per second
// and holding up to Burst of unused capacity (one second's for an
// on-demand maximum), and the error a refused request gets. It is the
// quota check the core's write and read paths pass through, the way
// etcd's quota applier wraps its applier: the core asks Admit before a
// request and Charges what the request consumed after it, with the Limits
// it reads off its table definitions; the package never imports
// internal/engine.
//
// State in memory: the buckets, by table ID, GSI name and side. They are
// not stored and not rebuilt: after a restart every bucket starts full
// (as after a table's creation), which at most grants one burst early.
// Another node keeps buckets of its own, so a table served by n nodes
// could take n times its capacity; sharing them would need a common
// counter.
package throttle
