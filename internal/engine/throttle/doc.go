// Package throttle owns throughput enforcement and capacity metering below
// the engine's core: the Quota (admission before a request, payment of
// what it consumed after, the meters of --metrics), the quota Applier the
// core wires around its write path at Open (etcd's appliers: a
// throttle.Writes wrapped by another), the read wrapper (Quota.Read) and a
// transaction's admission (AdmitAll, Reason), the limits a table
// description sets (LimitOf: provisioned capacity, or the on-demand
// maximum), the token buckets (one read and one write bucket per limited
// table or GSI, filling at its rate and holding up to Burst of unused
// capacity, one second's for an on-demand maximum) and the error a refused
// request gets. The core hands it its tables as Targets; the package never
// imports internal/engine.
//
// State in memory: the buckets, by table ID, GSI name and side, and the
// share of the nodes they enforce (SetNodes); the Meters, which the core
// keeps with each table's statistics. None is stored or rebuilt: after a
// restart every bucket starts full (as after a table's creation), which at
// most grants one burst early, and the meters count from zero.
//
// Another node sharing the store (cluster mode, issue #28): every node
// enforces its share, 1/n of each limit for the n live nodes of the
// store's membership, recounted by Follow (share.go says why shares rather
// than buckets in the store, and the accuracy bound). Meters stay per node.
package throttle
