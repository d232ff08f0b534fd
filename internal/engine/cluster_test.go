package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/postgres"
	"github.com/kura-db/kura/internal/wire"
)

// The nodes of a cluster in one process (Config.Cluster): N engines on one
// store, each on a connection of its own as separate processes would be.
// Every test runs on the memory store and, when KURA_TEST_POSTGRES names a
// database, on PostgreSQL (each node through a pool and a lazy-transaction
// oracle of its own). The item cache is asked for and must stay off.

// clusterBackends are the stores the cluster tests run on: open returns n
// stores of one fresh namespace.
func clusterBackends(t *testing.T) map[string]func(t *testing.T, n int) []storage.Store {
	bs := map[string]func(t *testing.T, n int) []storage.Store{
		"memory": func(t *testing.T, n int) []storage.Store {
			s := memory.New()
			t.Cleanup(func() { s.Close() })
			out := make([]storage.Store, n)
			for i := range out {
				out[i] = s
			}
			return out
		},
	}
	url := os.Getenv("KURA_TEST_POSTGRES")
	if url == "" {
		if os.Getenv("KURA_REQUIRE_POSTGRES") == "1" {
			t.Fatal("KURA_REQUIRE_POSTGRES=1 but KURA_TEST_POSTGRES is unset")
		}
		return bs
	}
	bs["postgres"] = func(t *testing.T, n int) []storage.Store {
		ns := fmt.Sprintf("nodes-%d-%d", os.Getpid(), time.Now().UnixNano())
		out := make([]storage.Store, n)
		for i := range out {
			c, err := postgres.Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.SharedStore(ns)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close(); c.Close() })
			out[i] = s
		}
		return out
	}
	return bs
}

// forEachCluster runs f on n cluster-mode engines of each backend.
func forEachCluster(t *testing.T, n int, f func(t *testing.T, nodes []*Engine)) {
	for name, open := range clusterBackends(t) {
		t.Run(name, func(t *testing.T) {
			var nodes []*Engine
			for _, s := range open(t, n) {
				e, err := Open(s, Config{Cluster: true, ItemCacheBytes: 1 << 20, TTLInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				nodes = append(nodes, e)
			}
			f(t, nodes)
		})
	}
}

// anyNode picks a node at random.
func anyNode(nodes []*Engine) *Engine { return nodes[rand.IntN(len(nodes))] }

// run starts workers goroutines running f(worker) and waits for them,
// failing the test on the first error any returns.
func run(t *testing.T, workers int, f func(w int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(w); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func numberOf(it attr.Item, name string) int {
	n, _ := strconv.Atoi(it[name].Str)
	return n
}

// TestClusterCounters: a table created through one node serves on the
// others at once (a node that does not know it looks in the store), and
// increments sent to random nodes are all kept. Seen failing with the
// item cache left on in cluster mode (itemCacheBudget): each node's
// cached item is stale once another wrote it, and increments were lost.
func TestClusterCounters(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		dpTable(t, nodes[0], "c", "pk:S")
		const workers, each = 6, 20
		run(t, workers, func(int) error {
			for range each {
				_, err := anyNode(nodes).UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("c"),
					Key: attr.Item{"pk": dpS("k")}, UpdateExpression: dpStr("ADD n :one"),
					ExpressionAttributeValues: attr.Item{":one": dpN("1")}})
				if err != nil {
					return err
				}
			}
			return nil
		})
		for i, e := range nodes {
			if got := numberOf(dpGet(t, e, "c", attr.Item{"pk": dpS("k")}), "n"); got != workers*each {
				t.Fatalf("node %d reads n = %d after %d increments", i, got, workers*each)
			}
		}
	})
}

