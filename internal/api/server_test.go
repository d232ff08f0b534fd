package api

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// fakeBackend implements a few operations; the others hit the nil embedded
// interface and panic, which the server must survive.
type fakeBackend struct {
	Backend
	listTables func(*wire.ListTablesInput) (*wire.ListTablesOutput, error)
	putItem    func(*wire.PutItemInput) (*wire.PutItemOutput, error)
}

func (f *fakeBackend) ListTables(_ context.Context, in *wire.ListTablesInput) (*wire.ListTablesOutput, error) {
	return f.listTables(in)
}

func (f *fakeBackend) PutItem(_ context.Context, in *wire.PutItemInput) (*wire.PutItemOutput, error) {
	return f.putItem(in)
}

func (f *fakeBackend) DescribeLimits(context.Context, *wire.DescribeLimitsInput) (*wire.DescribeLimitsOutput, error) {
	n := int64(40000)
	return &wire.DescribeLimitsOutput{AccountMaxReadCapacityUnits: &n}, nil
}

func (f *fakeBackend) DescribeEndpoints(context.Context, *wire.DescribeEndpointsInput) (*wire.DescribeEndpointsOutput, error) {
	return nil, nil
}

func newFake() *fakeBackend {
	return &fakeBackend{
		listTables: func(in *wire.ListTablesInput) (*wire.ListTablesOutput, error) {
			return &wire.ListTablesOutput{TableNames: []string{"a<b>", "t2"}}, nil
		},
		putItem: func(in *wire.PutItemInput) (*wire.PutItemOutput, error) {
			return &wire.PutItemOutput{}, nil
		},
	}
}

type resp struct {
	status int
	header http.Header
	raw    []byte // as sent
	body   []byte // decompressed
}

func do(t *testing.T, s http.Handler, target, body string, hdr ...string) resp {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	r := resp{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes(), body: rec.Body.Bytes()}
	if r.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(r.raw))
		if err != nil {
			t.Fatal(err)
		}
		if r.body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	checkCRC(t, r)
	return r
}

func checkCRC(t *testing.T, r resp) {
	t.Helper()
	want := strconv.FormatUint(uint64(crc32.ChecksumIEEE(r.raw)), 10)
	if got := r.header.Get("X-Amz-Crc32"); got != want {
		t.Errorf("X-Amz-Crc32 = %q, want %q", got, want)
	}
	if id := r.header.Get("X-Amzn-Requestid"); len(id) != 52 {
		t.Errorf("request id %q", id)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
		t.Errorf("Content-Type %q", ct)
	}
}

func errOf(t *testing.T, r resp) (typ, msg string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("error body %q: %v", r.body, err)
	}
	typ, _ = m["__type"].(string)
	msg, _ = m["message"].(string)
	return typ, msg
}

const tgt = "DynamoDB_20120810."

func TestRoutingAndEncoding(t *testing.T) {
	s := NewServer(newFake(), Options{})
	r := do(t, s, tgt+"ListTables", `{}`)
	if r.status != 200 || string(r.body) != `{"TableNames":["a<b>","t2"]}` {
		t.Fatalf("ListTables: %d %s", r.status, r.body)
	}
	r = do(t, s, tgt+"DescribeLimits", `{}`, "Content-Type", "application/x-amz-json-1.1")
	if r.status != 200 || string(r.body) != `{"AccountMaxReadCapacityUnits":40000}` {
		t.Fatalf("DescribeLimits: %d %s", r.status, r.body)
	}
	r = do(t, s, tgt+"DescribeEndpoints", `{}`)
	if r.status != 200 || string(r.body) != `{}` {
		t.Fatalf("nil output: %d %s", r.status, r.body)
	}
	if got := len(Operations()); got < 21 {
		t.Errorf("routes: %d operations", got)
	}
}

func TestHealth(t *testing.T) {
	s := NewServer(newFake(), Options{})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != 200 || rec.Body.String() != HealthText {
		t.Fatalf("GET /: %d %q", rec.Code, rec.Body.String())
	}
}

func TestUnknownOperation(t *testing.T) {
	s := NewServer(newFake(), Options{})
	for _, target := range []string{tgt + "Nope", "DynamoDB_20111205.ListTables", "", "ListTables"} {
		r := do(t, s, target, `{}`)
		typ, msg := errOf(t, r)
		if r.status != 400 || typ != "com.amazon.coral.service#UnknownOperationException" || msg != "" {
			t.Errorf("%q: %d %s", target, r.status, r.body)
		}
	}
	r := do(t, s, tgt+"ListTables", `{}`, "Content-Type", "text/plain")
	if typ, _ := errOf(t, r); r.status != 404 || typ != "com.amazon.coral.service#UnknownOperationException" {
		t.Errorf("bad content type: %d %s", r.status, r.body)
	}
}

