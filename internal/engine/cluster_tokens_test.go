package engine

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// atomicClock is a clock tests move while other goroutines read it.
type atomicClock struct{ ns atomic.Int64 }

func (c *atomicClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *atomicClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// TestClusterTransactTokens: a TransactWriteItems ClientRequestToken is
// shared by the nodes: a repeat through another node is not applied
// again, another request with the token gets the mismatch from any node,
// concurrent repeats through random nodes apply once, and the token is
// free again after its ten minutes (its record swept after that). Seen
// failing with the tokens kept per node (shareTokens not called): the
// repeat through node 1 was applied a second time (n = 2).
func TestClusterTransactTokens(t *testing.T) {
	for name, open := range clusterBackends(t) {
		t.Run(name, func(t *testing.T) {
			clk := &atomicClock{}
			clk.ns.Store(time.Unix(1_700_000_000, 0).UnixNano())
			var nodes []*Engine
			var stores []storage.Store
			for _, s := range open(t, 3) {
				e, err := Open(s, Config{Cluster: true, Clock: clk, TTLInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				nodes, stores = append(nodes, e), append(stores, s)
			}
			dpTable(t, nodes[0], "t", "pk:S")
			in := func(token, by string) *wire.TransactWriteItemsInput {
				return &wire.TransactWriteItemsInput{ClientRequestToken: dpStr(token), ReturnConsumedCapacity: "TOTAL",
					TransactItems: []wire.TransactWriteItem{{Update: &wire.Update{TableName: dpStr("t"),
						Key: attr.Item{"pk": dpS(token)}, UpdateExpression: dpStr("ADD n :by"),
						ExpressionAttributeValues: attr.Item{":by": dpN(by)}}}}}
			}
			n := func(token string) int { return numberOf(dpGet(t, nodes[2], "t", attr.Item{"pk": dpS(token)}), "n") }

			if _, err := nodes[0].TransactWriteItems(dpCtx, in("a", "1")); err != nil {
				t.Fatal(err)
			}
			out, err := nodes[1].TransactWriteItems(dpCtx, in("a", "1"))
			if err != nil || n("a") != 1 {
				t.Fatalf("repeat through another node: %v, n = %d", err, n("a"))
			}
			// A repeat reads the items instead (2 read units, txReplayCapacity).
			if cc := out.ConsumedCapacity; len(cc) != 1 || *cc[0].CapacityUnits != 2 {
				t.Fatalf("a repeat's capacity %+v", cc)
			}
			for _, e := range nodes {
				if _, err := e.TransactWriteItems(dpCtx, in("a", "2")); !errors.Is(err, ddberr.IdempotentParameterMismatch("")) ||
					ddberr.As(err).Message != transact.MsgTokenMismatch {
					t.Fatalf("another request with the token: %v", err)
				}
			}

			run(t, 6, func(int) error {
				_, err := anyNode(nodes).TransactWriteItems(dpCtx, in("b", "1"))
				return err
			})
			if got := n("b"); got != 1 {
				t.Fatalf("concurrent repeats through random nodes applied %d times", got)
			}

			clk.advance(transact.TokenTTL)
			if _, err := nodes[1].TransactWriteItems(dpCtx, in("a", "2")); err != nil || n("a") != 3 {
				t.Fatalf("after the window: %v, n = %d", err, n("a"))
			}
			clk.advance(transact.TokenTTL)
			if err := nodes[2].tx.SweepTokens(); err != nil {
				t.Fatal(err)
			}
			snap, err := stores[0].NewSnapshot()
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			for _, tok := range []string{"a", "b"} {
				if _, err := snap.Get([]byte(transact.TokenPrefix + tok)); !errors.Is(err, storage.ErrNotFound) {
					t.Fatalf("token %s's record after the sweep: %v", tok, err)
				}
			}
		})
	}
}
