package api

import "net/http"

// CORS, for applications that call DynamoDB from a browser. A request that
// names its Origin is answered with Access-Control-Allow-Origin: * and the
// headers a script may read; a preflight (OPTIONS) is answered at once,
// allowing the method and headers it asks for. A request without Origin
// gets none of these headers. (DynamoDB's behaviour, as ScyllaDB's
// Alternator tests, which are run against DynamoDB, check it.)

// corsMaxAge is how long a browser may keep a preflight's answer, in
// seconds.
const corsMaxAge = "86400"

// corsExposed are the response headers a script may read.
const corsExposed = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,x-amz-crc32,Date"

// cors adds the CORS headers to a browser's request and answers its
// preflight; it reports whether the request has been answered.
func cors(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", corsExposed)
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Max-Age", corsMaxAge)
	if m := r.Header.Get("Access-Control-Request-Method"); m != "" {
		h.Set("Access-Control-Allow-Methods", m)
	}
	if hd := r.Header.Get("Access-Control-Request-Headers"); hd != "" {
		h.Set("Access-Control-Allow-Headers", hd)
	}
	h["Server"] = serverHeader
	h["X-Amzn-Requestid"] = []string{newRequestID()}
	h["Content-Length"] = []string{"0"}
	w.WriteHeader(http.StatusOK)
	return true
}