// TestClusterVersionedUpdates: optimistic locking (read the version, write
// if it is unchanged) through random nodes: exactly the writes that
// succeeded are counted in the final version.
func TestClusterVersionedUpdates(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		dpTable(t, nodes[1], "v", "pk:S")
		dpPut(t, nodes[2], "v", attr.Item{"pk": dpS("k"), "ver": dpN("0")})
		var won atomic.Int64
		run(t, 6, func(int) error {
			for range 15 {
				cur := dpGet(t, anyNode(nodes), "v", attr.Item{"pk": dpS("k")})
				v := numberOf(cur, "ver")
				_, err := anyNode(nodes).PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("v"),
					Item:                      attr.Item{"pk": dpS("k"), "ver": dpN(strconv.Itoa(v + 1))},
					ConditionExpression:       dpStr("ver = :v"),
					ExpressionAttributeValues: attr.Item{":v": dpN(strconv.Itoa(v))}})
				var de *ddberr.Error
				switch {
				case err == nil:
					won.Add(1)
				case errors.As(err, &de) && de.Type == "ConditionalCheckFailedException":
				default:
					return err
				}
			}
			return nil
		})
		if got := numberOf(dpGet(t, nodes[0], "v", attr.Item{"pk": dpS("k")}), "ver"); int64(got) != won.Load() {
			t.Fatalf("version %d after %d successful version-checked writes", got, won.Load())
		}
	})
}

// TestClusterBankTransfers: transfers between accounts as transactions on
// random nodes, and readers on random nodes reading every account in one
// TransactGetItems: no reader ever sees money created or lost, and the
// total holds at the end.
func TestClusterBankTransfers(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		const accounts, start = 5, 100
		dpTable(t, nodes[0], "bank", "acct:S")
		key := func(i int) attr.Item { return attr.Item{"acct": dpS("a" + strconv.Itoa(i))} }
		for i := range accounts {
			dpPut(t, anyNode(nodes), "bank", attr.Item{"acct": dpS("a" + strconv.Itoa(i)), "bal": dpN(strconv.Itoa(start))})
		}
		var stop atomic.Bool
		var readers sync.WaitGroup
		var bad atomic.Value
		for range 2 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for !stop.Load() {
					var gets []wire.TransactGetItem
					for i := range accounts {
						gets = append(gets, wire.TransactGetItem{Get: &wire.Get{TableName: dpStr("bank"), Key: key(i)}})
					}
					out, err := anyNode(nodes).TransactGetItems(dpCtx, &wire.TransactGetItemsInput{TransactItems: gets})
					if err != nil {
						continue // cancelled by a transfer in flight on that node
					}
					sum := 0
					for _, r := range out.Responses {
						sum += numberOf(r.Item, "bal")
					}
					if sum != accounts*start {
						bad.Store(fmt.Sprintf("a reader saw a total of %d, want %d", sum, accounts*start))
					}
				}
			}()
		}
		run(t, 4, func(int) error {
			for range 15 {
				from, to := rand.IntN(accounts), rand.IntN(accounts-1)
				if to >= from {
					to++
				}
				amt := dpN(strconv.Itoa(1 + rand.IntN(30)))
				_, err := anyNode(nodes).TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
					{Update: &wire.Update{TableName: dpStr("bank"), Key: key(from), UpdateExpression: dpStr("SET bal = bal - :a"),
						ConditionExpression: dpStr("bal >= :a"), ExpressionAttributeValues: attr.Item{":a": amt}}},
					{Update: &wire.Update{TableName: dpStr("bank"), Key: key(to), UpdateExpression: dpStr("SET bal = bal + :a"),
						ExpressionAttributeValues: attr.Item{":a": amt}}},
				}})
				var de *ddberr.Error
				if err != nil && !(errors.As(err, &de) && de.Type == "TransactionCanceledException") {
					return err
				}
			}
			return nil
		})
		stop.Store(true)
		readers.Wait()
		if msg := bad.Load(); msg != nil {
			t.Fatal(msg)
		}
		sum := 0
		for i := range accounts {
			sum += numberOf(dpGet(t, nodes[1], "bank", key(i)), "bal")
		}
		if sum != accounts*start {
			t.Fatalf("total %d after the transfers, want %d", sum, accounts*start)
		}
	})
}

