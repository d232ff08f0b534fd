package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/engine"
)

// BenchmarkGetItemFastPath drives GetItem through the connection server
// (httpserver.go) on a loopback connection, as the SDKs reach it: one
// keep-alive connection, one request and its answer at a time. Client
// work is included (the same in every build), so compare builds by the
// difference.
func BenchmarkGetItemFastPath(b *testing.B) {
	s := benchServer(b, api.Options{}, engine.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := api.NewHTTPServer(s, api.HTTPConfig{})
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	const n = 64
	reqs := make([][]byte, n)
	for i := range reqs {
		body := fmt.Sprintf(`{"TableName":"bench","Key":{"pk":{"S":"A#%03d"},"sk":{"S":"%05d"}}}`, i/100, i%100)
		reqs[i] = []byte(fmt.Sprintf("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"+
			"X-Amz-Target: DynamoDB_20120810.GetItem\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Write(reqs[i%n]); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
