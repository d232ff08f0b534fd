package api

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/console"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/metrics"
	"github.com/kura-db/kura/internal/s3api"
)

// DefaultMaxRequestBytes is DynamoDB's HTTP request size limit (16 MB).
const DefaultMaxRequestBytes = 16 << 20

// targetPrefix is the X-Amz-Target service prefix of DynamoDB 2012-08-10.
const targetPrefix = "DynamoDB_20120810."

// HealthText is the body of GET / when the request names no host.
const HealthText = "healthy: kura"

// healthText is the body of GET /: DynamoDB answers "healthy: " and the
// endpoint the request was sent to (its Host header).
func healthText(host string) string {
	if host == "" {
		return HealthText
	}
	return "healthy: " + host
}

// healthCheck is the status and body of a health check: DynamoDB's 200
// "healthy: <host>", or 503 "unhealthy: <why>" while Options.Health
// reports a problem (a load balancer or supervisor then sees the store
// cannot take writes).
func (s *Server) healthCheck(host string) (int, string) {
	if s.health != nil {
		if err := s.health(); err != nil {
			return http.StatusServiceUnavailable, "unhealthy: " + err.Error()
		}
	}
	return http.StatusOK, healthText(host)
}

// Options configure a Server. The zero value is usable.
type Options struct {
	// Logger receives internal errors and recovered panics; nil discards.
	Logger *slog.Logger
	// MaxRequestBytes bounds a request body; 0 means DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// Admin enables the /admin/ endpoints (admin.go).
	Admin bool
	// Databases, when set, picks the backend for each request from its
	// Authorization header (one database per credential); the Backend
	// given to NewServer is then unused. The request calls release when
	// it no longer uses the backend (the database may then be closed).
	Databases func(authorization string) (b Backend, release func(), err error)
	// Auth, when set, checks every request's SigV4 signature: what the
	// head decides before the body is read, the signature itself once the
	// body has arrived, and both before the body is decoded or the target
	// routed (DynamoDB authenticates whatever the body).
	Auth *auth.Verifier
	// Console, when set, answers GET and HEAD of /console and the paths
	// under /console/ (the web console, internal/console).
	Console http.Handler
	// Requests, when set, counts every routed request (its operation,
	// latency and error type) for the --metrics listener; build it with
	// Targets.
	Requests *metrics.Requests
	// LogRequests logs every routed request at info level: operation,
	// status, error type, duration, client address, access key.
	LogRequests bool
	// Checkpoint, when set, serves POST /admin/checkpoint
	// (admin_checkpoint.go): it writes a copy of the data and returns
	// where.
	Checkpoint func() (string, error)
	// Replication, when set (with Admin), serves the global tables' fault
	// controls (admin_replication.go).
	Replication ReplicationControls
	// Authorize, when set, checks every authenticated request against
	// IAM policies (authorize.go); it needs Auth.
	Authorize *Authorizer
	// MaxBufferedBytes caps the memory that request bodies (and their
	// decoding) hold at once, over every connection (httpbody.go); 0 means
	// DefaultMaxBufferedBytes.
	MaxBufferedBytes int64
	// BodyTimeout bounds how long a request body may take to arrive, and
	// BodyMinRate (bytes a second) is the average rate a body must keep
	// after its first ten seconds; 0 means DefaultBodyTimeout and
	// DefaultBodyMinRate.
	BodyTimeout time.Duration
	BodyMinRate int64
	// Origins decides which browser origins may call the API and which
	// Host names requests may carry (origin.go); the zero value allows
	// the console's own origin and localhost ones, and checks no Host.
	Origins OriginPolicy
	// S3, when set, serves the S3 REST API (internal/s3api) on the same
	// endpoint: every request without X-Amz-Target to a path other than
	// "/" (and the console's, /admin/ and the checkpoint path), and a GET
	// of "/" signed for service s3 (ListBuckets). DynamoDB's requests are POSTs of "/", which
	// the connection server reads itself; S3's reach ServeHTTP, so the
	// DynamoDB fast path is unchanged and DynamoDB's body limits do not
	// apply to S3's bodies (which s3api streams to the folder).
	S3 *s3api.Handler
	// Health, when set, is asked by every health check (GET / and HEAD /):
	// a non-nil error (a nearly full disk, a failed store) is answered
	// 503 with the error's text instead of 200.
	Health func() error
}