// TestClusterIndexAddedOnAnotherNode: a GSI added through node A is
// maintained by writes through node B, which had the table cached without
// it, from the moment it is CREATING; a table deleted through A is gone
// for B's writes and listing at once. Seen failing with checkCatalog disabled: B wrote
// with its cached definition, and the index missed its items.
func TestClusterIndexAddedOnAnotherNode(t *testing.T) {
	forEachCluster(t, 2, func(t *testing.T, nodes []*Engine) {
		a, b := nodes[0], nodes[1]
		dpTable(t, a, "g", "pk:S")
		dpPut(t, b, "g", attr.Item{"pk": dpS("cached")}) // b now has the table, without the index
		if _, err := b.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
			{Put: &wire.Put{TableName: dpStr("g"), Item: attr.Item{"pk": dpS("cached2")}}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.UpdateTable(dpCtx, gsiUpdate("g", wire.GlobalSecondaryIndexUpdate{Create: &wire.CreateGlobalSecondaryIndexAction{
			IndexName: dpStr("byG"), KeySchema: ctlKS("g"), Projection: &wire.Projection{ProjectionType: ProjectAll}}})); err != nil {
			t.Fatal(err)
		}
		// A transaction through b first (txWrite.Conflict reloads its
		// tables), then single-item writes.
		if _, err := b.TransactWriteItems(dpCtx, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
			{Put: &wire.Put{TableName: dpStr("g"), Item: attr.Item{"pk": dpS("tx"), "g": dpS("x")}}}}}); err != nil {
			t.Fatal(err)
		}
		const n = 10
		for i := range n - 1 {
			dpPut(t, b, "g", attr.Item{"pk": dpS("p" + strconv.Itoa(i)), "g": dpS("x")})
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, err := a.Query(dpCtx, &wire.QueryInput{TableName: dpStr("g"), IndexName: dpStr("byG"),
				KeyConditionExpression: dpStr("g = :g"), ExpressionAttributeValues: attr.Item{":g": dpS("x")}})
			if err == nil && len(out.Items) == n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the index holds %v (err %v), want the %d items written through the other node", out, err, n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := a.DeleteTable(dpCtx, &wire.DeleteTableInput{TableName: dpStr("g")}); err != nil {
			t.Fatal(err)
		}
		_, err := b.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("g"), Item: attr.Item{"pk": dpS("late")}})
		dpWantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
		if out, err := b.ListTables(dpCtx, &wire.ListTablesInput{}); err != nil || len(out.TableNames) != 0 {
			t.Fatalf("ListTables through b after the table was deleted (no DeleteDelay) = %v, %v", out, err)
		}
	})
}

// TestClusterCreateRace: two nodes creating the same table names at once:
// for each name one succeeds, the other answers ResourceInUseException,
// and both nodes then describe the same table. Seen failing with
// storeNewTable's Get of the catalog key removed: the loser of the
// conflict retried and replaced the winner's table.
func TestClusterCreateRace(t *testing.T) {
	forEachCluster(t, 2, func(t *testing.T, nodes []*Engine) {
		const names = 20
		var ok, inUse atomic.Int32
		run(t, 2, func(w int) error {
			for i := range names {
				in := &wire.CreateTableInput{TableName: dpStr("race" + strconv.Itoa(i)), BillingMode: BillingPayPerRequest,
					KeySchema: ctlKS("pk"), AttributeDefinitions: ctlDefs("pk", "S")}
				_, err := nodes[w].CreateTable(dpCtx, in)
				var de *ddberr.Error
				switch {
				case err == nil:
					ok.Add(1)
				case errors.As(err, &de) && de.Type == "ResourceInUseException":
					inUse.Add(1)
				default:
					return err
				}
			}
			return nil
		})
		if ok.Load() != names || inUse.Load() != names {
			t.Fatalf("%d creations succeeded and %d were refused, want %d each", ok.Load(), inUse.Load(), names)
		}
		for i := range names {
			in := &wire.DescribeTableInput{TableName: dpStr("race" + strconv.Itoa(i))}
			d0, err0 := nodes[0].DescribeTable(dpCtx, in)
			d1, err1 := nodes[1].DescribeTable(dpCtx, in)
			if err0 != nil || err1 != nil || *d0.Table.TableId != *d1.Table.TableId {
				t.Fatalf("the nodes describe different tables: %v %v", err0, err1)
			}
		}
	})
}

