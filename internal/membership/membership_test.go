package membership

import (
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage/memory"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestMembership: nodes that join are listed with their records; a node
// that leaves is not; a node whose heartbeat stopped (a crash: no Leave)
// drops out after TTL and its record is swept by the next Join.
func TestMembership(t *testing.T) {
	store := memory.New()
	defer store.Close()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	a, err := Join(store, "10.0.0.1:8000", clock)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Join(store, "10.0.0.2:8000", clock)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := List(store, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("List = %+v, want two nodes", nodes)
	}
	for _, n := range nodes {
		if n.Host == "" || n.PID == 0 || (n.ID == a.ID()) != (n.Address == "10.0.0.1:8000") {
			t.Fatalf("node record %+v", n)
		}
	}
	if err := b.Leave(); err != nil {
		t.Fatal(err)
	}
	if nodes, _ := List(store, clock.Now()); len(nodes) != 1 || nodes[0].ID != a.ID() {
		t.Fatalf("after b left: %+v", nodes)
	}
	// a "crashes": its heartbeat stops (Leave would delete the record).
	close(a.stop)
	<-a.done
	clock.add(TTL)
	if nodes, _ := List(store, clock.Now()); len(nodes) != 0 {
		t.Fatalf("a node past its TTL is listed: %+v", nodes)
	}
	c, err := Join(store, "10.0.0.3:8000", clock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Leave()
	all, err := read(store)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].ID != c.ID() {
		t.Fatalf("records after a Join swept = %+v, want only the new node's", all)
	}
}

// TestHeartbeat: a live node's record is renewed, so it stays listed past TTL.
func TestHeartbeat(t *testing.T) {
	defer func(h, l time.Duration) { Heartbeat, TTL = h, l }(Heartbeat, TTL)
	Heartbeat, TTL = 10*time.Millisecond, 200*time.Millisecond
	store := memory.New()
	defer store.Close()
	m, err := Join(store, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Leave()
	time.Sleep(300 * time.Millisecond)
	if nodes, _ := List(store, time.Now()); len(nodes) != 1 {
		t.Fatalf("a heartbeating node past TTL: %+v", nodes)
	}
}