// Server is the DynamoDB JSON 1.0 http.Handler.
type Server struct {
	backend   Backend
	databases func(authorization string) (Backend, func(), error)
	log       *slog.Logger
	maxBody   int64
	admin     bool
	auth      *auth.Verifier
	console   http.Handler
	requests  *metrics.Requests
	logReqs   bool
	ckpt      func() (string, error)
	repl      ReplicationControls
	authz     *Authorizer

	bodies      budget
	largeSlots  chan struct{} // requests with large bodies decoding (httpbody.go)
	bodyTimeout time.Duration
	bodyMinRate int64
	origins     OriginPolicy
	health      func() error
	s3          *s3api.Handler
}

// NewServer returns a Server that answers with b.
func NewServer(b Backend, opts Options) *Server {
	s := &Server{backend: b, log: opts.Logger, maxBody: opts.MaxRequestBytes, admin: opts.Admin, databases: opts.Databases, auth: opts.Auth,
		console: opts.Console, requests: opts.Requests, logReqs: opts.LogRequests,
		ckpt: opts.Checkpoint, repl: opts.Replication, authz: opts.Authorize, health: opts.Health, s3: opts.S3}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxRequestBytes
	}
	s.bodies.limit = cmp.Or(opts.MaxBufferedBytes, DefaultMaxBufferedBytes)
	s.bodyTimeout = cmp.Or(opts.BodyTimeout, DefaultBodyTimeout)
	s.bodyMinRate = cmp.Or(opts.BodyMinRate, DefaultBodyMinRate)
	s.origins = opts.Origins
	s.largeSlots = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)/2))
	return s
}

// exchange is one DynamoDB request as the operations see it, whichever
// HTTP server read it: net/http through ServeHTTP, or the connection
// server (httpserver.go).
type exchange struct {
	ctx            context.Context
	target         string // X-Amz-Target
	acceptEncoding string
	authorization  string
	out            replier
	// signed is what the signature covers; filled only when auth is on
	// (its Body is the body as received, before any decompression), and
	// head what checking its head found (checkHead).
	signed auth.Request
	head   auth.Head
	// caller is the principal that signed it, with --iam-file
	// (authorize.go); set by checkSignature for each request.
	caller *caller
	// errType is the type of the error answered ("" for none), and
	// started when serve began (zero: not observed), for Server.requests
	// and the request log.
	errType string
	started time.Time
	// remote is the client's address, for the request log.
	remote string
}

