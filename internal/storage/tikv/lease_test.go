package tikv

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/oracle"

	"github.com/kura-db/kura/internal/storage"

	"github.com/kura-db/kura/internal/storage/internal/holder"
)

// leaseCluster starts a mock cluster with lease timings short enough for
// tests (restored when the test ends).
func leaseCluster(t *testing.T, ttl, renew, wait time.Duration) *Cluster {
	t.Helper()
	oldTTL, oldRenew, oldWait := holder.TTL, holder.Renew, holder.Wait
	holder.TTL, holder.Renew, holder.Wait = ttl, renew, wait
	t.Cleanup(func() { holder.TTL, holder.Renew, holder.Wait = oldTTL, oldRenew, oldWait })
	return NewCluster(mockCluster(t))
}

// plantLease writes a lease record as another server would, expiring
// after the given time from the cluster's now.
func plantLease(t *testing.T, c *Cluster, namespace string, rec leaseRecord, expiresIn time.Duration) {
	t.Helper()
	txn, err := c.kv.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rec.Expires = oracle.ExtractPhysical(txn.StartTS()) + expiresIn.Milliseconds()
	b, _ := json.Marshal(rec)
	_ = txn.Set([]byte("kura-lease/"+namespace), b)
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func leaseExists(t *testing.T, c *Cluster, namespace string) bool {
	t.Helper()
	ts, _ := c.kv.CurrentTimestamp("global")
	_, err := c.kv.GetSnapshot(ts).Get(context.Background(), []byte("kura-lease/"+namespace))
	if err != nil && !tikverr.IsErrNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func TestLeaseOneServerPerNamespace(t *testing.T) {
	c := leaseCluster(t, time.Second, 100*time.Millisecond, 300*time.Millisecond)
	first, err := c.Store("ns")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Store("ns"); !errors.Is(err, ErrNamespaceInUse) {
		t.Fatalf("second store of a held namespace: %v, want ErrNamespaceInUse", err)
	}
	other, err := c.Store("other")
	if err != nil {
		t.Fatalf("another namespace: %v", err)
	}
	_ = other.Close()
	// Renewals keep the lease past its TTL.
	time.Sleep(1500 * time.Millisecond)
	if _, err := c.Store("ns"); !errors.Is(err, ErrNamespaceInUse) {
		t.Fatalf("after the TTL, with renewals: %v, want ErrNamespaceInUse", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if leaseExists(t, c, "ns") {
		t.Fatal("Close left the lease")
	}
	again, err := c.Store("ns")
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	_ = again.Close()
}

func TestLeaseTakeOver(t *testing.T) {
	c := leaseCluster(t, time.Second, 100*time.Millisecond, 3*time.Second)
	host, _ := os.Hostname()

	// Another host's lease that lapses in 500 ms: waited out.
	plantLease(t, c, "lapsing", leaseRecord{Owner: "x", Host: "elsewhere", PID: os.Getpid()}, 500*time.Millisecond)
	start := time.Now()
	s, err := c.Store("lapsing")
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("took another host's live lease after %v", waited)
	}
	_ = s.Close()

	// This host's lease of a process that is gone (kill -9): taken at once.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to make a finished process:", err)
	}
	plantLease(t, c, "crashed", leaseRecord{Owner: "y", Host: host, PID: cmd.Process.Pid}, time.Hour)
	start = time.Now()
	s, err = c.Store("crashed")
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 500*time.Millisecond {
		t.Errorf("waited %v for the lease of a finished process", waited)
	}
	_ = s.Close()
}

func TestLeaseLost(t *testing.T) {
	c := leaseCluster(t, time.Second, 50*time.Millisecond, 300*time.Millisecond)
	s, err := c.Store("ns")
	if err != nil {
		t.Fatal(err)
	}
	plantLease(t, c, "ns", leaseRecord{Owner: "thief", Host: "elsewhere", PID: 1}, time.Hour)
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, err := s.NewSnapshot()
		if errors.Is(err, storage.ErrClosed) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the store still serves after its lease was taken")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after losing the lease: %v", err)
	}
	if !leaseExists(t, c, "ns") {
		t.Fatal("Close deleted the other server's lease")
	}
	if err := s.Close(); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

// TestLeaseShared: the nodes of a cluster (SharedStore) serve one
// namespace together and keep a single server out; their lease outlives a
// node's Close (the others may still serve) and lapses after its TTL; a
// single server's namespace keeps cluster nodes out.
func TestLeaseShared(t *testing.T) {
	c := leaseCluster(t, time.Second, 100*time.Millisecond, 300*time.Millisecond)
	a, err := c.SharedStore("ns")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.SharedStore("ns")
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	if _, err := c.Store("ns"); !errors.Is(err, ErrNamespaceInUse) {
		t.Fatalf("single server on the cluster's namespace: %v, want ErrNamespaceInUse", err)
	}
	_ = a.Close()
	_ = b.Close()
	if !leaseExists(t, c, "ns") {
		t.Fatal("a node's Close deleted the shared lease")
	}
	time.Sleep(1100 * time.Millisecond)
	single, err := c.Store("ns")
	if err != nil {
		t.Fatalf("single server after the shared lease lapsed: %v", err)
	}
	defer single.Close()
	if _, err := c.SharedStore("ns"); !errors.Is(err, ErrNamespaceInUse) {
		t.Fatalf("cluster node on a single server's namespace: %v, want ErrNamespaceInUse", err)
	}
}
