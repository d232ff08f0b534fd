package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
)

var (
	ctJSON      = []string{"application/x-amz-json-1.0"}
	ceGzip      = []string{codingGzip}
	ceDeflate   = []string{codingDeflate}
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
	for n := 0; err != nil && mayTruncate(n, len(body)); n++ {
		fixed, ok := truncateFraction(err, body, in)
		if !ok {
			break
		}
		body = fixed
		reflect.ValueOf(in).Elem().SetZero()
		err = json.Unmarshal(body, in)
	}
	if err == nil {
		return nil
	}
	var de *ddberr.Error
	if errors.As(err, &de) {
		return de
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return ddberr.Serialization(typeErrorText(te, body, reflect.TypeOf(in)))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return ddberr.Serialization("")
	}
	// attr.SerializationError and the like carry DynamoDB's text.
	return ddberr.Serialization(err.Error())
}

// awsShapes is the Java package of DynamoDB's request shapes, as its
// deserialiser names them in "Unrecognized collection type" texts.
const awsShapes = "com.amazonaws.dynamodb.v20120810."

var attrValueType = reflect.TypeFor[attr.Value]()

// typeErrorText words a JSON type mismatch the way DynamoDB's deserialiser
// does (wording as re-checked against AWS by dynalite 4.0.0): what the
// text says depends on the kind of the target (String, Integer, Long,
// Double, Boolean, list, map, structure) and on the JSON token found. root
// is the type the body is decoded into; it tells a structure that is a
// member of another structure ("Unexpected field type") from one that is
// an element of a list or map, or the body itself ("Unexpected value type
// in payload").
func typeErrorText(te *json.UnmarshalTypeError, body []byte, root reflect.Type) string {
	tok := jsonToken(te, body)
	if te.Type == nil {
		return "Unexpected value type in payload"
	}
	t := deref(te.Type)
	if te.Field == "" && root != nil && t == deref(root) {
		// The body itself is not an object.
		return "Unexpected value type in payload"
	}
	switch tok {
	case "object":
		// Only lists and scalars refuse an object (a map or a structure
		// takes one).
		return "Start of structure or map found where not expected"
	case "array":
		return "Unrecognized collection type " + javaType(t, true)
	}
	switch t.Kind() {
	case reflect.String:
		return tok + " cannot be converted to String"
	case reflect.Int8, reflect.Int16:
		return tok + " cannot be converted to Short"
	case reflect.Int32, reflect.Int:
		return tok + " cannot be converted to Integer"
	case reflect.Int64:
		return tok + " cannot be converted to Long"
	case reflect.Float32, reflect.Float64:
		return tok + " cannot be converted to Double"
	case reflect.Bool:
		if tok == "STRING_VALUE" {
			return "Unexpected token received from parser"
		}
		return tok + " cannot be converted to Boolean"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "only base-64-encoded strings are convertible to bytes"
		}
		return "Unexpected field type"
	case reflect.Map:
		return "Unexpected field type"
	case reflect.Struct:
		if isStructMember(root, te.Field, t) {
			return "Unexpected field type"
		}
	}
	return "Unexpected value type in payload"
}

// jsonToken names the JSON token te found as DynamoDB's deserialiser does
// (STRING_VALUE, NUMBER_VALUE for an integral number, DECIMAL_VALUE for a
// fractional one, TRUE_VALUE, FALSE_VALUE), or "array" or "object".
func jsonToken(te *json.UnmarshalTypeError, body []byte) string {
	off := int(te.Offset)
	if off < 0 || off > len(body) {
		off = 0
	}
	switch v := te.Value; {
	case v == "array", v == "object":
		return v
	case v == "bool":
		if bytes.HasSuffix(body[:off], []byte("false")) {
			return "FALSE_VALUE"
		}
		return "TRUE_VALUE"
	case strings.HasPrefix(v, "number "):
		return numberToken(v[len("number "):])
	case v == "number":
		// The literal ends at the offset.
		i := off
		for i > 0 && strings.IndexByte("+-0123456789.eE", body[i-1]) >= 0 {
			i--
		}
		return numberToken(string(body[i:off]))
	}
	return "STRING_VALUE"
}

// numberToken is NUMBER_VALUE for a JSON number with an integral value and
// DECIMAL_VALUE otherwise (1.0 and 1e2 are integral; so is a number too
// small for a float64, and an infinite one is not).
func numberToken(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		return "NUMBER_VALUE"
	}
	f, _ := strconv.ParseFloat(lit, 64)
	if !math.IsInf(f, 0) && f == math.Trunc(f) {
		return "NUMBER_VALUE"
	}
	return "DECIMAL_VALUE"
}

// javaType is the Java type DynamoDB's deserialiser names for a target of
// Go type t: "class java.lang.String", "java.util.Map<java.lang.String,
// com.amazonaws.dynamodb.v20120810.AttributeValue>", ... (class is set for
// the outermost type, which the texts prefix with "class " unless it is a
// collection).
func javaType(t reflect.Type, class bool) string {
	t = deref(t)
	name := ""
	switch t.Kind() {
	case reflect.String:
		name = "java.lang.String"
	case reflect.Bool:
		name = "java.lang.Boolean"
	case reflect.Int8, reflect.Int16:
		name = "java.lang.Short"
	case reflect.Int32, reflect.Int:
		name = "java.lang.Integer"
	case reflect.Int64:
		name = "java.lang.Long"
	case reflect.Float32, reflect.Float64:
		name = "java.lang.Double"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			name = "java.nio.ByteBuffer"
			break
		}
		return "java.util.List<" + javaType(t.Elem(), false) + ">"
	case reflect.Map:
		return "java.util.Map<java.lang.String, " + javaType(t.Elem(), false) + ">"
	case reflect.Struct:
		name = awsShapes + t.Name()
		if t == attrValueType {
			name = awsShapes + "AttributeValue"
		}
	default:
		name = "java.lang.Object"
	}
	if class {
		return "class " + name
	}
	return name
}