// replier writes the response to an exchange.
type replier interface {
	// writeJSON answers with a JSON body as it goes on the wire (in
	// content coding enc: "" for none, codingGzip or codingDeflate), with
	// DynamoDB's headers.
	writeJSON(status int, enc string, body []byte)
	// writeBare answers with a status and no body.
	writeBare(status int)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.origins.hostAllowed(r.Host) {
		w.Header().Set("Connection", "close")
		x := &exchange{ctx: r.Context(), target: r.Header.Get("X-Amz-Target"), out: httpReplier{w}, remote: r.RemoteAddr}
		s.stamp(x)
		s.writeError(x, ddberr.HostNotAllowed(r.Host), 0)
		return
	}
	if s.ckpt != nil && r.URL.Path == checkpointPath {
		s.serveCheckpoint(w, r)
		return
	}
	if s.admin && strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	if s.console != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) && console.Serves(r.URL.Path) {
		s.console.ServeHTTP(w, r)
		return
	}
	if s.s3 != nil && r.Header.Get("X-Amz-Target") == "" && (r.URL.Path != "/" || s3api.Claims(r)) {
		s.s3.ServeHTTP(w, r)
		return
	}
	if s.cors(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet, http.MethodHead:
		h := w.Header()
		h["Server"] = serverHeader
		h["X-Amzn-Requestid"] = []string{newRequestID()}
		if r.URL.Path != "/" {
			// Only the root answers the health check (ScyllaDB's
			// Alternator tests, which are run against DynamoDB).
			w.WriteHeader(http.StatusNotFound)
			return
		}
		h["Content-Type"] = []string{"text/plain; charset=utf-8"}
		status, text := s.healthCheck(r.Host)
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			io.WriteString(w, text)
		}
		return
	}
	x := &exchange{
		ctx:            r.Context(),
		target:         r.Header.Get("X-Amz-Target"),
		acceptEncoding: r.Header.Get("Accept-Encoding"),
		authorization:  r.Header.Get("Authorization"),
		out:            httpReplier{w},
		remote:         r.RemoteAddr,
	}
	s.stamp(x) // a request refused before serve is counted too
	if r.Method != http.MethodPost || !acceptedContentType(r.Header.Get("Content-Type")) {
		s.writeError(x, ddberr.UnknownOperation(), http.StatusNotFound)
		return
	}
	if s.auth != nil {
		x.signed = signedRequest(r, nil)
		if err := s.checkHead(x); err != nil {
			w.Header().Set("Connection", "close") // the body stays unread
			s.writeError(x, err, 0)
			return
		}
	}
	// The body is read under a deadline that the bytes received move on
	// (httpbody.go): a body that stalls or trickles is cut off. (net/http's
	// own ResponseWriter sets deadlines; one that cannot, such as a test's
	// recorder, reads without.)
	dl, _ := w.(readDeadliner)
	start := time.Now()
	var progress func(int64)
	if dl != nil {
		_ = dl.SetReadDeadline(s.bodyDeadline(start, 0))
		progress = func(got int64) { _ = dl.SetReadDeadline(s.bodyDeadline(start, got)) }
	}
	br, err := s.readBody(r.Body, r.ContentLength, progress)
	defer br.release()
	if err != nil {
		s.refuseBody(x, w, r, err, start)
		return
	}
	if dl != nil {
		_ = dl.SetReadDeadline(time.Time{})
	}
	x.signed.Body = br.body
	if err := s.checkSignature(x); err != nil {
		s.writeError(x, err, 0)
		return
	}
	body, err := s.decodeContent(r.Header.Get("Content-Encoding"), br.body)
	if err != nil {
		s.writeError(x, err, 0)
		return
	}
	s.serve(x, body)
}

// refuseBody answers a net/http request whose body could not be read
// (err from readBody), closing its connection: over the size limit (a bare
// 413 once what is left of the body, up to 4 times the limit, has been
// read under the same deadlines, so the client sees the answer), over the
// memory budget (ThrottlingException), or a body that broke off.
func (s *Server) refuseBody(x *exchange, w http.ResponseWriter, r *http.Request, err error, start time.Time) {
	w.Header().Set("Connection", "close")
	switch {
	case errors.Is(err, ddberr.ErrRequestTooLarge):
		dl, _ := w.(readDeadliner)
		var got int64
		_, _ = io.Copy(io.Discard, io.LimitReader(readFunc(func(p []byte) (int, error) {
			if dl != nil {
				_ = dl.SetReadDeadline(s.bodyDeadline(start, got))
			}
			n, err := r.Body.Read(p)
			got += int64(n)
			return n, err
		}), 4*s.maxBody))
		s.writeError(x, err, 0)
	case isDDBError(err):
		s.writeError(x, err, 0)
	default:
		s.writeError(x, ddberr.Serialization(""), 0)
	}
}

// readDeadliner is a ResponseWriter that can set its connection's read
// deadline (net/http's own can).
type readDeadliner interface{ SetReadDeadline(time.Time) error }

// readFunc is an io.Reader made of a function.
type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

