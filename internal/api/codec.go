package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/kura-db/kura/internal/ddberr"
)

var (
	ctJSON      = []string{"application/x-amz-json-1.0"}
	ceGzip      = []string{"gzip"}
	emptyObject = []byte("{}")
)

// maxPooledBuf keeps one huge request from pinning memory in the pool.
const maxPooledBuf = 1 << 20

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer { return bufPool.Get().(*bytes.Buffer) }

func putBuf(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuf {
		return
	}
	b.Reset()
	bufPool.Put(b)
}

var gzPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

// encodeJSON appends v's JSON to buf without the trailing newline and
// without HTML escaping (DynamoDB does not escape <, > and &).
func encodeJSON(buf *bytes.Buffer, v any) error {
	if v == nil {
		buf.Write(emptyObject)
		return nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if n := buf.Len(); n > 0 && buf.Bytes()[n-1] == '\n' {
		buf.Truncate(n - 1)
	}
	return nil
}

func jsonValid(b []byte) bool { return json.Valid(b) }

// decode unmarshals a request body into in, mapping failures to the error
// DynamoDB gives: semantic AttributeValue problems keep their *ddberr.Error,
// everything else becomes a SerializationException.
func decode(body []byte, in any) error {
	err := json.Unmarshal(body, in)
	if err == nil {
		return nil
	}
	var de *ddberr.Error
	if errors.As(err, &de) {
		return de
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return ddberr.Serialization(typeErrorText(te, body))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return ddberr.Serialization("")
	}
	// attr.SerializationError and the like carry DynamoDB's text.
	return ddberr.Serialization(err.Error())
}

// typeErrorText words a JSON type mismatch the way DynamoDB's coral
// deserializer does ("NUMBER_VALUE cannot be converted to String", ...).
func typeErrorText(te *json.UnmarshalTypeError, body []byte) string {
	tok := "STRING_VALUE"
	switch {
	case strings.HasPrefix(te.Value, "number"):
		tok = "NUMBER_VALUE"
	case te.Value == "bool":
		tok = "TRUE_VALUE"
		if off := int(te.Offset); off <= len(body) && bytes.HasSuffix(body[:off], []byte("false")) {
			tok = "FALSE_VALUE"
		}
	case te.Value == "array":
		tok = "START_ARRAY"
	case te.Value == "object":
		tok = "START_OBJECT"
	}
	if te.Type == nil {
		return tok + " can not be converted"
	}
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		switch tok {
		case "START_ARRAY":
			return "Start of list found where not expected"
		case "START_OBJECT":
			return "Start of structure or map found where not expected"
		}
		return tok + " cannot be converted to String"
	case reflect.Int32, reflect.Int, reflect.Int16, reflect.Int8:
		return tok + " can not be converted to an Integer"
	case reflect.Int64:
		return tok + " can not be converted to a Long"
	case reflect.Float32, reflect.Float64:
		return tok + " can not be converted to a Double"
	case reflect.Bool:
		return tok + " can not be converted to a Boolean"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return tok + " can not be converted to a Blob"
		}
		return "Unrecognized collection type class java.lang.String"
	default:
		return "Unexpected value type in payload"
	}
}

// errorBody is the JSON shape of an error response.
type errorBody struct {
	Type                string `json:"__type"`
	Message             string `json:"message,omitempty"`
	Item                any    `json:"Item,omitempty"`
	CancellationReasons any    `json:"CancellationReasons,omitempty"`
}

// writeError encodes err; status overrides the error's own status when > 0.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error, status int) {
	var e *ddberr.Error
	if !errors.As(err, &e) {
		s.log.Error("internal error", "target", r.Header.Get("X-Amz-Target"), "err", err)
		e = ddberr.Internal("Internal server error")
	}
	if status <= 0 {
		status = e.Status
	}
	if status <= 0 {
		status = http.StatusBadRequest
	}
	buf := getBuf()
	defer putBuf(buf)
	eb := errorBody{Type: e.FullType(), Message: e.Message, Item: e.Item, CancellationReasons: e.CancellationReasons}
	if err := encodeJSON(buf, &eb); err != nil {
		s.log.Error("encoding error response", "err", err)
		buf.Reset()
		eb = errorBody{Type: e.FullType(), Message: e.Message}
		_ = encodeJSON(buf, &eb)
	}
	s.send(w, r, status, buf.Bytes())
}

// send writes a JSON response body with DynamoDB's headers, gzipping it
// when the client accepts gzip. X-Amz-Crc32 covers the bytes as sent.
func (s *Server) send(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = ctJSON
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		zb := getBuf()
		defer putBuf(zb)
		gz := gzPool.Get().(*gzip.Writer)
		gz.Reset(zb)
		_, _ = gz.Write(body)
		_ = gz.Close()
		gzPool.Put(gz)
		body = zb.Bytes()
		h["Content-Encoding"] = ceGzip
	}
	// The three per-response values share one string and one slice.
	var tmp [requestIDLen + 2*20]byte
	b := appendRequestID(tmp[:0])
	b = strconv.AppendUint(b, uint64(crc32.ChecksumIEEE(body)), 10)
	crcEnd := len(b)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	all := string(b)
	vals := [3]string{all[:requestIDLen], all[requestIDLen:crcEnd], all[crcEnd:]}
	vs := vals[:]
	h["X-Amzn-Requestid"] = vs[0:1:1]
	h["X-Amz-Crc32"] = vs[1:2:2]
	h["Content-Length"] = vs[2:3:3]
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding value allows gzip.
func acceptsGzip(ae string) bool {
	if ae == "" {
		return false
	}
	for part := range strings.SplitSeq(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// requestIDLen is the length of a request id.
const requestIDLen = 52

// newRequestID returns a random 52-character id shaped like DynamoDB's.
func newRequestID() string {
	var b [requestIDLen]byte
	return string(appendRequestID(b[:0]))
}

// appendRequestID appends a new request id to dst.
func appendRequestID(dst []byte) []byte {
	var r uint64
	for i := 0; i < requestIDLen; i++ {
		if i%12 == 0 {
			r = rand.Uint64()
		}
		dst = append(dst, idAlphabet[r&31])
		r >>= 5
	}
	return dst
}
