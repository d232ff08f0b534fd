package s3api

import (
	"crypto/hmac"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/auth"
)

// S3's SigV4 (the Amazon S3 API Reference, "Authenticating Requests (AWS
// Signature Version 4)"): the path is encoded once, the payload hash is
// the x-amz-content-sha256 header's value (a hex SHA-256, UNSIGNED-PAYLOAD,
// or a STREAMING-... mode whose chunks carry their own signatures,
// chunked.go), and a presigned URL carries the signature in its query.

const (
	algorithm       = "AWS4-HMAC-SHA256"
	service         = "s3"
	terminator      = "aws4_request"
	unsignedPayload = "UNSIGNED-PAYLOAD"
	streamSigned    = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	streamSignedTr  = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	streamUnsignTr  = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	basicFormat     = "20060102T150405Z"
	maxSkew         = 15 * time.Minute
	maxPresign      = 7 * 24 * time.Hour
)

var hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// payload is how a request's body is to be read and checked: the SHA-256
// it must have (hex; "" when unsigned), whether it is aws-chunked, and for
// signed chunks what their signatures chain from.
type payload struct {
	sha256    string
	chunked   bool
	trailer   bool // the chunked body ends in trailing headers (x-amz-trailer)
	signed    bool // each chunk (and the trailer) is signed
	key       []byte
	scope     string // date/region/s3/aws4_request
	stamp     string
	seed      string // the request's signature, which the first chunk's chains from
	accessKey string // the key that signed the request ("" with authentication off)
}

// payloadOf reads x-amz-content-sha256 (which S3 requires with header
// authentication; a presigned URL's payload is unsigned).
func payloadOf(r *http.Request, required bool) (payload, *Error) {
	v := r.Header.Get("X-Amz-Content-Sha256")
	switch {
	case v == "":
		if required {
			return payload{}, errInvalidRequest("Missing required header for this request: x-amz-content-sha256")
		}
		return payload{}, nil
	case v == unsignedPayload:
		return payload{}, nil
	case v == streamSigned:
		return payload{chunked: true, signed: true}, nil
	case v == streamSignedTr:
		return payload{chunked: true, signed: true, trailer: true}, nil
	case v == streamUnsignTr:
		return payload{chunked: true, trailer: true}, nil
	case hexSHA256.MatchString(v):
		return payload{sha256: v}, nil
	}
	return payload{}, errInvalidArgument("x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, "+
		"STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.", "x-amz-content-sha256", v)
}

// authenticate checks the request's signature when authentication is on
// and returns how its body is to be read.
func (h *Handler) authenticate(r *http.Request) (payload, *Error) {
	authz := r.Header.Get("Authorization")
	presigned := authz == "" && r.URL.Query().Has("X-Amz-Algorithm")
	if h.auth == nil {
		return payloadOf(r, false)
	}
	switch {
	case presigned:
		return h.checkPresigned(r)
	case authz == "":
		return payload{}, errAccessDenied
	case strings.HasPrefix(authz, "AWS "):
		return payload{}, errInvalidRequest("The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.")
	}
	return h.checkHeader(r, authz)
}

// sigParts are the parts of a signature, from the header or the query.
type sigParts struct {
	credential, signed, signature string
	stamp                         string
}

