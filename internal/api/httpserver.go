package api

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"log"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/ddberr"
)

// HTTPServer serves a Server over HTTP/1.1 connections. It reads the
// requests the AWS SDKs send ("POST /" with a Content-Length body, see
// httphead.go) itself, which costs a fraction of net/http's per-request
// work (no header maps, no per-request goroutine for the background read,
// one write per response). When a connection sends anything else it hands
// the connection, unread bytes included, to a net/http server running the
// same handler, which then serves that connection to its end.
type HTTPServer struct {
	api      *Server
	cfg      HTTPConfig
	fallback *http.Server
	handoff  *handoffListener
	ctx      context.Context // the requests' context; canceled by Close
	cancel   context.CancelFunc
	shutting atomic.Bool
	date     atomic.Pointer[httpDate]
	start    sync.Once

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*fastConn]struct{}
}

// HTTPConfig configures an HTTPServer; zero values take the defaults.
type HTTPConfig struct {
	IdleTimeout       time.Duration // a keep-alive connection's wait for its next request; 5 minutes
	ReadHeaderTimeout time.Duration // the wait for the rest of a started request head; 30 seconds
	ErrorLog          *log.Logger   // net/http's error log for the connections it serves
}

// NewHTTPServer returns an HTTPServer for s.
func NewHTTPServer(s *Server, cfg HTTPConfig) *HTTPServer {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 5 * time.Minute
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = 30 * time.Second
	}
	h := &HTTPServer{
		api:       s,
		cfg:       cfg,
		listeners: map[net.Listener]struct{}{},
		conns:     map[*fastConn]struct{}{},
		handoff:   &handoffListener{conns: make(chan net.Conn), done: make(chan struct{})},
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.fallback = &http.Server{
		Handler: headLimit(s),
		// net/http reads heads this long (and 4 KB more) before it
		// answers 431 on its own; headLimit refuses the ones over
		// maxHeadBytes as DynamoDB does.
		MaxHeaderBytes:    4 * maxHeadBytes,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          cfg.ErrorLog,
	}
	return h
}

// Serve accepts connections on ln until Shutdown or Close, then returns
// http.ErrServerClosed; any other accept error is returned as is.
func (h *HTTPServer) Serve(ln net.Listener) error {
	h.start.Do(func() {
		go func() { _ = h.fallback.Serve(h.handoff) }()
		go h.janitor()
	})
	h.mu.Lock()
	if h.shutting.Load() {
		h.mu.Unlock()
		return http.ErrServerClosed
	}
	h.listeners[ln] = struct{}{}
	h.mu.Unlock()
	var delay time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if h.shutting.Load() {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() ||
				errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				// Out of file descriptors (or a timeout): wait, as
				// net/http does, instead of giving up serving.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		c := h.newConn(rwc)
		if c == nil {
			rwc.Close()
			continue
		}
		go c.serve()
	}
}

// Shutdown stops accepting, closes idle connections, and waits for the
// requests in flight to be answered (closing their connections after) or
// for ctx to end.
func (h *HTTPServer) Shutdown(ctx context.Context) error {
	h.shutting.Store(true)
	h.mu.Lock()
	for ln := range h.listeners {
		ln.Close()
	}
	for c := range h.conns {
		c.closeIfIdle()
	}
	h.mu.Unlock()
	fallbackDone := make(chan error, 1)
	go func() { fallbackDone <- h.fallback.Shutdown(ctx) }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		h.mu.Lock()
		n := len(h.conns)
		h.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	err := <-fallbackDone
	h.cancel()
	return err
}

// Close closes the listeners and every connection at once.
func (h *HTTPServer) Close() error {
	h.shutting.Store(true)
	h.cancel()
	h.mu.Lock()
	for ln := range h.listeners {
		ln.Close()
	}
	for c := range h.conns {
		c.rwc.Close()
	}
	h.mu.Unlock()
	return h.fallback.Close()
}

func (h *HTTPServer) newConn(rwc net.Conn) *fastConn {
	c := &fastConn{srv: h, rwc: rwc, br: bufio.NewReaderSize(rwc, fastConnBufSize)}
	c.x = exchange{ctx: h.ctx, out: c, remote: rwc.RemoteAddr().String()}
	// Registered idle, so idle since now: with idleSince still 0, a janitor
	// sweep before serve's first statement closed the fresh connection,
	// request and all (a client saw "connection reset by peer").
	c.idleSince.Store(time.Now().UnixNano())
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.shutting.Load() {
		return nil
	}
	h.conns[c] = struct{}{}
	return c
}

