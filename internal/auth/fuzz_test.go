package auth

import (
	"errors"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// FuzzVerify feeds arbitrary Authorization and date headers and bodies to
// the verifier: it must answer (a key or one of DynamoDB's errors), never
// panic, and never accept a request it did not sign.
func FuzzVerify(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDKURA/20261201/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", "20261201T120000Z", "{}")
	f.Add("AWS4-", "", "")
	f.Add("AWS4-HMAC-SHA256 Credential=a/b/c/d/e SignedHeaders=host Signature", "201", "x")
	f.Add("AWS4-X Credential=/////, SignedHeaders=;;, Signature=zz", "Tue, 01 Dec 2026 12:00:00 GMT", "")
	v := NewVerifier("us-east-1", []Credential{{AccessKeyID: "AKIDKURA", Secret: "s3cret"}}, func() time.Time { return t0 })
	f.Fuzz(func(t *testing.T, authz, date, body string) {
		r := &Request{Method: "POST", Path: "/", Body: []byte(body),
			Fields: []Field{{"Host", "localhost"}, {"Authorization", authz}, {"X-Amz-Date", date}}}
		id, err := v.Verify(r)
		if err == nil {
			t.Fatalf("accepted a request nobody signed (key %q)", id)
		}
		var de *ddberr.Error
		if !errors.As(err, &de) || de.Status != 400 {
			t.Fatalf("not a DynamoDB error: %v", err)
		}
	})
}