func isDDBError(err error) bool {
	var e *ddberr.Error
	return errors.As(err, &e)
}

// checkHead checks, before the body is read, what of the request's
// authentication its head decides (auth.Verifier.CheckHead), so an
// unauthenticated request is refused whatever its body, without buffering
// it.
func (s *Server) checkHead(x *exchange) error {
	h, err := s.auth.CheckHead(&x.signed)
	x.head = h
	return err
}

// checkSignature checks the signature over the head and the body as
// received (before it is decompressed or decoded), when authentication is
// on.
func (s *Server) checkSignature(x *exchange) error {
	if s.auth == nil {
		return nil
	}
	key, err := s.auth.CheckSignature(&x.signed, x.head)
	if err != nil {
		return err
	}
	x.caller, err = s.callerFor(key, x)
	return err
}

// decodeContent undoes a request's Content-Encoding. DynamoDB reads a
// gzip-compressed body (one or more gzip members) and a deflate one (zlib,
// as HTTP's deflate is: ScyllaDB's pull request 27917, whose test passes
// against DynamoDB); a body that does not decompress, or an encoding it
// does not know, is an InternalServerError (ScyllaDB's Alternator tests,
// which are run against DynamoDB). The decompressed body is held to the
// same size limit, read no further than one byte past it.
func (s *Server) decodeContent(encoding string, body []byte) ([]byte, error) {
	var zr io.Reader
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return body, nil
	case codingGzip:
		r, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, ddberr.Internal("Internal server error")
		}
		zr = r
	case codingDeflate:
		r, err := zlib.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, ddberr.Internal("Internal server error")
		}
		zr = r
	default:
		return nil, ddberr.Internal("Internal server error")
	}
	out, err := io.ReadAll(io.LimitReader(zr, s.maxBody+1))
	if int64(len(out)) > s.maxBody {
		return nil, ddberr.ErrRequestTooLarge
	}
	if err != nil {
		return nil, ddberr.Internal("Internal server error")
	}
	return out, nil
}

// serve routes a POST whose body has been read and runs its operation.
func (s *Server) serve(x *exchange, body []byte) {
	s.stamp(x)
	target := x.target
	var h handler
	if strings.HasPrefix(target, targetPrefix) {
		h = routes[target[len(targetPrefix):]]
	} else if strings.HasPrefix(target, streamsTargetPrefix) {
		h = streamsRoutes[target[len(streamsTargetPrefix):]]
	}
	if h == nil {
		// DynamoDB parses the body before it routes.
		if len(body) > 0 && !jsonValid(body) {
			s.writeError(x, ddberr.Serialization(""), 0)
			return
		}
		s.writeError(x, ddberr.UnknownOperation(), 0)
		return
	}
	if err := checkBodyText(body); err != nil {
		s.writeError(x, err, 0)
		return
	}
	leave, ok := s.enterLarge(x, len(body))
	if !ok {
		return // the server is closing
	}
	defer leave()
	s.dispatch(x, h, body)
}

// checkBodyText refuses, before decoding, a body that cannot be a request:
// empty, the JSON null (which encoding/json would take as {}; DynamoDB
// refuses it as it refuses [], a value that is not a structure), or not
// UTF-8 (RFC 8259 JSON text is UTF-8; encoding/json would silently turn
// each bad byte into U+FFFD, so "\xff" and "\xfe" keys would name one
// item). Each is a SerializationException, the last with no message, as
// for any body that is not JSON.
func checkBodyText(body []byte) error {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return ddberr.Serialization("")
	case string(trimmed) == "null":
		return ddberr.Serialization("Unexpected value type in payload")
	case !utf8.Valid(body):
		return ddberr.Serialization("")
	}
	return nil
}

// Targets lists the X-Amz-Target of every operation Kura serves (for
// metrics.NewRequests).
func Targets() []string {
	targets := make([]string, 0, len(routes)+len(streamsRoutes))
	for op := range routes {
		targets = append(targets, targetPrefix+op)
	}
	for op := range streamsRoutes {
		targets = append(targets, streamsTargetPrefix+op)
	}
	return targets
}

