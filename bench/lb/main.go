// Command lb is a round-robin HTTP load balancer for benchmarks: it sends
// each request to the next of its backends in turn, as an HTTP load
// balancer in front of several `kura --cluster` nodes would. It is a
// benchmark tool, not part of the server (bench/nodes.sh puts it in front
// of every configuration it measures, one node included, so its cost is
// the same in each).
//
// It prints the address it listens on (a free loopback port unless
// --listen names one) on its first line of output, then serves until
// killed.
//
//	go run ./bench/lb http://127.0.0.1:8301 http://127.0.0.1:8302
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: lb [--listen ADDR] BACKEND_URL...")
		os.Exit(2)
	}
	transport := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 256}
	var proxies []*httputil.ReverseProxy
	for _, raw := range flag.Args() {
		u, err := url.Parse(raw)
		if err != nil {
			log.Fatalf("lb: backend %q: %v", raw, err)
		}
		p := httputil.NewSingleHostReverseProxy(u)
		p.Transport = transport
		proxies = append(proxies, p)
	}
	var next atomic.Uint64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[(next.Add(1)-1)%uint64(len(proxies))].ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, handler))
}
