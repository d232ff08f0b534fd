package api

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
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
	var zr io.Reader
	var err error
	switch r.header.Get("Content-Encoding") {
	case "gzip":
		zr, err = gzip.NewReader(bytes.NewReader(r.raw))
	case "deflate":
		zr, err = zlib.NewReader(bytes.NewReader(r.raw))
	}
	if err != nil {
		t.Fatal(err)
	}
	if zr != nil {
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
	if up, ok := m["Message"].(string); ok {
		msg = up
	}
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
	// DynamoDB names the endpoint the request was sent to, and answers
	// only at the root (ScyllaDB's Alternator tests, run against it).
	if rec.Code != 200 || rec.Body.String() != "healthy: example.com" || rec.Header().Get("Server") != "Server" {
		t.Fatalf("GET /: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
	for _, path := range []string{"/abc", "/health", "/index.htm"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 404 {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}
}

// TestHealthReportsStore checks that the health check answers 503 with the
// store's problem while Options.Health reports one (a nearly full disk, a
// failed store), for GET and HEAD, and 200 again once it is gone; and that
// a write refused for lack of disk space is an InternalServerError naming
// the cause, not the generic one.
func TestHealthReportsStore(t *testing.T) {
	var problem error = fmt.Errorf("%w: 10 MB available, minimum 128 MB", storage.ErrNoSpace)
	f := newFake()
	s := NewServer(f, Options{Health: func() error { return problem }})
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(method, "/", nil))
		want := ""
		if method == http.MethodGet {
			want = "unhealthy: storage: free disk space is below the minimum: 10 MB available, minimum 128 MB"
		}
		if rec.Code != http.StatusServiceUnavailable || rec.Body.String() != want {
			t.Fatalf("%s / with a problem: %d %q", method, rec.Code, rec.Body.String())
		}
	}
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) {
		return nil, fmt.Errorf("committing: %w", problem)
	}
	r := do(t, s, tgt+"PutItem", `{"TableName":"tab","Item":{"k":{"S":"a"}}}`)
	typ, msg := errOf(t, r)
	if r.status != 500 || typ != "com.amazonaws.dynamodb.v20120810#InternalServerError" ||
		msg != "Writes are refused: the server's data disk is nearly full (10 MB available, minimum 128 MB). Reads are still served; writes resume when disk space is freed." {
		t.Fatalf("a write refused for lack of space: %d %s", r.status, r.body)
	}
	problem = nil
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != 200 || rec.Body.String() != "healthy: example.com" {
		t.Fatalf("GET / once the problem is gone: %d %q", rec.Code, rec.Body.String())
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

// serBody is the exact error body of a SerializationException with text msg
// (the key is "Message"), or of a malformed body when msg is "".
func serBody(msg string) string {
	if msg == "" {
		return `{"__type":"com.amazon.coral.service#SerializationException"}`
	}
	return `{"__type":"com.amazon.coral.service#SerializationException","Message":"` + msg + `"}`
}

// TestSerializationErrors checks the exact SerializationException bodies
// for wrongly typed members, with DynamoDB's wording as re-checked against
// AWS by dynalite 4.0.0.
func TestSerializationErrors(t *testing.T) {
	const (
		startMap  = "Start of structure or map found where not expected"
		fieldType = "Unexpected field type"
		valueType = "Unexpected value type in payload"
		shapes    = "com.amazonaws.dynamodb.v20120810."
		avArray   = "Unrecognized collection type class " + shapes + "AttributeValue"
		itemArray = "Unrecognized collection type java.util.Map<java.lang.String, " + shapes + "AttributeValue>"
		badToken  = "Unexpected token received from parser"
	)
	s := NewServer(newFake(), Options{})
	cases := []struct{ target, body, msg string }{
		// Not JSON: no message at all.
		{"ListTables", `{`, ""},
		{"ListTables", ``, ""},
		{"ListTables", ` `, ""},
		{"Nope", `{"a":`, ""},
		{"PutItem", `{"TableName":"t",}`, ""},
		{"PutItem", `{"TableName":"t","Item":{"a":{"S":x}}}`, ""},
		// String.
		{"PutItem", `{"TableName":12}`, "NUMBER_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":2.0}`, "NUMBER_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":-1.5e1}`, "NUMBER_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":-1.5e-1}`, "DECIMAL_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":1.5}`, "DECIMAL_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":true}`, "TRUE_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":false}`, "FALSE_VALUE cannot be converted to String"},
		{"PutItem", `{"TableName":["x"]}`, "Unrecognized collection type class java.lang.String"},
		{"PutItem", `{"TableName":{}}`, startMap},
		{"PutItem", `{"ReturnValues":7}`, "NUMBER_VALUE cannot be converted to String"},
		// Integer.
		{"ListTables", `{"Limit":"5"}`, "STRING_VALUE cannot be converted to Integer"},
		{"ListTables", `{"Limit":true}`, "TRUE_VALUE cannot be converted to Integer"},
		{"ListTables", `{"Limit":[1]}`, "Unrecognized collection type class java.lang.Integer"},
		{"ListTables", `{"Limit":{"a":1}}`, startMap},
		// A fractional Integer is truncated (TestFractionalIntegers) unless
		// its integer part does not fit.
		{"ListTables", `{"Limit":3000000000.5}`, "DECIMAL_VALUE cannot be converted to Integer"},
		{"ListTables", `{"Limit":3000000000}`, "NUMBER_VALUE cannot be converted to Integer"},
		// Long.
		{"CreateTable", `{"ProvisionedThroughput":{"ReadCapacityUnits":"5"}}`, "STRING_VALUE cannot be converted to Long"},
		{"CreateTable", `{"ProvisionedThroughput":{"WriteCapacityUnits":false}}`, "FALSE_VALUE cannot be converted to Long"},
		{"CreateTable", `{"ProvisionedThroughput":{"ReadCapacityUnits":[]}}`, "Unrecognized collection type class java.lang.Long"},
		{"CreateTable", `{"ProvisionedThroughput":{"ReadCapacityUnits":{}}}`, startMap},
		// Boolean.
		{"GetItem", `{"ConsistentRead":1}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{"GetItem", `{"ConsistentRead":0.5}`, "DECIMAL_VALUE cannot be converted to Boolean"},
		{"GetItem", `{"ConsistentRead":"maybe"}`, badToken},
		{"GetItem", `{"ConsistentRead":[]}`, "Unrecognized collection type class java.lang.Boolean"},
		{"GetItem", `{"ConsistentRead":{}}`, startMap},
		// dynalite takes "true", "1", "yes" (and the false ones) here;
		// Kura refuses them with the text of other strings.
		{"GetItem", `{"ConsistentRead":"true"}`, badToken},
		// Lists.
		{"GetItem", `{"AttributesToGet":"a"}`, fieldType},
		{"GetItem", `{"AttributesToGet":1}`, fieldType},
		{"GetItem", `{"AttributesToGet":true}`, fieldType},
		{"GetItem", `{"AttributesToGet":{}}`, startMap},
		{"GetItem", `{"AttributesToGet":[1]}`, "NUMBER_VALUE cannot be converted to String"},
		{"CreateTable", `{"KeySchema":{"a":1}}`, startMap},
		{"CreateTable", `{"KeySchema":"HASH"}`, fieldType},
		{"CreateTable", `{"KeySchema":[5]}`, valueType},
		{"CreateTable", `{"KeySchema":["pk"]}`, valueType},
		{"CreateTable", `{"KeySchema":[[]]}`, "Unrecognized collection type class " + shapes + "KeySchemaElement"},
		{"CreateTable", `{"KeySchema":[{"KeyType":[]}]}`, "Unrecognized collection type class java.lang.String"},
		// Maps.
		{"PutItem", `{"ExpressionAttributeNames":"x"}`, fieldType},
		{"PutItem", `{"ExpressionAttributeNames":1}`, fieldType},
		{"PutItem", `{"ExpressionAttributeNames":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, java.lang.String>"},
		{"PutItem", `{"ExpressionAttributeNames":{"#a":1}}`, "NUMBER_VALUE cannot be converted to String"},
		{"PutItem", `{"Expected":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, " + shapes + "ExpectedAttributeValue>"},
		{"PutItem", `{"Expected":{"a":"x"}}`, valueType},
		{"PutItem", `{"Expected":{"a":[]}}`, "Unrecognized collection type class " + shapes + "ExpectedAttributeValue"},
		{"BatchWriteItem", `{"RequestItems":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, java.util.List<" + shapes + "WriteRequest>>"},
		{"BatchWriteItem", `{"RequestItems":{"t":{}}}`, startMap},
		{"BatchWriteItem", `{"RequestItems":{"t":[1]}}`, valueType},
		{"BatchGetItem", `{"RequestItems":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, " + shapes + "KeysAndAttributes>"},
		{"BatchGetItem", `{"RequestItems":{"t":5}}`, valueType},
		// Structures in structure members.
		{"CreateTable", `{"ProvisionedThroughput":5}`, fieldType},
		{"CreateTable", `{"ProvisionedThroughput":"x"}`, fieldType},
		{"CreateTable", `{"ProvisionedThroughput":[]}`, "Unrecognized collection type class " + shapes + "ProvisionedThroughput"},
		{"BatchWriteItem", `{"RequestItems":{"t":[{"PutRequest":true}]}}`, fieldType},
		{"BatchWriteItem", `{"RequestItems":{"t":[{"PutRequest":{"Item":[]}}]}}`, itemArray},
		// Items and AttributeValues.
		{"PutItem", `{"Item":"x"}`, fieldType},
		{"PutItem", `{"Item":3}`, fieldType},
		{"PutItem", `{"Item":[]}`, itemArray},
		{"PutItem", `{"Item":{"a":5}}`, valueType},
		{"PutItem", `{"Item":{"a":"x"}}`, valueType},
		{"PutItem", `{"Item":{"a":[]}}`, avArray},
		{"PutItem", `{"Item":{"a":{"S":5}}}`, "NUMBER_VALUE cannot be converted to String"},
		{"PutItem", `{"Item":{"a":{"N":5.5}}}`, "DECIMAL_VALUE cannot be converted to String"},
		{"PutItem", `{"Item":{"a":{"S":{}}}}`, startMap},
		{"PutItem", `{"Item":{"a":{"B":true}}}`, "only base-64-encoded strings are convertible to bytes"},
		{"PutItem", `{"Item":{"a":{"B":[]}}}`, "Unrecognized collection type class java.nio.ByteBuffer"},
		{"PutItem", `{"Item":{"a":{"B":"abc"}}}`, "Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
		{"PutItem", `{"Item":{"a":{"BOOL":"nah"}}}`, badToken},
		{"PutItem", `{"Item":{"a":{"BOOL":2}}}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{"PutItem", `{"Item":{"a":{"L":"x"}}}`, fieldType},
		{"PutItem", `{"Item":{"a":{"L":[5]}}}`, valueType},
		{"PutItem", `{"Item":{"a":{"M":[]}}}`, itemArray},
		{"PutItem", `{"Item":{"a":{"M":{"b":true}}}}`, valueType},
		{"PutItem", `{"Item":{"a":{"SS":{}}}}`, startMap},
		{"PutItem", `{"Expected":{"a":{"Value":"x"}}}`, fieldType},
		{"PutItem", `{"Expected":{"a":{"Value":1}}}`, fieldType},
		{"PutItem", `{"Expected":{"a":{"Value":[]}}}`, avArray},
		{"PutItem", `{"Expected":{"a":{"AttributeValueList":"x"}}}`, fieldType},
		{"PutItem", `{"Expected":{"a":{"AttributeValueList":["x"]}}}`, valueType},
		{"PutItem", `{"Expected":{"a":{"AttributeValueList":[[]]}}}`, avArray},
		{"PutItem", `{"Expected":{"a":{"Exists":"maybe"}}}`, badToken},
		{"UpdateItem", `{"AttributeUpdates":{"a":{"Value":false}}}`, fieldType},
		{"BatchGetItem", `{"RequestItems":{"t":{"Keys":["x"]}}}`, fieldType},
		{"BatchGetItem", `{"RequestItems":{"t":{"Keys":[[]]}}}`, itemArray},
		{"Query", `{"ExclusiveStartKey":true}`, fieldType},
		{"ExecuteStatement", `{"Parameters":[5]}`, valueType},
		{"ExecuteStatement", `{"Parameters":{}}`, startMap},
		// The body itself.
		{"ListTables", `[]`, valueType},
		{"ListTables", `5`, valueType},
		{"ListTables", `"x"`, valueType},
	}
	for _, c := range cases {
		r := do(t, s, tgt+c.target, c.body)
		if want := serBody(c.msg); r.status != 400 || string(r.body) != want {
			t.Errorf("%s %s:\n got %d %s\nwant 400 %s", c.target, c.body, r.status, r.body, want)
		}
	}
}

// TestDecodeTypeErrorTexts covers target kinds no DynamoDB operation input
// has here (Double, Short, Blob members).
func TestDecodeTypeErrorTexts(t *testing.T) {
	type inner struct {
		X *string `json:"X"`
	}
	type input struct {
		D *float64          `json:"D"`
		H *int16            `json:"H"`
		B []byte            `json:"B"`
		P *inner            `json:"P"`
		L []inner           `json:"L"`
		M map[string][]bool `json:"M"`
	}
	cases := []struct{ body, msg string }{
		{`{"D":"1"}`, "STRING_VALUE cannot be converted to Double"},
		{`{"D":true}`, "TRUE_VALUE cannot be converted to Double"},
		{`{"D":[]}`, "Unrecognized collection type class java.lang.Double"},
		{`{"D":{}}`, "Start of structure or map found where not expected"},
		{`{"H":"1"}`, "STRING_VALUE cannot be converted to Short"},
		{`{"B":1}`, "only base-64-encoded strings are convertible to bytes"},
		{`{"B":false}`, "only base-64-encoded strings are convertible to bytes"},
		{`{"B":{}}`, "Start of structure or map found where not expected"},
		{`{"P":1}`, "Unexpected field type"},
		{`{"L":[1]}`, "Unexpected value type in payload"},
		{`{"M":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, java.util.List<java.lang.Boolean>>"},
		{`{"M":{"a":[1.25]}}`, "DECIMAL_VALUE cannot be converted to Boolean"},
		{`{"M":{"a":"x"}}`, "Unexpected field type"},
	}
	for _, c := range cases {
		err := decode([]byte(c.body), new(input))
		var de *ddberr.Error
		if !errors.As(err, &de) || de.Type != "SerializationException" || de.Message != c.msg || de.MessageKey() != "Message" {
			t.Errorf("%s: %v, want %q", c.body, err, c.msg)
		}
	}
}

func TestOversizeBody(t *testing.T) {
	s := NewServer(newFake(), Options{MaxRequestBytes: 64})
	big := `{"ExclusiveStartTableName":"` + strings.Repeat("a", 100) + `"}`
	post := func(body io.Reader, length int64) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/", body)
		req.ContentLength = length
		req.Header.Set("X-Amz-Target", tgt+"ListTables")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	// DynamoDB answers 413 with an empty body: no __type (RequestLimitExceeded
	// would make the SDKs resend the body) and no message.
	check := func(name string, rec *httptest.ResponseRecorder) {
		t.Helper()
		if rec.Code != 413 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != "0" ||
			rec.Header().Get("Content-Encoding") != "" || len(rec.Header().Get("X-Amzn-Requestid")) != 52 {
			t.Errorf("%s: %d %v %q", name, rec.Code, rec.Header(), rec.Body)
		}
	}
	// Declared length over the limit: refused without being buffered; what
	// the client sends is read and dropped (up to four times the limit) so
	// that a client sending it all before reading gets the answer.
	declared := &countingReader{r: strings.NewReader(big)}
	check("declared", post(declared, int64(len(big))))
	if declared.n != len(big) {
		t.Errorf("read %d of the %d bytes of a body declared too large", declared.n, len(big))
	}
	// Unknown length (chunked): the limit applies while reading; the rest
	// is dropped up to four times the limit.
	chunked := &countingReader{r: strings.NewReader(big + strings.Repeat(" ", 1<<20))}
	check("chunked", post(chunked, -1))
	if chunked.n > 64+1+4*64+512 {
		t.Errorf("read %d bytes of a chunked body over the limit", chunked.n)
	}
	// At the limit is fine.
	exact := `{"ExclusiveStartTableName":"` + strings.Repeat("a", 64-30) + `"}`
	if len(exact) != 64 {
		t.Fatalf("len %d", len(exact))
	}
	if rec := post(strings.NewReader(exact), 64); rec.Code != 200 {
		t.Errorf("at the limit: %d %s", rec.Code, rec.Body)
	}
	if rec := post(strings.NewReader(exact), -1); rec.Code != 200 {
		t.Errorf("at the limit, chunked: %d %s", rec.Code, rec.Body)
	}
	if r := do(t, s, tgt+"ListTables", `{}`); r.status != 200 {
		t.Fatalf("small: %d", r.status)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
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
	f := newFake()
	s := NewServer(f, Options{})
	// A body under 4 KB goes out plain, as DynamoDB sends it.
	r := do(t, s, tgt+"ListTables", `{}`, "Accept-Encoding", "gzip, deflate")
	if r.header.Get("Content-Encoding") != "" || string(r.body) != `{"TableNames":["a<b>","t2"]}` {
		t.Fatalf("small body: %v %s", r.header, r.body)
	}
	many := make([]string, 400)
	for i := range many {
		many[i] = fmt.Sprintf("table_%04d", i)
	}
	f.listTables = func(*wire.ListTablesInput) (*wire.ListTablesOutput, error) {
		return &wire.ListTablesOutput{TableNames: many}, nil
	}
	r = do(t, s, tgt+"ListTables", `{}`, "Accept-Encoding", "gzip, deflate")
	if r.header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(string(r.body), `{"TableNames":["table_0000",`) {
		t.Fatalf("gzip: %v %.60s", r.header, r.body)
	}
	if r.header.Get("Content-Length") != strconv.Itoa(len(r.raw)) {
		t.Errorf("Content-Length %s for %d bytes", r.header.Get("Content-Length"), len(r.raw))
	}
	r = do(t, s, tgt+"ListTables", `{}`, "Accept-Encoding", "identity, gzip;q=0")
	if r.header.Get("Content-Encoding") != "" {
		t.Fatalf("gzip;q=0 honoured? %v", r.header)
	}
	r = do(t, s, tgt+"ListTables", `{}`, "Accept-Encoding", "deflate, gzip")
	if r.header.Get("Content-Encoding") != "deflate" || !strings.HasPrefix(string(r.body), `{"TableNames":["table_0000",`) {
		t.Fatalf("deflate: %v %.60s", r.header, r.body)
	}
}

// TestResponseCoding: the response coding DynamoDB picks for each
// Accept-Encoding value ScyllaDB's Alternator tests (run against DynamoDB)
// record.
func TestResponseCoding(t *testing.T) {
	for ae, want := range map[string]string{
		"identity": "", "": "", "br": "", "zstd": "", "compress": "", "x-gzip": "",
		"gzip, deflate":                                 "gzip",
		"br, identity, deflate, gzip":                   "deflate",
		"GZIP, identity":                                "gzip",
		"dog, gzip ,, cat":                              "gzip",
		"gzip;q=0.8, deflate;q=0.5":                     "gzip",
		"br, gzip;q=0, deflate; q = 0.5 , identity;q=0": "deflate",
		"*":                               "gzip",
		"*, deflate;q=0.5":                "gzip",
		"*, deflate":                      "deflate",
		"*, identity":                     "gzip",
		"*, gzip;q=0.5":                   "deflate",
		"gzip ;q=0":                       "",
		"identity;q=0":                    "",
		"*;q=0":                           "",
		"*;q=0.5,identity":                "gzip",
		"gzip;q=0.5,identity;q=0.8":       "gzip",
		"br;q=0.8,identity;q=0.5,*;q=0":   "",
		`"gzip"`:                          "",
		"gzip br":                         "",
		"gzip:q=1":                        "",
		"deflate;q=0.5, gzip;q=31":        "gzip",
		"gzip;q=31,deflate;q=51":          "gzip",
		"deflate;q=0.5, gzip;q=0.2":       "deflate",
		"deflate;q=0.5, gzip;q=1;q=0.2":   "gzip",
		"deflate;q=0.5,gzip;q=0.":         "deflate",
		"deflate;q=0.5,gzip;q=0.x":        "gzip",
		"deflate;q=-0.5,gzip;q=0.2":       "gzip",
		"gzip;nq=1;q=0 ":                  "",
		"gzip;q=0, gzip;q=1, gzip;q=0":    "gzip",
		"br,identity;q=0.5,gzip;q=0.0001": "gzip",
	} {
		if got := responseCoding(ae); got != want {
			t.Errorf("Accept-Encoding %q: %q, want %q", ae, got, want)
		}
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
	// DynamoDB spells the key "message" here, "Message" in a
	// TransactionCanceledException (ddberr.MessageKey).
	want := `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed","Item":{"pk":{"S":"a"}}}`
	if r.status != 400 || string(r.body) != want {
		t.Fatalf("CCF: %d %s", r.status, r.body)
	}
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) {
		return nil, ddberr.TransactionCanceled("Transaction cancelled", []map[string]string{{"Code": "None"}})
	}
	r = do(t, s, tgt+"PutItem", `{"TableName":"tbl","Item":{}}`)
	want = `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"None"}],"Message":"Transaction cancelled"}`
	if string(r.body) != want {
		t.Fatalf("TCE: %s", r.body)
	}
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) { return nil, ddberr.ConditionalCheckFailed() }
	r = do(t, s, tgt+"PutItem", `{"TableName":"tbl","Item":{}}`)
	want = `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"}`
	if string(r.body) != want {
		t.Fatalf("CCF without item: %s", r.body)
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

// With every origin allowed (--cors '*'), CORS answers as DynamoDB does
// (ScyllaDB's Alternator tests, run against DynamoDB).
func TestCORS(t *testing.T) {
	s := NewServer(newFake(), Options{Origins: OriginPolicy{Origins: []string{"*"}}})
	// Without Origin: no CORS headers.
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodOptions, "/", nil))
	if rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS headers without Origin: %v", rec.Header())
	}
	// A preflight is answered, echoing what it asks for.
	req := httptest.NewRequest(http.MethodOptions, "/", nil)
	req.Header.Set("Origin", "http://example.com/")
	req.Header.Set("Access-Control-Request-Method", "dog")
	req.Header.Set("Access-Control-Request-Headers", "cat, meerkat, mouse")
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	h := rec.Header()
	if rec.Code != 200 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Expose-Headers") == "" || h.Get("Access-Control-Max-Age") == "" ||
		h.Get("Access-Control-Allow-Methods") != "dog" || h.Get("Access-Control-Allow-Headers") != "cat, meerkat, mouse" {
		t.Fatalf("preflight: %d %v", rec.Code, h)
	}
	// A request with Origin is served with the CORS headers, not Max-Age.
	r := do(t, s, tgt+"ListTables", `{}`, "Origin", "http://example.com/")
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("Access-Control-Expose-Headers") == "" || r.header.Get("Access-Control-Max-Age") != "" {
		t.Fatalf("POST with Origin: %d %v", r.status, r.header)
	}
}

// By default only the console's own origin and loopback origins (and
// those --cors names) may call the API from a browser: another origin's
// preflight is refused 403 without CORS headers, and its other requests
// get none, so its page cannot read the answer.
func TestCORSDefault(t *testing.T) {
	s := NewServer(newFake(), Options{Origins: OriginPolicy{Origins: []string{"https://app.example"}}})
	preflight := func(origin, host string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodOptions, "/", nil)
		req.Host = host
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	for _, c := range []struct {
		origin, host string
		ok           bool
	}{
		{"http://127.0.0.1:8000", "127.0.0.1:8000", true}, // the console's page
		{"http://localhost:3000", "127.0.0.1:8000", true},
		{"http://app.localhost:3000", "127.0.0.1:8000", true},
		{"http://127.0.0.2:5173", "127.0.0.1:8000", true},
		{"http://[::1]:5173", "127.0.0.1:8000", true},
		{"https://app.example", "127.0.0.1:8000", true}, // named by --cors
		{"https://evil.example", "127.0.0.1:8000", false},
		{"http://10.0.0.5:8000", "127.0.0.1:8000", false},
		{"null", "127.0.0.1:8000", false},
	} {
		rec := preflight(c.origin, c.host)
		got := rec.Header().Get("Access-Control-Allow-Origin")
		if c.ok && (rec.Code != 200 || got != c.origin || rec.Header().Get("Vary") != "Origin") ||
			!c.ok && (rec.Code != 403 || got != "") {
			t.Errorf("preflight from %s to %s: %d %v", c.origin, c.host, rec.Code, rec.Header())
		}
	}
	r := do(t, s, tgt+"ListTables", `{}`, "Origin", "https://evil.example")
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("POST from an origin not allowed: %d %v", r.status, r.header)
	}
}

// With the Host check on, a request is served only when its Host is an IP
// address, a localhost name or a listen name: a page whose own name was
// pointed at 127.0.0.1 (DNS rebinding) gets AccessDeniedException.
func TestHostCheck(t *testing.T) {
	s := NewServer(newFake(), Options{Origins: OriginPolicy{CheckHost: true, ListenHosts: []string{"kura.internal"}}})
	for host, ok := range map[string]bool{
		"127.0.0.1:8000": true, "[::1]:8000": true, "192.168.1.20:8000": true, "localhost:8000": true,
		"LOCALHOST": true, "x.localhost:8000": true, "kura.internal:8000": true, "localhost.:8000": true, "dynamodb:8000": true,
		"rebind.evil.example:8000": false, "localhost.evil.example": false, "kura.internal.evil": false,
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
		req.Host = host
		req.Header.Set("X-Amz-Target", tgt+"ListTables")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if ok && rec.Code != 200 || !ok && (rec.Code != 400 || !strings.Contains(rec.Body.String(), "AccessDeniedException") ||
			!strings.Contains(rec.Body.String(), "--allow-any-host")) {
			t.Errorf("Host %s: %d %s", host, rec.Code, rec.Body)
		}
	}
}

// A gzip-compressed request body is read (one or more members); a body
// that is not gzip, or an encoding DynamoDB does not know, is an
// InternalServerError (ScyllaDB's Alternator tests, run against DynamoDB).
func TestRequestContentEncoding(t *testing.T) {
	f := newFake()
	var puts int
	f.putItem = func(*wire.PutItemInput) (*wire.PutItemOutput, error) { puts++; return &wire.PutItemOutput{}, nil }
	s := NewServer(f, Options{})
	gz := func(parts ...string) string {
		var b bytes.Buffer
		for _, p := range parts {
			w := gzip.NewWriter(&b)
			io.WriteString(w, p)
			w.Close()
		}
		return b.String()
	}
	put := `{"TableName":"tbl","Item":{"pk":{"S":"a"}}}`
	for _, c := range []struct {
		encoding, body string
		status, puts   int
	}{
		{"gzip", gz(put), 200, 1},
		{"gzip", gz(put[:10], put[10:]), 200, 2},
		{"gzip", put, 500, 2},
		{"gzip", gz(put)[:len(gz(put))-1], 500, 2},
		{"gzip", "", 500, 2},
		{"garbage", put, 500, 2},
		{"identity", put, 200, 3},
	} {
		r := do(t, s, tgt+"PutItem", c.body, "Content-Encoding", c.encoding)
		if r.status != c.status || puts != c.puts {
			t.Errorf("%s %.20q: %d %s, %d puts", c.encoding, c.body, r.status, r.body, puts)
		}
	}
}