func (h *HTTPServer) forget(c *fastConn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

// janitor closes connections idle past IdleTimeout, those whose request
// head has been arriving for longer than ReadHeaderTimeout, and those whose
// body arrives too slowly (Server.bodyTooSlow); after a spike of large
// requests it returns their memory to the operating system. A sweep instead
// of per-request deadlines keeps timers off the request path.
func (h *HTTPServer) janitor() {
	every := min(h.cfg.IdleTimeout, h.cfg.ReadHeaderTimeout, bodyGrace, h.api.bodyTimeout) / 4
	tick := time.NewTicker(max(every, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		h.sweep(time.Now().UnixNano())
		if h.api.bodies.spikeOver() {
			debug.FreeOSMemory()
		}
	}
}

// sweep closes the connections idle or stuck in a head at now.
func (h *HTTPServer) sweep(now int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		if since := c.bodySince.Load(); since != 0 &&
			h.api.bodyTooSlow(time.Unix(0, since), time.Unix(0, now), c.bodyGot.Load()) {
			c.rwc.Close() // the body's read fails, and the request with it
			continue
		}
		if c.state.Load() != connIdle {
			continue
		}
		partial := c.partialSince.Load()
		if now-c.idleSince.Load() > int64(h.cfg.IdleTimeout) ||
			partial != 0 && now-partial > int64(h.cfg.ReadHeaderTimeout) {
			c.closeIfIdle()
		}
	}
}

// httpDate is the Date header value of one second.
type httpDate struct {
	sec  int64
	text string
}

// dateHeader is the current Date header value, formatted once a second.
func (h *HTTPServer) dateHeader() string {
	now := time.Now()
	if d := h.date.Load(); d != nil && d.sec == now.Unix() {
		return d.text
	}
	d := &httpDate{sec: now.Unix(), text: now.UTC().Format(http.TimeFormat)}
	h.date.Store(d)
	return d.text
}

// fastConnBufSize is a connection's read buffer: a request head must fit
// in it to be served here (SigV4-signed SDK heads take about 1 KB).
const fastConnBufSize = 4096

// A connection's states: idle (waiting for a request), active (serving
// one), closed (by Shutdown or the janitor while idle).
const (
	connIdle int32 = iota
	connActive
	connClosed
)

// fastConn is one connection of the HTTPServer.
type fastConn struct {
	srv          *HTTPServer
	rwc          net.Conn
	br           *bufio.Reader
	state        atomic.Int32
	idleSince    atomic.Int64 // unix nanoseconds
	partialSince atomic.Int64 // first bytes of a head not yet whole; 0 if none
	bodySince    atomic.Int64 // a body not yet whole began arriving; 0 if none
	bodyGot      atomic.Int64 // the bytes of that body received so far
	head         requestHead
	x            exchange
	closeAfter   bool
	werr         error
	out          []byte

	// The previous request's header strings, reused while the bytes repeat.
	target, contentType, acceptEncoding string
	// hostOK is the last Host value the origin policy allowed.
	hostOK []byte
}

// closeIfIdle closes the connection if it waits for a request.
func (c *fastConn) closeIfIdle() {
	if c.state.CompareAndSwap(connIdle, connClosed) {
		c.rwc.Close()
	}
}

func (c *fastConn) serve() {
	handedOff := false
	defer func() {
		if p := recover(); p != nil {
			c.srv.api.log.Error("panic serving connection", "panic", p, "stack", string(debug.Stack()))
		}
		c.srv.forget(c)
		if !handedOff {
			c.rwc.Close()
		}
	}()
	for {
		c.idleSince.Store(time.Now().UnixNano())
		c.partialSince.Store(0)
		c.state.Store(connIdle)
		if c.srv.shutting.Load() {
			return
		}
		n, err := c.readHead()
		if err != nil {
			return
		}
		if n < 0 {
			// net/http serves the rest of this connection (the bytes
			// still buffered here go first), unless the head is larger
			// than DynamoDB takes. (Still idle while the rest of a long
			// head arrives, so the janitor's head timeout applies.)
			r, ok := c.wholeHead()
			if c.state.CompareAndSwap(connIdle, connActive) {
				if !ok {
					c.refuseHead()
					return
				}
				handedOff = c.srv.handoff.give(&replayConn{Conn: c.rwc, r: r})
			}
			return
		}
		if !c.state.CompareAndSwap(connIdle, connActive) {
			return // closed while the head arrived
		}
		if !c.serveOne(n) {
			return
		}
	}
}

// readHead waits until the buffer holds a whole request head and parses
// it: its length, or -1 for a request net/http must serve.
func (c *fastConn) readHead() (int, error) {
	for {
		buf, _ := c.br.Peek(c.br.Buffered())
		if len(buf) > 0 {
			if n := parseHead(buf, &c.head); n != 0 {
				return n, nil
			}
			if len(buf) == fastConnBufSize {
				return -1, nil // a head too large for the fast path
			}
			if c.partialSince.Load() == 0 {
				c.partialSince.Store(time.Now().UnixNano())
			}
		}
		if _, err := c.br.Peek(len(buf) + 1); err != nil {
			return 0, err
		}
	}
}

// maxHeadBytes is the largest request head (request line and header
// fields) served: DynamoDB's front end limits the header size to 16 KB
// and answers a larger one 400 Bad Request before any signature check
// (ScyllaDB's issue 23438 and pull request 23442, measured against
// DynamoDB, also for a 17,000-byte request line).
const maxHeadBytes = 16 << 10

// wholeHead reads on until the buffered bytes hold a whole request head,
// returning a reader of the connection that replays them; false when the
// head is longer than maxHeadBytes. (A read error is left for net/http to
// meet.)
func (c *fastConn) wholeHead() (*bufio.Reader, bool) {
	r := c.br
	if r.Buffered() >= fastConnBufSize {
		r = bufio.NewReaderSize(c.br, maxHeadBytes+fastConnBufSize)
	}
	for {
		buf, _ := r.Peek(r.Buffered())
		if end := headEnd(buf); end >= 0 {
			return r, end <= maxHeadBytes
		}
		if len(buf) > maxHeadBytes {
			return r, false
		}
		if c.partialSince.Load() == 0 {
			c.partialSince.Store(time.Now().UnixNano())
		}
		if len(buf) == r.Size() {
			return r, false
		}
		if _, err := r.Peek(len(buf) + 1); err != nil {
			return r, true
		}
	}
}

// headEnd is the offset of the empty line that ends the head at the
// start of buf (CRLF or bare LF line endings), or -1.
func headEnd(buf []byte) int {
	for i := 0; ; {
		nl := bytes.IndexByte(buf[i:], '\n')
		if nl < 0 {
			return -1
		}
		i += nl + 1
		if i < len(buf) && buf[i] == '\n' || i+1 < len(buf) && buf[i] == '\r' && buf[i+1] == '\n' {
			return i
		}
	}
}

// headLimit answers a request whose head is longer than maxHeadBytes 400
// Bad Request with no body, and closes the connection, as refuseHead does
// for the heads the connection server reads: a connection handed to
// net/http (after a GET /, a chunked body…) stays with it, and net/http's
// own limit answers 431 and only above MaxHeaderBytes plus 4 KB.
func headLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if parsedHeadLen(r) > maxHeadBytes {
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// parsedHeadLen is the length of r's head as sent, less the whitespace
// net/http trimmed from the field values: its request line and header
// lines, each with its CRLF, up to the empty line that ends the head (the
// offset wholeHead compares with maxHeadBytes).
func parsedHeadLen(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + 2 + len(v) + 2
		}
	}
	for _, te := range r.TransferEncoding {
		n += len("Transfer-Encoding: ") + len(te) + 2
	}
	return n
}

