package auth

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Credential is one access key a Verifier accepts.
type Credential struct {
	AccessKeyID string
	Secret      string
	// SessionToken, when set, must come with every request signed with
	// this key (X-Amz-Security-Token); when empty, a request carrying a
	// token is refused, as DynamoDB refuses a token it did not issue.
	SessionToken string
}

// ParseCredential reads "ACCESS_KEY_ID:SECRET" or
// "ACCESS_KEY_ID:SECRET:SESSION_TOKEN".
func ParseCredential(s string) (Credential, error) {
	parts := strings.SplitN(strings.TrimSpace(s), ":", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Credential{}, fmt.Errorf("credential %q: want ACCESS_KEY_ID:SECRET[:SESSION_TOKEN]", redact(s))
	}
	c := Credential{AccessKeyID: parts[0], Secret: parts[1]}
	if len(parts) == 3 {
		c.SessionToken = parts[2]
	}
	return c, nil
}

// ParseCredentials reads a comma-separated list of credentials.
func ParseCredentials(s string) ([]Credential, error) {
	var out []Credential
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		c, err := ParseCredential(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ReadCredentials reads a credentials file: one credential per line
// (ParseCredential's form); blank lines and lines starting with # are
// skipped.
func ReadCredentials(r io.Reader) ([]Credential, error) {
	var out []Credential
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := ParseCredential(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// redact keeps a credential's key ID and hides the rest (errors must not
// print secrets).
func redact(s string) string {
	id, _, _ := strings.Cut(strings.TrimSpace(s), ":")
	return id + ":…"
}

// CredentialScope splits the credential a SigV4 Authorization header names
// ("AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/dynamodb/
// aws4_request, ...") into its slash-separated parts: access key ID, date,
// region, service, terminator, as far as they are there. nil when the
// header names no credential. Nothing is checked: the per-credential
// databases and the request log read it whether or not authentication is
// on (Verify checks it).
func CredentialScope(authorization string) []string {
	_, rest, ok := strings.Cut(authorization, "Credential=")
	if !ok {
		return nil
	}
	scope, _, _ := strings.Cut(rest, ",")
	return strings.Split(strings.TrimSpace(scope), "/")
}