// regInput and regOutput are the operations of the linearizability check:
// a consistent read, or a put of val, when conditional only if the item's
// value is cond ("": the item is absent).
type regInput struct {
	key              string
	put, conditional bool
	val, cond        string
}

type regOutput struct {
	val string // a read's value ("" when absent)
	ok  bool   // a put's outcome
}

// registerModel is a set of registers, one per key, whose puts may be
// conditional on the current value.
var registerModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[string][]porcupine.Operation{}
		for _, op := range h {
			k := op.Input.(regInput).key
			by[k] = append(by[k], op)
		}
		var out [][]porcupine.Operation
		for _, ops := range by {
			out = append(out, ops)
		}
		return out
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		in, out, cur := input.(regInput), output.(regOutput), state.(string)
		if !in.put {
			return out.val == cur, cur
		}
		if !in.conditional || in.cond == cur {
			return out.ok, in.val
		}
		return !out.ok, cur
	},
}

// TestClusterLinearizable records conditional puts and consistent reads
// of three keys sent to random nodes and checks the history with
// porcupine. Seen failing with the item cache left on in cluster mode: a
// node answered a read, and checked a condition, from its stale cache.
func TestClusterLinearizable(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		dpTable(t, nodes[0], "lin", "pk:S")
		var mu sync.Mutex
		var history []porcupine.Operation
		start := time.Now()
		run(t, 6, func(w int) error {
			for i := range 40 {
				key := "k" + strconv.Itoa(rand.IntN(3))
				e := anyNode(nodes)
				in := regInput{key: key, put: rand.IntN(2) == 0}
				var out regOutput
				call := time.Since(start).Nanoseconds()
				if in.put {
					in.val = fmt.Sprintf("%d.%d", w, i)
					put := &wire.PutItemInput{TableName: dpStr("lin"), Item: attr.Item{"pk": dpS(key), "v": dpS(in.val)}}
					if rand.IntN(2) == 0 { // conditional on a value seen recently
						it := dpGet(t, anyNode(nodes), "lin", attr.Item{"pk": dpS(key)})
						in.conditional = true
						if in.cond = it["v"].Str; in.cond == "" {
							put.ConditionExpression = dpStr("attribute_not_exists(v)")
						} else {
							put.ConditionExpression = dpStr("v = :c")
							put.ExpressionAttributeValues = attr.Item{":c": dpS(in.cond)}
						}
						call = time.Since(start).Nanoseconds()
					}
					_, err := e.PutItem(dpCtx, put)
					var de *ddberr.Error
					switch {
					case err == nil:
						out.ok = true
					case errors.As(err, &de) && de.Type == "ConditionalCheckFailedException":
					default:
						return err
					}
				} else {
					got, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("lin"), Key: attr.Item{"pk": dpS(key)}, ConsistentRead: dpBool(true)})
					if err != nil {
						return err
					}
					out.val = got.Item["v"].Str
				}
				ret := time.Since(start).Nanoseconds()
				mu.Lock()
				history = append(history, porcupine.Operation{ClientId: w, Input: in, Call: call, Output: out, Return: ret})
				mu.Unlock()
			}
			return nil
		})
		if res := porcupine.CheckOperationsTimeout(registerModel, history, 30*time.Second); res != porcupine.Ok {
			t.Fatalf("the history of %d operations is not linearizable (%v)", len(history), res)
		}
	})
}

