package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// Field is one request header field as received.
type Field struct{ Name, Value string }

// Request is what a signature covers: the request line, the header fields
// (Host among them) and the body, all as received (a compressed body
// before it is decompressed).
type Request struct {
	Method string
	Path   string // as sent, still percent-encoded
	Query  string // raw query string
	Fields []Field
	Body   []byte
}

// field returns the value of the first field named name
// (case-insensitive).
func (r *Request) field(name string) (string, bool) {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

func (r *Request) first(name string) string {
	v, _ := r.field(name)
	return v
}

const (
	algorithm = "AWS4-HMAC-SHA256"
	service   = "dynamodb"
	// terminator ends every credential scope.
	terminator = "aws4_request"
	// maxSkew is how far a request's time may be from the server's.
	maxSkew = 15 * time.Minute
	// basicFormat is ISO 8601's basic format, as X-Amz-Date carries it.
	basicFormat = "20060102T150405Z"
)

// Verifier checks request signatures against a set of credentials.
type Verifier struct {
	region  string
	regions map[string]bool // with OnlyRegions: the regions a scope may name
	keys    map[string]Credential
	now     func() time.Time

	mu   sync.Mutex
	keyc map[scopeKey][]byte // signing keys by access key and scope date
}

type scopeKey struct{ id, date, region string }

// NewVerifier returns a Verifier for requests to region, signed with one of
// creds; now is the clock (nil: time.Now). An empty region accepts every
// region a request's credential scope names (a server that keeps one
// database per access key and region).
func NewVerifier(region string, creds []Credential, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	v := &Verifier{region: region, keys: map[string]Credential{}, now: now, keyc: map[scopeKey][]byte{}}
	for _, c := range creds {
		v.keys[c.AccessKeyID] = c
	}
	return v
}

// OnlyRegions makes v accept requests scoped to any of regions (a server
// that serves several, --regions) instead of its one region.
func (v *Verifier) OnlyRegions(regions []string) *Verifier {
	v.regions = map[string]bool{}
	for _, r := range regions {
		v.regions[r] = true
	}
	return v
}

// UnknownRegion is DynamoDB's answer to a request whose credential scope
// names a region the endpoint does not serve (an endpoint of one region
// answers it to a request signed for another, or for a region that does
// not exist: "Credential should be scoped to a valid region, not
// 'eu-east-2'. ", InvalidSignatureException, HTTP 400; quoted in
// aws/aws-sdk-js#4002 and 3mcloud/falcano#47 from DynamoDB's answers).
func UnknownRegion(region string) *ddberr.Error {
	return invalidSignature(unknownRegionText(region))
}

func unknownRegionText(region string) string {
	return "Credential should be scoped to a valid region, not '" + region + "'. "
}

// Errors, all HTTP 400 as DynamoDB answers them.
func missingToken() *ddberr.Error {
	return ddberr.Service("MissingAuthenticationTokenException", "Request is missing Authentication Token")
}

func incomplete(msg string) *ddberr.Error {
	return ddberr.Service("IncompleteSignatureException", msg)
}

func invalidSignature(msg string) *ddberr.Error {
	return ddberr.Service("InvalidSignatureException", msg)
}

func unrecognized(msg string) *ddberr.Error {
	return ddberr.Service("UnrecognizedClientException", msg)
}

const mismatch = "The request signature we calculated does not match the signature you provided. " +
	"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

// authHeader is a parsed Authorization header.
type authHeader struct {
	raw, alg                         string
	credential, signed, signature    string
	hasCred, hasSigned, hasSignature bool
}

// Head is what CheckHead learned from a request's head, for
// CheckSignature to finish with once the body has arrived.
type Head struct {
	cred      Credential
	scope     []string
	signed    []string
	stamp     string
	signature string // as sent, hex
}

// Verify checks r's signature: CheckHead, then CheckSignature. It returns
// the access key ID that signed it, or DynamoDB's error for the first thing
// wrong.
func (v *Verifier) Verify(r *Request) (string, error) {
	h, err := v.CheckHead(r)
	if err != nil {
		return "", err
	}
	return v.CheckSignature(r, h)
}

// CheckHead checks everything about r's authentication that its head
// alone decides, in DynamoDB's order: the header's presence, its parts and
// the request time, the clock skew, the credential scope, that Host and
// the other headers that must be are signed, the access key and the
// session token. It reads no body (r.Body may still be unread), so a
// server can refuse an unauthenticated request before it buffers its body.
func (v *Verifier) CheckHead(r *Request) (Head, error) {
	raw, ok := r.field("Authorization")
	if !ok || !strings.HasPrefix(raw, "AWS4-") {
		return Head{}, missingToken()
	}
	h, err := parseAuthorization(raw)
	if err != nil {
		return Head{}, err
	}
	at, stamp, err := requestTime(r, h)
	if err != nil {
		return Head{}, err
	}
	if h.alg != algorithm {
		return Head{}, incomplete("Unsupported AWS 'algorithm': '" + h.alg + "' (only " + algorithm + " for now). ")
	}
	if err := v.checkSkew(at); err != nil {
		return Head{}, err
	}
	scope := strings.Split(h.credential, "/")
	if len(scope) != 5 {
		return Head{}, incomplete("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '" + h.credential + "'")
	}
	if err := v.checkScope(scope, stamp); err != nil {
		return Head{}, err
	}
	signed := strings.Split(h.signed, ";")
	if !slices.Contains(signed, "host") && !slices.Contains(signed, ":authority") {
		return Head{}, incomplete("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
	}
	if err := checkSignedHeaders(r, signed); err != nil {
		return Head{}, err
	}
	cred, known := v.keys[scope[0]]
	if !known {
		return Head{}, unrecognized("The security token included in the request is invalid.")
	}
	if tok := r.first("X-Amz-Security-Token"); subtle.ConstantTimeCompare([]byte(tok), []byte(cred.SessionToken)) != 1 {
		return Head{}, unrecognized("The security token included in the request is invalid")
	}
	return Head{cred: cred, scope: scope, signed: signed, stamp: stamp, signature: h.signature}, nil
}

// CheckSignature finishes what CheckHead began: it computes r's signature
// (over the head and the body, now whole) and compares it with the one
// sent. It returns the access key ID that signed r.
func (v *Verifier) CheckSignature(r *Request, h Head) (string, error) {
	want := v.signature(r, h.cred, h.scope, h.signed, h.stamp)
	got, err := hex.DecodeString(h.signature)
	if err != nil || !hmac.Equal(got, want) {
		return "", mismatchError(r, h.scope, h.signed, h.stamp)
	}
	return h.cred.AccessKeyID, nil
}

// mustSign are the headers a signature must cover when the request has
// them. AWS's Signature Version 4 guide asks for every x-amz-* header a
// request carries to be signed; Kura holds requests to it for the ones
// that decide what a request does, so a captured request cannot be
// replayed as another operation (X-Amz-Target) or at another time or in
// another session. A header left out is answered in the words DynamoDB
// uses for an unsigned Host (IncompleteSignatureException): no capture of
// DynamoDB's own answer was found, and the AWS SDKs and CLI sign every
// one of these, so none of their requests meets this error. (Not
// Content-Type, which the guide also names: hand-made signers leave out
// the one their HTTP library adds, and Kura's answer does not depend on
// it. Not Content-Encoding: DynamoDB takes a gzip body whose
// Content-Encoding was added after signing, as ScyllaDB's Alternator
// tests, run against DynamoDB, do.)
var mustSign = []string{"X-Amz-Target", "X-Amz-Date", "X-Amz-Security-Token"}

// checkSignedHeaders refuses a signature that leaves out a header of
// mustSign the request has.
func checkSignedHeaders(r *Request, signed []string) error {
	for _, name := range mustSign {
		if _, present := r.field(name); present && !slices.Contains(signed, strings.ToLower(name)) {
			return incomplete("'" + name + "' must be a 'SignedHeader' in the AWS Authorization.")
		}
	}
	return nil
}

// mismatchError is DynamoDB's answer to a wrong signature: after the
// fixed text it shows the canonical request and the string to sign the
// server computed, so a client can compare them with its own (neither
// depends on the secret).
func mismatchError(r *Request, scope, signed []string, stamp string) *ddberr.Error {
	canonical := canonicalRequest(nil, r, signed)
	sts := stringToSign(nil, sha256.Sum256(canonical), scope, stamp)
	return invalidSignature(mismatch + "\n\nThe Canonical String for this request should have been\n'" + string(canonical) +
		"'\n\nThe String-to-Sign should have been\n'" + string(sts) + "'\n")
}

// parseAuthorization splits "ALG Credential=..., SignedHeaders=...,
// Signature=..." (parts separated by commas and/or spaces). Missing parts
// are reported later, with the request time (requestTime).
func parseAuthorization(raw string) (authHeader, error) {
	h := authHeader{raw: raw}
	alg, rest, _ := strings.Cut(raw, " ")
	h.alg = alg
	for rest != "" {
		i := strings.IndexAny(rest, ", ")
		tok := rest
		if i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if tok == "" {
			continue
		}
		k, val, ok := strings.Cut(tok, "=")
		if !ok {
			return h, incomplete("'" + tok + "' not a valid key=value pair (missing equal-sign) in Authorization header: '" + raw + "'.")
		}
		switch k {
		case "Credential":
			h.credential, h.hasCred = val, true
		case "SignedHeaders":
			h.signed, h.hasSigned = val, true
		case "Signature":
			h.signature, h.hasSignature = val, true
		}
	}
	return h, nil
}

// requestTime reads X-Amz-Date (or Date) and reports the header's missing
// parts with a missing date, as DynamoDB does, in one message.
func requestTime(r *Request, h authHeader) (time.Time, string, error) {
	amz := r.first("X-Amz-Date")
	date := r.first("Date")
	var msg strings.Builder
	if !h.hasCred {
		msg.WriteString("Authorization header requires 'Credential' parameter. ")
	}
	if !h.hasSignature {
		msg.WriteString("Authorization header requires 'Signature' parameter. ")
	}
	if !h.hasSigned {
		msg.WriteString("Authorization header requires 'SignedHeaders' parameter. ")
	}
	if amz == "" && date == "" {
		msg.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
	}
	if msg.Len() > 0 {
		return time.Time{}, "", incomplete(msg.String() + "Authorization=" + h.raw)
	}
	if amz != "" {
		t, err := time.Parse(basicFormat, amz)
		if err != nil {
			return time.Time{}, "", incomplete("Date must be in ISO-8601 'basic format'. Got '" + amz + "'. See http://en.wikipedia.org/wiki/ISO_8601")
		}
		return t, amz, nil
	}
	t, err := http.ParseTime(date)
	if err != nil {
		return time.Time{}, "", incomplete("Date must be in ISO-8601 'basic format'. Got '" + date + "'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	return t.UTC(), t.UTC().Format(basicFormat), nil
}

// checkSkew refuses a request time more than 15 minutes from the clock.
func (v *Verifier) checkSkew(at time.Time) error {
	now := v.now().UTC().Truncate(time.Second)
	if at.Before(now.Add(-maxSkew)) {
		return invalidSignature("Signature expired: " + at.Format(basicFormat) + " is now earlier than " +
			now.Add(-maxSkew).Format(basicFormat) + " (" + now.Format(basicFormat) + " - 15 min.)")
	}
	if at.After(now.Add(maxSkew)) {
		return invalidSignature("Signature not yet current: " + at.Format(basicFormat) + " is still later than " +
			now.Add(maxSkew).Format(basicFormat) + " (" + now.Format(basicFormat) + " + 15 min.)")
	}
	return nil
}

// checkScope checks the credential scope keyid/date/region/service/term,
// every wrong part in one message.
func (v *Verifier) checkScope(scope []string, stamp string) error {
	var msg strings.Builder
	if v.regions != nil && !v.regions[scope[2]] || v.regions == nil && v.region != "" && scope[2] != v.region {
		msg.WriteString(unknownRegionText(scope[2]))
	}
	if scope[3] != service {
		msg.WriteString("Credential should be scoped to correct service: '" + service + "'. ")
	}
	if scope[4] != terminator {
		msg.WriteString("Credential should be scoped with a valid terminator: '" + terminator + "', not '" + scope[4] + "'. ")
	}
	if day := stamp[:8]; scope[1] != day {
		msg.WriteString("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" +
			scope[1] + "' != '" + day + "', from '" + stamp + "'.")
	}
	if msg.Len() > 0 {
		return invalidSignature(msg.String())
	}
	return nil
}

// signature computes the request's SigV4 signature. The canonical request
// and the string to sign are built in a pooled buffer.
func (v *Verifier) signature(r *Request, cred Credential, scope, signed []string, stamp string) []byte {
	bp := buffers.Get().(*[]byte)
	defer buffers.Put(bp)
	b := canonicalRequest((*bp)[:0], r, signed)
	b = stringToSign(b[:0], sha256.Sum256(b), scope, stamp)
	*bp = b
	return hmacSHA256(v.signingKey(cred, scope[1], scope[2]), b)
}

// stringToSign appends SigV4's string to sign for a canonical request
// whose hash is sum to b: the algorithm, the request time, the credential
// scope (without the key) and the hash in hex, one per line.
func stringToSign(b []byte, sum [sha256.Size]byte, scope []string, stamp string) []byte {
	b = append(b, algorithm+"\n"...)
	b = append(b, stamp...)
	b = append(b, '\n')
	for i, part := range scope[1:] {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, part...)
	}
	b = append(b, '\n')
	return hex.AppendEncode(b, sum[:])
}

// buffers recycles signature buffers.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// signingKey derives (and caches, per key, day and region) the key that signs the
// string to sign.
func (v *Verifier) signingKey(cred Credential, date, region string) []byte {
	k := scopeKey{cred.AccessKeyID, date, region}
	v.mu.Lock()
	defer v.mu.Unlock()
	if key, ok := v.keyc[k]; ok {
		return key
	}
	key := hmacSHA256([]byte("AWS4"+cred.Secret), []byte(date))
	key = hmacSHA256(key, []byte(region))
	key = hmacSHA256(key, []byte(service))
	key = hmacSHA256(key, []byte(terminator))
	if len(v.keyc) > 1024 {
		clear(v.keyc)
	}
	v.keyc[k] = key
	return key
}

func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}
