package test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// onCluster runs the servers the tests start on disk as clusterNodes
// `kura --cluster` processes on the PostgreSQL database at
// KURA_TEST_POSTGRES (KURA_TEST_STORAGE=cluster), sharing a namespace named
// after their --data-dir, behind a round-robin balancer in the test process
// whose address is the server's endpoint: each request goes to the next
// node. Servers started --in-memory stay one process in memory.
var onCluster = os.Getenv("KURA_TEST_STORAGE") == "cluster"

const clusterNodes = 3

// skipInCluster skips a test in the cluster run; why says what it needs
// that several nodes do not give (docs/running.md lists these tests).
func skipInCluster(t testing.TB, why string) {
	t.Helper()
	if onCluster {
		t.Skip("not in the cluster run: " + why)
	}
}

// hasFlag reports whether args hold the flag name (alone or name=value).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// startCluster starts clusterNodes nodes with these flags (the --data-dir
// among them naming their namespace) and the balancer in front of them.
func startCluster(wrapper, args []string) (*kura, error) {
	args = append(append([]string(nil), args...),
		"--cluster", "--postgres", os.Getenv("KURA_TEST_POSTGRES"), "--postgres-namespace", pgNamespace(dataDir(args)))
	k := &kura{log: &syncLog{}}
	var backends []*url.URL
	for range clusterNodes {
		n, err := startProcess(wrapper, args, k.log)
		if err != nil {
			k.eachNode((*kura).kill)
			return nil, err
		}
		k.nodes = append(k.nodes, n)
		u, _ := url.Parse(n.endpoint)
		backends = append(backends, u)
	}
	k.cmd = k.nodes[0].cmd
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		k.kill()
		return nil, err
	}
	k.endpoint = "http://" + ln.Addr().String()
	k.args = append([]string{"--listen", ln.Addr().String(), "--log-level", "warn"}, args...)
	k.lb = &http.Server{Handler: roundRobin(backends), ReadHeaderTimeout: 10 * time.Second}
	go k.lb.Serve(ln)
	if err := waitHealthy(k.endpoint, 10*time.Second); err != nil {
		k.kill()
		return nil, fmt.Errorf("the cluster's balancer did not answer: %v\n%s", err, k.log)
	}
	return k, nil
}

// roundRobin sends each request to the next backend in turn, as an HTTP
// load balancer in front of the nodes does (bench/lb is the same as a
// command). The Host header stays the client's, so signatures still match.
func roundRobin(backends []*url.URL) http.Handler {
	transport := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	var proxies []*httputil.ReverseProxy
	for _, u := range backends {
		p := httputil.NewSingleHostReverseProxy(u)
		p.Transport = transport
		p.FlushInterval = -1
		proxies = append(proxies, p)
	}
	var next atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[(next.Add(1)-1)%uint64(len(proxies))].ServeHTTP(w, r)
	})
}

// eachNode stops the balancer, then runs f (stop or kill) on every node at
// once.
func (k *kura) eachNode(f func(*kura)) {
	if k.lb != nil {
		k.lb.Close()
	}
	var wg sync.WaitGroup
	for _, n := range k.nodes {
		wg.Add(1)
		go func() { defer wg.Done(); f(n) }()
	}
	wg.Wait()
}

// waitDefinitions waits, in the cluster run, until every node's cached
// table definitions are no older than the last change: a data-plane read
// may use one up to 1 s old (docs/running.md, "Several nodes").
func waitDefinitions() {
	if onCluster {
		time.Sleep(1500 * time.Millisecond)
	}
}

// oneProcess is k, or in the cluster run its first node: for a test of
// what one process does with raw HTTP, which the balancer in front of the
// nodes (Go's reverse proxy) would rewrite.
func oneProcess(k *kura) *kura {
	if k.nodes != nil {
		return k.nodes[0]
	}
	return k
}

// countIs reports whether an ItemCount (of a table, an index or a backup's
// source) is want. In the cluster run any count passes: a node counts the
// other nodes' writes only at its recount every minute, and an index's
// count is the answering node's writes (docs/running.md, "Several nodes").
func countIs(got *int64, want int64) bool {
	return onCluster || got != nil && *got == want
}