// refuseHead answers a head over maxHeadBytes 400 Bad Request, with no
// body, and closes the connection.
func (c *fastConn) refuseHead() {
	c.closeAfter = true
	c.write(http.StatusBadRequest, true, "", nil)
}

// serveOne answers the request whose head (n bytes) is buffered; false
// means the connection must close.
func (c *fastConn) serveOne(n int) bool {
	h := &c.head
	c.closeAfter = h.close
	c.x.target = c.reuse(&c.target, h.target)
	c.x.acceptEncoding = c.reuse(&c.acceptEncoding, h.acceptEncoding)
	contentType := c.reuse(&c.contentType, h.contentType)
	c.x.authorization = ""
	if h.authorization != nil && (c.srv.api.databases != nil || c.srv.api.logReqs) {
		// Only per-credential databases and the request log read it (a
		// new signature each request, so a copy each time).
		c.x.authorization = string(h.authorization)
	}
	if c.srv.api.auth != nil {
		head, _ := c.br.Peek(n)
		c.x.signed = auth.Request{Method: "POST", Path: "/", Fields: headFields(head, c.x.signed.Fields[:0])}
	}
	length := h.contentLength
	c.br.Discard(n)
	c.werr = nil
	if !c.hostAllowed(h.host) {
		c.closeAfter = true // the body stays unread
		c.srv.api.stamp(&c.x)
		c.srv.api.writeError(&c.x, ddberr.HostNotAllowed(string(h.host)), 0)
		return false
	}
	if c.srv.api.auth != nil {
		if err := c.srv.api.checkHead(&c.x); err != nil {
			c.closeAfter = true
			c.srv.api.stamp(&c.x)
			c.srv.api.writeError(&c.x, err, 0)
			return false
		}
	}
	if length > c.srv.api.maxBody {
		c.refuseOversize(length)
		return false
	}
	br, err := c.readBody(length)
	defer br.release()
	if err != nil {
		if isDDBError(err) { // over the memory budget
			c.closeAfter = true
			c.srv.api.stamp(&c.x)
			c.srv.api.writeError(&c.x, err, 0)
		}
		return false
	}
	body := br.body
	if c.srv.api.auth != nil {
		c.x.signed.Body = body // valid for this request only (a pooled buffer)
		if err := c.srv.api.checkSignature(&c.x); err != nil {
			c.srv.api.stamp(&c.x)
			c.srv.api.writeError(&c.x, err, 0)
			return c.werr == nil && !c.closeAfter && !c.srv.shutting.Load()
		}
	}
	if !acceptedContentType(contentType) {
		c.srv.api.stamp(&c.x)
		c.srv.api.writeError(&c.x, ddberr.UnknownOperation(), http.StatusNotFound)
	} else {
		c.srv.api.serve(&c.x, body)
	}
	return c.werr == nil && !c.closeAfter && !c.srv.shutting.Load()
}