// backendFor is the database that serves a request with this
// Authorization header, and the function to call when the request is done
// with it.
func (s *Server) backendFor(authorization string) (Backend, func(), error) {
	if s.databases == nil {
		return s.backend, func() {}, nil
	}
	return s.databases(authorization)
}

// enveloping lists the operations whose request checks keep the
// "1 validation error detected: " prefix (ddberr.RequestInvalid); every
// other operation sends those texts bare, as DynamoDB does.
var enveloping = map[string]bool{
	targetPrefix + "PutItem":    true,
	targetPrefix + "UpdateItem": true,
	targetPrefix + "DeleteItem": true,
}

// olderValueLayer lists the operations whose attribute value checks
// DynamoDB words in its older way (ddberr.Error.Older): us-east-1,
// eu-west-1 and us-west-2 on 2026-10-09, as a public conformance suite
// records them (PartiQL parameters in eu-west-2 and us-east-1).
var olderValueLayer = map[string]bool{
	targetPrefix + "BatchWriteItem":        true,
	targetPrefix + "TransactWriteItems":    true,
	targetPrefix + "TransactGetItems":      true,
	targetPrefix + "Scan":                  true,
	targetPrefix + "ExecuteStatement":      true,
	targetPrefix + "BatchExecuteStatement": true,
	targetPrefix + "ExecuteTransaction":    true,
}

// wordedFor is err as operation target words it: the older value layer's
// texts and the request-check prefix where that operation has them.
func wordedFor(target string, err error) error {
	if olderValueLayer[target] {
		err = ddberr.OlderLayer(err)
	}
	if !enveloping[target] {
		err = ddberr.Unenveloped(err)
	}
	return err
}

// dispatch runs one operation, turning a panic into InternalServerError.
func (s *Server) dispatch(x *exchange, h handler, body []byte) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic in handler", "target", x.target,
				"panic", p, "stack", string(debug.Stack()))
			s.writeError(x, ddberr.Internal("Internal server error"), 0)
		}
	}()
	b, release, err := s.backendFor(x.authorization)
	if err != nil {
		s.writeError(x, err, 0)
		return
	}
	defer release()
	out, err := h(x.authorizing(), b, body)
	if err != nil {
		s.writeError(x, wordedFor(x.target, err), 0)
		return
	}
	ob := getBuf()
	defer putBuf(ob)
	if err := encodeOutput(ob, out); err != nil {
		s.log.Error("encoding response", "target", x.target, "err", err)
		s.writeError(x, ddberr.Internal("Internal server error"), 0)
		return
	}
	s.send(x, http.StatusOK, ob.Bytes())
}

// signedRequest is what a net/http request's signature covers: Host (not
// among net/http's header fields) and Content-Length (when net/http took
// it out) are added back.
func signedRequest(r *http.Request, body []byte) auth.Request {
	sr := auth.Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Body: body,
		Fields: []auth.Field{{Name: "Host", Value: r.Host}}}
	for name, vals := range r.Header {
		for _, v := range vals {
			sr.Fields = append(sr.Fields, auth.Field{Name: name, Value: v})
		}
	}
	if _, ok := r.Header["Content-Length"]; !ok && r.ContentLength >= 0 {
		sr.Fields = append(sr.Fields, auth.Field{Name: "Content-Length", Value: strconv.FormatInt(r.ContentLength, 10)})
	}
	return sr
}

func acceptedContentType(ct string) bool {
	if ct == "" {
		return true
	}
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	switch strings.ToLower(strings.TrimSpace(ct)) {
	case "application/x-amz-json-1.0", "application/x-amz-json-1.1", "application/json":
		return true
	}
	return false
}

// handler decodes, validates and runs one operation.
type handler func(ctx context.Context, b Backend, body []byte) (any, error)
