package api

import "net/http"

// CORS, for applications that call DynamoDB from a browser. A request
// from an origin the OriginPolicy allows is answered with
// Access-Control-Allow-Origin (that origin, or * when every origin is
// allowed) and the headers a script may read; a preflight (OPTIONS) is
// answered at once, allowing the method and headers it asks for. A
// request without Origin gets none of these headers (DynamoDB's
// behaviour, as ScyllaDB's Alternator tests, which are run against
// DynamoDB, check it). A preflight from an origin not allowed is answered
// 403 without them, so the browser never sends the request; any other
// request from such an origin gets no CORS headers, so the page cannot
// read the answer.

// corsMaxAge is how long a browser may keep a preflight's answer, in
// seconds.
const corsMaxAge = "86400"

// corsExposed are the response headers a script may read.
const corsExposed = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,x-amz-crc32,Date"

// cors adds the CORS headers to a browser's request and answers its
// preflight; it reports whether the request has been answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	h := w.Header()
	allowed := s.origins.originAllowed(origin, r.Host)
	if allowed {
		if s.origins.anyOrigin() {
			h.Set("Access-Control-Allow-Origin", "*")
		} else {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
		}
		h.Set("Access-Control-Expose-Headers", corsExposed)
	}
	if r.Method != http.MethodOptions {
		return false
	}
	h["Server"] = serverHeader
	h["X-Amzn-Requestid"] = []string{newRequestID()}
	h["Content-Length"] = []string{"0"}
	if !allowed {
		w.WriteHeader(http.StatusForbidden)
		return true
	}
	h.Set("Access-Control-Max-Age", corsMaxAge)
	if m := r.Header.Get("Access-Control-Request-Method"); m != "" {
		h.Set("Access-Control-Allow-Methods", m)
	}
	if hd := r.Header.Get("Access-Control-Request-Headers"); hd != "" {
		h.Set("Access-Control-Allow-Headers", hd)
	}
	w.WriteHeader(http.StatusOK)
	return true
}