func TestSerializationErrors(t *testing.T) {
	s := NewServer(newFake(), Options{})
	cases := []struct{ target, body, msg string }{
		{"ListTables", `{`, ""},
		{"ListTables", ``, ""},
		{"Nope", `{"a":`, ""},
		{"PutItem", `{"TableName":12}`, "NUMBER_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":false}`, "FALSE_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":["x"]}`, "Start of list found where not expected"},
		{"PutItem", `{"TableName":{}}`, "Start of structure or map found where not expected"},
		{"ListTables", `{"Limit":"5"}`, "STRING_VALUE can not be converted to an Integer"},
		{"ListTables", `{"Limit":1.5}`, "NUMBER_VALUE can not be converted to an Integer"},
		{"ListTables", `[]`, "Unexpected value type in payload"},
	}
	for _, c := range cases {
		r := do(t, s, tgt+c.target, c.body)
		typ, msg := errOf(t, r)
		if r.status != 400 || typ != "com.amazon.coral.service#SerializationException" || msg != c.msg {
			t.Errorf("%s %s: %d %s", c.target, c.body, r.status, r.body)
		}
	}
}

func TestOversizeBody(t *testing.T) {
	s := NewServer(newFake(), Options{MaxRequestBytes: 64})
	big := `{"TableName":"` + strings.Repeat("a", 100) + `"}`
	r := do(t, s, tgt+"ListTables", big)
	if typ, _ := errOf(t, r); r.status != 413 || typ != ddberr.RequestTooLarge().FullType() {
		t.Fatalf("oversize: %d %s", r.status, r.body)
	}
	// Unknown length (chunked): the limit applies while reading.
	req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("X-Amz-Target", tgt+"ListTables")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Fatalf("chunked oversize: %d %s", rec.Code, rec.Body)
	}
	if r := do(t, s, tgt+"ListTables", `{}`); r.status != 200 {
		t.Fatalf("small: %d", r.status)
	}
}

func TestPanicRecovery(t *testing.T) {
	s := NewServer(newFake(), Options{})
	r := do(t, s, tgt+"GetItem", `{"TableName":"tbl","Key":{}}`) // nil embedded Backend panics
	typ, msg := errOf(t, r)
	if r.status != 500 || typ != "com.amazonaws.dynamodb.v20120810#InternalServerError" || msg == "" {
		t.Fatalf("panic: %d %s", r.status, r.body)
	}
	if r := do(t, s, tgt+"ListTables", `{}`); r.status != 200 {
		t.Fatalf("after panic: %d", r.status)
	}
}

func TestGzip(t *testing.T) {
	s := NewServer(newFake(), Options{})
	r := do(t, s, tgt+"ListTables", `{}`, "Accept-Encoding", "gzip, deflate")
	if r.header.Get("Content-Encoding") != "gzip" || string(r.body) != `{"TableNames":["a<b>","t2"]}` {
		t.Fatalf("gzip: %v %s", r.header, r.body)
	}
	if r.header.Get("Content-Length") != strconv.Itoa(len(r.raw)) {
		t.Errorf("Content-Length %s for %d bytes", r.header.Get("Content-Length"), len(r.raw))
	}
	r = do(t, s, tgt+"ListTables", `{}`, "Accept-Encoding", "identity, gzip;q=0")
	if r.header.Get("Content-Encoding") != "" {
		t.Fatalf("gzip;q=0 honoured? %v", r.header)
	}
}

func TestErrorShape(t *testing.T) {
	f := newFake()
	s := NewServer(f, Options{})
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) {
		e := ddberr.ConditionalCheckFailed()
		e.Item = map[string]map[string]string{"pk": {"S": "a"}}
		return nil, e
	}
	r := do(t, s, tgt+"PutItem", `{"TableName":"tbl","Item":{}}`)
	want := `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed","Item":{"pk":{"S":"a"}}}`
	if r.status != 400 || string(r.body) != want {
		t.Fatalf("CCF: %d %s", r.status, r.body)
	}
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) {
		return nil, ddberr.TransactionCanceled("Transaction cancelled", []map[string]string{{"Code": "None"}})
	}
	r = do(t, s, tgt+"PutItem", `{"TableName":"tbl","Item":{}}`)
	want = `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"Transaction cancelled","CancellationReasons":[{"Code":"None"}]}`
	if string(r.body) != want {
		t.Fatalf("TCE: %s", r.body)
	}
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) { return nil, io.EOF }
	r = do(t, s, tgt+"PutItem", `{"TableName":"tbl","Item":{}}`)
	if typ, _ := errOf(t, r); r.status != 500 || typ != "com.amazonaws.dynamodb.v20120810#InternalServerError" {
		t.Fatalf("plain error: %d %s", r.status, r.body)
	}
}

func BenchmarkListTables(b *testing.B) {
	s := NewServer(newFake(), Options{})
	body := []byte(`{"Limit":10}`)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", tgt+"ListTables")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
	}
}