// readBody reads a body of length bytes. One already buffered whole is
// read at once; any other is watched by the janitor while it arrives
// (bodySince, bodyGot), which closes the connection when it is too slow.
func (c *fastConn) readBody(length int64) (bodyRead, error) {
	if length <= int64(c.br.Buffered()) {
		return c.srv.api.readBody(c.br, length, nil)
	}
	c.bodyGot.Store(0)
	c.bodySince.Store(time.Now().UnixNano())
	defer c.bodySince.Store(0)
	return c.srv.api.readBody(c.br, length, c.bodyGot.Store)
}

// refuseOversize answers a body over the size limit with DynamoDB's bare
// 413 and closes the connection, after reading and dropping what the
// client sends of it (up to 4 times the limit, under the body deadlines),
// so that a client still sending sees the answer rather than a reset.
func (c *fastConn) refuseOversize(length int64) {
	c.bodyGot.Store(0)
	c.bodySince.Store(time.Now().UnixNano())
	var got int64
	_, _ = io.CopyN(io.Discard, readFunc(func(p []byte) (int, error) {
		n, err := c.br.Read(p)
		got += int64(n)
		c.bodyGot.Store(got)
		return n, err
	}), min(length, 4*c.srv.api.maxBody))
	c.bodySince.Store(0)
	c.closeAfter = true
	c.srv.api.stamp(&c.x)
	c.srv.api.writeError(&c.x, ddberr.ErrRequestTooLarge, 0)
}

// hostAllowed applies the origin policy to a Host value, remembering the
// last one it allowed.
func (c *fastConn) hostAllowed(host []byte) bool {
	if !c.srv.api.origins.CheckHost || bytes.Equal(host, c.hostOK) {
		return true
	}
	if !c.srv.api.origins.hostAllowed(string(host)) {
		return false
	}
	c.hostOK = append(c.hostOK[:0], host...)
	return true
}

// reuse returns *prev if it equals b, else remembers and returns a copy.
func (c *fastConn) reuse(prev *string, b []byte) string {
	if string(b) != *prev {
		*prev = string(b)
	}
	return *prev
}

// writeJSON implements replier.
func (c *fastConn) writeJSON(status int, enc string, body []byte) {
	c.write(status, false, enc, body)
}

// writeBare implements replier.
func (c *fastConn) writeBare(status int) {
	c.write(status, true, "", nil)
}

// write sends one response with a single write (writev for large bodies).
func (c *fastConn) write(status int, bare bool, enc string, body []byte) {
	if c.srv.shutting.Load() {
		c.closeAfter = true
	}
	var crc uint32
	if !bare {
		crc = crc32.ChecksumIEEE(body)
	}
	b := appendResponseHead(c.out[:0], status, bare, enc, crc, len(body), c.srv.dateHeader(), c.closeAfter)
	if len(b)+len(body) <= 64<<10 {
		b = append(b, body...)
		_, c.werr = c.rwc.Write(b)
	} else {
		bufs := net.Buffers{b, body}
		_, c.werr = bufs.WriteTo(c.rwc)
	}
	if cap(b) <= 64<<10 {
		c.out = b[:0]
	} else {
		c.out = nil
	}
}

// replayConn is a connection handed to net/http: reads drain the bytes
// the connection server had buffered before reading the socket.
type replayConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *replayConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// handoffListener is the net/http server's listener: it accepts the
// connections the connection server gives it.
type handoffListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// give passes c to net/http; false if that server has closed.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return handoffAddr{} }

type handoffAddr struct{}

func (handoffAddr) Network() string { return "handoff" }
func (handoffAddr) String() string  { return "handoff" }