// TestClusterStatistics: ItemCount counts the writes of every node, within
// the recount interval, on every node, and so does each GSI's ItemCount;
// only one node (the lease holder) recounts. Seen failing without
// startClusterRecount: node b counted only its own writes; without the
// lease leaseRecount: every node recounted; and without the index
// statistics in the recount: the GSI's count was each node's own writes.
func TestClusterStatistics(t *testing.T) {
	store := memory.New()
	defer store.Close()
	var nodes []*Engine
	for range 3 {
		e, err := Open(store, Config{Cluster: true, ClusterRecount: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		nodes = append(nodes, e)
	}
	if _, err := nodes[0].CreateTable(dpCtx, &wire.CreateTableInput{TableName: dpStr("st"), BillingMode: BillingPayPerRequest,
		AttributeDefinitions: ixDefs("pk", "S", "g", "S"), KeySchema: ixKS("pk", "HASH"),
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: dpStr("G"), KeySchema: ixKS("g", "HASH"), Projection: &wire.Projection{ProjectionType: ProjectAll}}},
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		dpPut(t, nodes[0], "st", attr.Item{"pk": dpS("a" + strconv.Itoa(i)), "g": dpS("x")})
	}
	dpPut(t, nodes[1], "st", attr.Item{"pk": dpS("b"), "g": dpS("y")})
	// Every node, in one pass, describes both counts as 4.
	deadline := time.Now().Add(5 * time.Second)
	for agreed := 0; agreed < len(nodes); {
		agreed = 0
		for i, e := range nodes {
			d, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr("st")})
			if err != nil {
				t.Fatal(err)
			}
			if *d.Table.ItemCount == 4 && len(d.Table.GlobalSecondaryIndexes) == 1 && cpDeref(d.Table.GlobalSecondaryIndexes[0].ItemCount) == 4 {
				agreed++
			} else if time.Now().After(deadline) {
				var gsi []int64
				for _, g := range d.Table.GlobalSecondaryIndexes {
					gsi = append(gsi, cpDeref(g.ItemCount))
				}
				t.Fatalf("node %d describes ItemCount %d, its GSI's %v; want 4 and 4", i, *d.Table.ItemCount, gsi)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // several more rounds
	recounting := 0
	for _, e := range nodes {
		if e.recounted.Load() > 0 {
			recounting++
		}
	}
	if recounting != 1 {
		t.Fatalf("%d nodes recounted, want 1", recounting)
	}
}

// TestClusterQueryNewIndex: a Query through node B names a GSI node A has
// just added (B's cached definition lacks it): B looks in the store rather
// than answering that the index does not exist. Seen failing without
// freshForIndex ("The table does not have the specified index: byG").
func TestClusterQueryNewIndex(t *testing.T) {
	forEachCluster(t, 2, func(t *testing.T, nodes []*Engine) {
		a, b := nodes[0], nodes[1]
		dpTable(t, a, "q", "pk:S")
		dpPut(t, b, "q", attr.Item{"pk": dpS("p"), "g": dpS("x")})
		if _, err := a.UpdateTable(dpCtx, gsiUpdate("q", wire.GlobalSecondaryIndexUpdate{Create: &wire.CreateGlobalSecondaryIndexAction{
			IndexName: dpStr("byG"), KeySchema: ctlKS("g"), Projection: &wire.Projection{ProjectionType: ProjectAll}}})); err != nil {
			t.Fatal(err)
		}
		query := &wire.QueryInput{TableName: dpStr("q"), IndexName: dpStr("byG"),
			KeyConditionExpression: dpStr("g = :g"), ExpressionAttributeValues: attr.Item{":g": dpS("x")}}
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := b.Query(dpCtx, query)
			var de *ddberr.Error
			if errors.As(err, &de) && strings.HasPrefix(de.Message, "The table does not have the specified index") {
				t.Fatalf("node b, which had the table cached: %v", err)
			}
			if err == nil {
				break
			}
			if time.Now().After(deadline) { // backfilling until a's backfill ends
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
