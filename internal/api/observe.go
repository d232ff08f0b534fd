package api

import (
	"strings"
	"time"

	"github.com/kura-db/kura/internal/auth"
)

// The metrics and the request log (Options.Requests, Options.LogRequests)
// see a request when its answer is about to go out (send, and writeError's
// bare 413): serve stamps exchange.started (and so do the paths that refuse
// a request before serve: a wrong content type, an over-size body),
// writeError records the error type.

// stamp starts observing x when metrics or the request log are on: from
// now until observe.
func (s *Server) stamp(x *exchange) {
	if s.requests != nil || s.logReqs {
		x.errType, x.started = "", time.Now() // counted and logged when answered (observe)
	}
}

// observe counts and logs x's request, once, just before its answer goes
// out (so a client that has its answer finds it counted).
func (s *Server) observe(x *exchange, status int) {
	if x.started.IsZero() {
		return
	}
	d := time.Since(x.started)
	x.started = time.Time{}
	if s.requests != nil {
		s.requests.Observe(x.target, d, x.errType)
	}
	if s.logReqs {
		s.logRequest(x, status, d)
	}
}

// logRequest writes the request log's line for x.
func (s *Server) logRequest(x *exchange, status int, d time.Duration) {
	op := x.target
	if i := strings.LastIndexByte(op, '.'); i >= 0 {
		op = op[i+1:]
	}
	attrs := []any{"operation", op, "status", status, "duration", d, "remote", x.remote}
	if x.errType != "" {
		attrs = append(attrs, "error", x.errType)
	}
	if key := accessKeyID(x.authorization); key != "" {
		attrs = append(attrs, "key", key)
	}
	s.log.Info("request", attrs...)
}

// accessKeyID is the access key ID a SigV4 Authorization header names, or
// "" (none, or not one a log line should carry).
func accessKeyID(authorization string) string {
	parts := auth.CredentialScope(authorization)
	if len(parts) == 0 || len(parts[0]) > 128 || strings.ContainsAny(parts[0], " ,") {
		return ""
	}
	return parts[0]
}
