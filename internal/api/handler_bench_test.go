package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/metrics"
	"github.com/kura-db/kura/internal/storage/memory"
)

// The handler benchmarks drive the whole request path in process — HTTP
// handler, JSON decoding, validation, the real engine on the memory
// backend, JSON encoding, CRC32 — with request bodies shaped like
// ddbbench's (10 000 items of about 1 KB, key pk/sk). Run them with
//
//	go test ./internal/api/ -run XXX -bench Handler -benchmem

const benchItems = 1000

var benchPayload = strings.Repeat("x", 1000)

// benchRW is a reusable http.ResponseWriter that keeps nothing.
type benchRW struct {
	h      http.Header
	status int
	n      int
}

func (w *benchRW) Header() http.Header { return w.h }
func (w *benchRW) WriteHeader(s int)   { w.status = s }
func (w *benchRW) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}

// benchServer returns a server on a fresh in-memory engine with a loaded
// table "bench".
func benchServer(b *testing.B, opts api.Options, ecfg engine.Config) *api.Server {
	b.Helper()
	eng, err := engine.Open(memory.New(), ecfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	s := api.NewServer(eng, opts)
	call(b, s, "CreateTable", `{"TableName":"bench","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`)
	for i := 0; i < benchItems; i += 25 {
		var reqs []string
		for j := i; j < i+25; j++ {
			reqs = append(reqs, `{"PutRequest":{"Item":`+benchItem(j)+`}}`)
		}
		call(b, s, "BatchWriteItem", `{"RequestItems":{"bench":[`+strings.Join(reqs, ",")+`]}}`)
	}
	return s
}

// benchItem is item i: partition A#<i/100>, sort key <i%100>, ~1 KB.
func benchItem(i int) string {
	return fmt.Sprintf(`{"pk":{"S":"A#%03d"},"sk":{"S":"%05d"},"n":{"N":"%d"},"payload":{"S":"%s"}}`,
		i/100, i%100, i, benchPayload)
}

func call(b *testing.B, s *api.Server, op, body string) {
	b.Helper()
	w := &benchRW{h: http.Header{}}
	req, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	s.ServeHTTP(w, req)
	if w.status != http.StatusOK {
		b.Fatalf("%s: status %d", op, w.status)
	}
}

// runHandler benchmarks one operation; body returns the request body of
// iteration i.
func runHandler(b *testing.B, op string, body func(i int) string) {
	runHandlerWith(b, api.Options{}, engine.Config{}, op, body)
}

// withMetrics are the options and engine configuration --metrics sets:
// request counters, and capacity metered per table.
var withMetrics = api.Options{Requests: metrics.NewRequests(api.Targets())}

func runHandlerWith(b *testing.B, opts api.Options, ecfg engine.Config, op string, body func(i int) string) {
	s := benchServer(b, opts, ecfg)
	const n = 64
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = []byte(body(i))
	}
	w := &benchRW{h: http.Header{}}
	req, _ := http.NewRequest(http.MethodPost, "/", nil)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rd := new(bytes.Reader)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := bodies[i%n]
		rd.Reset(body)
		req.Body = readCloser{rd}
		req.ContentLength = int64(len(body))
		clear(w.h)
		w.status = 0
		s.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("%s: status %d", op, w.status)
		}
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func BenchmarkGetItemHandler(b *testing.B) {
	runHandler(b, "GetItem", func(i int) string {
		k := (i * 37) % benchItems
		return fmt.Sprintf(`{"TableName":"bench","Key":{"pk":{"S":"A#%03d"},"sk":{"S":"%05d"}}}`, k/100, k%100)
	})
}

// BenchmarkGetItemHandlerMetrics is BenchmarkGetItemHandler with
// --metrics on (request counters, capacity meters): their cost per request.
func BenchmarkGetItemHandlerMetrics(b *testing.B) {
	runHandlerWith(b, withMetrics, engine.Config{MeterCapacity: true}, "GetItem", func(i int) string {
		k := (i * 37) % benchItems
		return fmt.Sprintf(`{"TableName":"bench","Key":{"pk":{"S":"A#%03d"},"sk":{"S":"%05d"}}}`, k/100, k%100)
	})
}

func BenchmarkPutItemHandler(b *testing.B) {
	runHandler(b, "PutItem", func(i int) string {
		return `{"TableName":"bench","Item":` + benchItem((i*37)%benchItems) + `}`
	})
}

// BenchmarkPutItemHandlerMetrics is BenchmarkPutItemHandler with
// --metrics on: a write's capacity is worked out (its index shares
// included) and metered.
func BenchmarkPutItemHandlerMetrics(b *testing.B) {
	runHandlerWith(b, withMetrics, engine.Config{MeterCapacity: true}, "PutItem", func(i int) string {
		return `{"TableName":"bench","Item":` + benchItem((i*37)%benchItems) + `}`
	})
}

func BenchmarkQueryHandler(b *testing.B) {
	runHandler(b, "Query", func(i int) string {
		return fmt.Sprintf(`{"TableName":"bench","KeyConditionExpression":"pk = :p AND begins_with(sk, :s)",`+
			`"ExpressionAttributeValues":{":p":{"S":"A#%03d"},":s":{"S":"0"}},"Limit":25}`, i%(benchItems/100))
	})
}

func BenchmarkBatchWriteItemHandler(b *testing.B) {
	runHandler(b, "BatchWriteItem", func(i int) string {
		var reqs []string
		for j := 0; j < 25; j++ {
			reqs = append(reqs, `{"PutRequest":{"Item":`+benchItem((i*25+j)%benchItems)+`}}`)
		}
		return `{"RequestItems":{"bench":[` + strings.Join(reqs, ",") + `]}}`
	})
}

func BenchmarkUpdateItemHandler(b *testing.B) {
	runHandler(b, "UpdateItem", func(i int) string {
		k := (i * 37) % benchItems
		return fmt.Sprintf(`{"TableName":"bench","Key":{"pk":{"S":"A#%03d"},"sk":{"S":"%05d"}},`+
			`"UpdateExpression":"SET #c = #c + :one","ExpressionAttributeNames":{"#c":"n"},`+
			`"ExpressionAttributeValues":{":one":{"N":"1"}},"ReturnValues":"UPDATED_NEW"}`, k/100, k%100)
	})
}
