package auth

import (
	"crypto/sha256"
	"time"
)

// The pieces of SigV4 that Amazon S3's own signing rules (internal/s3api)
// share with DynamoDB's: the credentials, the clock, the region, the
// canonical header block and query, the string to sign and the signing
// key. S3 differs in what it hashes as the payload (the
// x-amz-content-sha256 header's value, UNSIGNED-PAYLOAD, or a chunked
// body's chunks), in encoding the path once, and in its error words, all
// of which s3api owns.

// Lookup is the credential of an access key ID, if this Verifier knows it.
func (v *Verifier) Lookup(id string) (Credential, bool) {
	c, ok := v.keys[id]
	return c, ok
}

// Region is the region requests must be signed for ("" accepts any).
func (v *Verifier) Region() string { return v.region }

// Now is the Verifier's clock.
func (v *Verifier) Now() time.Time { return v.now() }

// CanonicalRequest appends SigV4's canonical request to b with the path
// already in its canonical form (uri) and the payload hash as given (hex,
// or a literal such as UNSIGNED-PAYLOAD); the query is canonicalized as
// for every service (r.Query less the parameters skip names, which a
// presigned URL's signature leaves out).
func CanonicalRequest(b []byte, r *Request, uri string, signed []string, payloadHash string) []byte {
	b = append(b, r.Method...)
	b = append(b, '\n')
	b = append(b, uri...)
	b = append(b, '\n')
	b = append(b, canonicalQuery(r.Query)...)
	b = append(b, '\n')
	b = canonicalHeaders(b, r, signed)
	return append(b, payloadHash...)
}

// EscapePath is SigV4's encoding of a decoded path: every byte but the
// unreserved ones and '/' percent-encoded (S3 encodes the path once).
func EscapePath(path string) string { return escape(path, false) }

// StringToSign is SigV4's string to sign for a canonical request, with
// the credential scope (keyid/date/region/service/terminator) and the
// request time.
func StringToSign(canonical []byte, scope []string, stamp string) []byte {
	return stringToSign(nil, sha256.Sum256(canonical), scope, stamp)
}

// SigningKey derives SigV4's signing key of a secret for a day, region
// and service.
func SigningKey(secret, date, region, service string) []byte {
	key := hmacSHA256([]byte("AWS4"+secret), []byte(date))
	key = hmacSHA256(key, []byte(region))
	key = hmacSHA256(key, []byte(service))
	return hmacSHA256(key, []byte(terminator))
}

// HMAC is HMAC-SHA256 of data under key.
func HMAC(key, data []byte) []byte { return hmacSHA256(key, data) }