// isStructMember reports whether the value encoding/json failed to decode
// into structure type t sits directly in a member of a structure (rather
// than in a list, in a map or at the top of the body). field is
// UnmarshalTypeError.Field, the path of structure members (by JSON name)
// from root down to the innermost member being decoded; lists and maps on
// the way add nothing to it.
func isStructMember(root reflect.Type, field string, t reflect.Type) bool {
	if field == "" || root == nil {
		return false
	}
	cur := deref(root)
	var member reflect.Type
	for name := range strings.SplitSeq(field, ".") {
		for cur.Kind() == reflect.Slice || cur.Kind() == reflect.Map {
			cur = deref(cur.Elem())
		}
		if cur.Kind() != reflect.Struct {
			return false
		}
		sf, ok := jsonField(cur, name)
		if !ok {
			return false
		}
		member = sf.Type
		cur = deref(sf.Type)
	}
	return member != nil && deref(member) == t
}

// jsonField finds the member of struct type t that encoding/json decodes
// under name (its JSON name, or the Go name of an embedded struct).
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if tag == "" {
			tag = sf.Name
		}
		if tag == name {
			return sf, true
		}
	}
	return reflect.StructField{}, false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// errorBody is the JSON shape of an error response. The message goes under
// "message", or "Message" where DynamoDB spells it so (ddberr.MessageKey);
// a TransactionCanceledException's comes after its reasons, as DynamoDB
// sends it.
type errorBody struct {
	Type                string `json:"__type"`
	Message             string `json:"message,omitempty"`
	Item                any    `json:"Item,omitempty"`
	CancellationReasons any    `json:"CancellationReasons,omitempty"`
	MessageSer          string `json:"Message,omitempty"`
	// One of the two spellings of ThrottlingReasons (ddberr.ThrottlingReasonsKey).
	ThrottlingReasons      []ddberr.ThrottlingReason `json:"ThrottlingReasons,omitempty"`
	ThrottlingReasonsLower []ddberr.ThrottlingReason `json:"throttlingReasons,omitempty"`
}

// writeError encodes err; status overrides the error's own status when > 0.
func (s *Server) writeError(x *exchange, err error, status int) {
	if errors.Is(err, ddberr.ErrRequestTooLarge) {
		// DynamoDB answers an over-size body with a bare 413: no __type,
		// no CRC32.
		x.errType = "RequestEntityTooLarge"
		s.observe(x, http.StatusRequestEntityTooLarge)
		x.out.writeBare(http.StatusRequestEntityTooLarge)
		return
	}
	var e *ddberr.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, storage.ErrNoSpace):
		e = ddberr.DiskFull(noSpaceDetail(err))
	default:
		s.log.Error("internal error", "target", x.target, "err", err)
		e = ddberr.Internal("Internal server error")
	}
	x.errType = e.Type
	if status <= 0 {
		status = e.Status
	}
	if status <= 0 {
		status = http.StatusBadRequest
	}
	buf := getBuf()
	defer putBuf(buf)
	eb := errorBody{Type: e.FullType(), Item: e.Item, CancellationReasons: e.CancellationReasons}
	eb.setMessage(e)
	if err := encodeJSON(buf, &eb); err != nil {
		s.log.Error("encoding error response", "err", err)
		buf.Reset()
		eb = errorBody{Type: e.FullType()}
		eb.setMessage(e)
		_ = encodeJSON(buf, &eb)
	}
	s.send(x, status, buf.Bytes())
}

// noSpaceDetail is the figures of a storage.ErrNoSpace error ("10 MB
// available, minimum 128 MB"), whatever wraps it.
func noSpaceDetail(err error) string {
	msg, prefix := err.Error(), storage.ErrNoSpace.Error()+": "
	if i := strings.LastIndex(msg, prefix); i >= 0 {
		return msg[i+len(prefix):]
	}
	return msg
}

func (eb *errorBody) setMessage(e *ddberr.Error) {
	if e.MessageKey() == "Message" {
		eb.MessageSer = e.Message
	} else {
		eb.Message = e.Message
	}
	if e.ThrottlingReasonsKey() == "throttlingReasons" {
		eb.ThrottlingReasonsLower = e.ThrottlingReasons
	} else {
		eb.ThrottlingReasons = e.ThrottlingReasons
	}
}

// httpReplier answers through net/http.
type httpReplier struct{ w http.ResponseWriter }

// writeJSON sets DynamoDB's headers; X-Amz-Crc32 covers the bytes as sent.
func (r httpReplier) writeJSON(status int, enc string, body []byte) {
	h := r.w.Header()
	h["Content-Type"] = ctJSON
	h["Server"] = serverHeader
	switch enc {
	case codingGzip:
		h["Content-Encoding"] = ceGzip
	case codingDeflate:
		h["Content-Encoding"] = ceDeflate
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
	r.w.WriteHeader(status)
	_, _ = r.w.Write(body)
}

// serverHeader is the Server header DynamoDB sends on every answer
// (ScyllaDB's Alternator tests, which are run against DynamoDB, check
// that there is one).
var serverHeader = []string{"Server"}

func (r httpReplier) writeBare(status int) {
	h := r.w.Header()
	h["Server"] = serverHeader
	h["X-Amzn-Requestid"] = []string{newRequestID()}
	h["Content-Length"] = []string{"0"}
	r.w.WriteHeader(status)
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