func parseAuthHeader(authz string) (sigParts, *Error) {
	alg, rest, _ := strings.Cut(authz, " ")
	if alg != algorithm {
		return sigParts{}, errInvalidArgument("Unsupported Authorization Type", "Authorization", authz)
	}
	var p sigParts
	for _, tok := range strings.FieldsFunc(rest, func(c rune) bool { return c == ',' || c == ' ' }) {
		k, v, _ := strings.Cut(tok, "=")
		switch k {
		case "Credential":
			p.credential = v
		case "SignedHeaders":
			p.signed = v
		case "Signature":
			p.signature = v
		}
	}
	if p.credential == "" || p.signed == "" || p.signature == "" {
		return p, errMalformedAuth("the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".")
	}
	return p, nil
}

// checkHeader checks header authentication (an Authorization header).
func (h *Handler) checkHeader(r *http.Request, authz string) (payload, *Error) {
	p, e := parseAuthHeader(authz)
	if e != nil {
		return payload{}, e
	}
	scope, cred, e := h.checkCredential(p.credential, errMalformedAuth)
	if e != nil {
		return payload{}, e
	}
	p.stamp = r.Header.Get("X-Amz-Date")
	if p.stamp == "" {
		if t, err := http.ParseTime(r.Header.Get("Date")); err == nil {
			p.stamp = t.UTC().Format(basicFormat)
		}
	}
	at, err := time.Parse(basicFormat, p.stamp)
	if err != nil {
		return payload{}, newErr("AccessDenied", http.StatusForbidden, "AWS authentication requires a valid Date or x-amz-date header")
	}
	if e := h.checkTime(at, scope, p.stamp, errMalformedAuth); e != nil {
		return payload{}, e
	}
	if e := checkToken(r.Header.Get("X-Amz-Security-Token"), cred); e != nil {
		return payload{}, e
	}
	pl, e := payloadOf(r, true)
	if e != nil {
		return payload{}, e
	}
	hash := r.Header.Get("X-Amz-Content-Sha256")
	key, e := h.verify(r, p, scope, cred, r.URL.RawQuery, hash)
	if e != nil {
		return payload{}, e
	}
	if pl.signed {
		pl.key, pl.scope, pl.stamp, pl.seed = key, strings.Join(scope[1:], "/"), p.stamp, p.signature
	}
	pl.accessKey = scope[0]
	return pl, nil
}

// checkPresigned checks query-string authentication (a presigned URL).
func (h *Handler) checkPresigned(r *http.Request) (payload, *Error) {
	q := r.URL.Query()
	if q.Get("X-Amz-Algorithm") != algorithm {
		return payload{}, errQueryAuth("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
	}
	p := sigParts{credential: q.Get("X-Amz-Credential"), signed: q.Get("X-Amz-SignedHeaders"),
		signature: q.Get("X-Amz-Signature"), stamp: q.Get("X-Amz-Date")}
	if p.credential == "" || p.signed == "" || p.signature == "" || p.stamp == "" || q.Get("X-Amz-Expires") == "" {
		return payload{}, errQueryAuth("Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, " +
			"X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
	}
	scope, cred, e := h.checkCredential(p.credential, func(msg string) *Error { return errQueryAuth("Error parsing the X-Amz-Credential parameter; " + msg) })
	if e != nil {
		return payload{}, e
	}
	at, err := time.Parse(basicFormat, p.stamp)
	if err != nil {
		return payload{}, errQueryAuth("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
	}
	expires, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	switch {
	case err != nil || expires < 0:
		return payload{}, errQueryAuth("X-Amz-Expires should be a number")
	case time.Duration(expires)*time.Second > maxPresign:
		return payload{}, errQueryAuth("X-Amz-Expires must be less than a week (in seconds) that is 604800")
	}
	now := h.auth.Now()
	if at.After(now.Add(maxSkew)) {
		return payload{}, newErr("AccessDenied", http.StatusForbidden, "Request is not valid yet")
	}
	if now.After(at.Add(time.Duration(expires) * time.Second)) {
		return payload{}, errExpired
	}
	if scope[1] != p.stamp[:8] {
		return payload{}, errQueryAuth("Error parsing the X-Amz-Credential parameter; incorrect date format \"" + scope[1] + "\". This date in the credential must be in the format \"yyyyMMdd\".")
	}
	if e := checkToken(q.Get("X-Amz-Security-Token"), cred); e != nil {
		return payload{}, e
	}
	if _, e := h.verify(r, p, scope, cred, withoutSignature(r.URL.RawQuery), unsignedPayload); e != nil {
		return payload{}, e
	}
	return payload{accessKey: scope[0]}, nil
}

// withoutSignature is a raw query less its X-Amz-Signature parameter.
func withoutSignature(raw string) string {
	parts := strings.Split(raw, "&")
	parts = slices.DeleteFunc(parts, func(kv string) bool { return strings.HasPrefix(kv, "X-Amz-Signature=") })
	return strings.Join(parts, "&")
}

// checkCredential checks a credential scope keyid/date/region/s3/
// aws4_request and finds its key.
func (h *Handler) checkCredential(credential string, malformed func(string) *Error) ([]string, auth.Credential, *Error) {
	scope := strings.Split(credential, "/")
	if len(scope) != 5 {
		return nil, auth.Credential{}, malformed("the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".")
	}
	if region := h.auth.Region(); region != "" && scope[2] != region {
		return nil, auth.Credential{}, malformed("the region '"+scope[2]+"' is wrong; expecting '"+region+"'").with("Region", region)
	}
	if scope[3] != service {
		return nil, auth.Credential{}, malformed("incorrect service \"" + scope[3] + "\". This endpoint belongs to \"" + service + "\".")
	}
	if scope[4] != terminator {
		return nil, auth.Credential{}, malformed("incorrect terminal \"" + scope[4] + "\". This endpoint uses \"" + terminator + "\".")
	}
	cred, ok := h.auth.Lookup(scope[0])
	if !ok {
		return nil, auth.Credential{}, errUnknownKey.with("AWSAccessKeyId", scope[0])
	}
	return scope, cred, nil
}

// checkTime checks a header-signed request's time against the clock and
// its credential's date.
func (h *Handler) checkTime(at time.Time, scope []string, stamp string, malformed func(string) *Error) *Error {
	now := h.auth.Now().UTC()
	if at.Before(now.Add(-maxSkew)) || at.After(now.Add(maxSkew)) {
		return errSkewed.with("RequestTime", stamp).with("ServerTime", now.Format(time.RFC3339)).
			with("MaxAllowedSkewMilliseconds", "900000")
	}
	if scope[1] != stamp[:8] {
		return malformed("Invalid credential date \"" + scope[1] + "\". This date is not the same as X-Amz-Date: \"" + stamp[:8] + "\".")
	}
	return nil
}

// checkToken compares the session token sent with the credential's.
func checkToken(tok string, cred auth.Credential) *Error {
	if subtle.ConstantTimeCompare([]byte(tok), []byte(cred.SessionToken)) != 1 {
		return errBadToken
	}
	return nil
}

// verify computes the request's signature and compares it with the one
// sent, returning the signing key (for signed chunks).
func (h *Handler) verify(r *http.Request, p sigParts, scope []string, cred auth.Credential, query, payloadHash string) ([]byte, *Error) {
	signed := strings.Split(p.signed, ";")
	if !slices.Contains(signed, "host") {
		return nil, errMalformedAuth("the SignedHeaders must include host").with("SignedHeaders", p.signed)
	}
	req := auth.Request{Method: r.Method, Query: query, Fields: fieldsOf(r)}
	canonical := auth.CanonicalRequest(nil, &req, canonicalURI(r.URL), signed, payloadHash)
	sts := auth.StringToSign(canonical, scope, p.stamp)
	key := auth.SigningKey(cred.Secret, scope[1], scope[2], service)
	want := auth.HMAC(key, sts)
	got, err := hex.DecodeString(p.signature)
	if err != nil || !hmac.Equal(got, want) {
		return nil, errSignature.with("AWSAccessKeyId", scope[0]).with("StringToSign", string(sts)).
			with("SignatureProvided", p.signature).with("CanonicalRequest", string(canonical))
	}
	return key, nil
}

// canonicalURI is the path as the SDKs sign it for S3: decoded, then
// encoded once.
func canonicalURI(u *url.URL) string {
	if u.Path == "" {
		return "/"
	}
	return auth.EscapePath(u.Path)
}

// fieldsOf are the request's header fields, Host and Content-Length
// among them (net/http keeps those apart).
func fieldsOf(r *http.Request) []auth.Field {
	fs := []auth.Field{{Name: "Host", Value: r.Host}}
	for name, vals := range r.Header {
		for _, v := range vals {
			fs = append(fs, auth.Field{Name: name, Value: v})
		}
	}
	if _, ok := r.Header["Content-Length"]; !ok && r.ContentLength >= 0 && r.TransferEncoding == nil {
		fs = append(fs, auth.Field{Name: "Content-Length", Value: strconv.FormatInt(r.ContentLength, 10)})
	}
	return fs
}
