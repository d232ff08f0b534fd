package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// CheckBasic checks an HTTP basic authorization header value ("Basic
// base64(ID:SECRET)"): the user name is an access key ID, the password its
// secret. It is for the listeners a client cannot sign for (Prometheus
// scraping --metrics), never for DynamoDB's API. The secret is compared in
// constant time, and an unknown key costs the same comparison, so timing
// tells neither the secret nor which keys exist. A key bound to a session
// token is refused: basic authorization cannot carry the token. It returns
// the access key ID, or UnrecognizedClientException.
func (v *Verifier) CheckBasic(header string) (string, error) {
	refused := unrecognized("The security token included in the request is invalid.")
	enc, ok := strings.CutPrefix(header, "Basic ")
	if !ok {
		return "", missingToken()
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", refused
	}
	id, secret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", refused
	}
	cred, known := v.keys[id]
	// Compare digests, so that the comparison's time does not depend on
	// the secrets' lengths either.
	got, want := sha256.Sum256([]byte(secret)), sha256.Sum256([]byte(cred.Secret))
	match := subtle.ConstantTimeCompare(got[:], want[:]) == 1
	if !known || !match || cred.SessionToken != "" {
		return "", refused
	}
	return id, nil
}
