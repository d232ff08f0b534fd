package test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"
)

// clientAs is an SDK client of k signing with the given key and secret.
func clientAs(k *kura, key, secret string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(k.endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider(key, secret, ""),
		RetryMaxAttempts: 1,
	})
}

// wrongSecret signs a request with a wrong secret: DynamoDB's answer shows
// the canonical request and the string to sign it computed, which here
// must be the very ones the SDK's signer logged (only the key differs).
func wrongSecret(t *testing.T, k *kura) {
	t.Helper()
	var log bytes.Buffer
	c := dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(k.endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDKURA", "wrong-secret", ""),
		RetryMaxAttempts: 1,
		ClientLogMode:    aws.LogSigning,
		Logger:           logging.NewStandardLogger(&log),
	})
	_, err := c.ListTables(bg, &dynamodb.ListTablesInput{})
	_, logged, _ := strings.Cut(log.String(), "---[ CANONICAL STRING  ]-----------------------------\n")
	canonical, logged, _ := strings.Cut(logged, "\n---[ STRING TO SIGN ]--------------------------------\n")
	sts, _, _ := strings.Cut(logged, "\n-----")
	if canonical == "" || !strings.HasPrefix(sts, "AWS4-HMAC-SHA256\n") {
		t.Fatalf("the SDK logged no signature: %q", log.String())
	}
	wantAPIError(t, err, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. "+
		"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."+
		"\n\nThe Canonical String for this request should have been\n'"+canonical+"'\n\nThe String-to-Sign should have been\n'"+sts+"'\n")
}

// With credentials configured, only requests signed with one of them get
// in; the others get DynamoDB's authentication errors. The health check
// stays open.
func TestAuthentication(t *testing.T) {
	file := filepath.Join(t.TempDir(), "creds")
	if err := os.WriteFile(file, []byte("# operators\nAKIDFILE:file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := startKura(t, "--in-memory", "--credentials", "AKIDKURA:kura-secret", "--credentials-file", file)

	for _, c := range []*dynamodb.Client{clientAs(k, "AKIDKURA", "kura-secret"), clientAs(k, "AKIDFILE", "file-secret")} {
		if _, err := c.ListTables(bg, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("a signed request: %v", err)
		}
	}
	wrongSecret(t, k)
	_, err := clientAs(k, "AKIDSTRANGER", "kura-secret").ListTables(bg, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")

	// Unsigned: no Authorization header at all.
	typ, msg := rawCall(t, k, "ListTables", `{}`)
	if typ != "MissingAuthenticationTokenException" || msg != "Request is missing Authentication Token" {
		t.Fatalf("unsigned: %s %q", typ, msg)
	}
	resp, err := http.Get(k.endpoint + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health check: %v %v", err, resp)
	}
	resp.Body.Close()
}

// A signed request that net/http serves (one with an Origin header, say)
// is checked the same way, its signature covering the body as sent.
func TestAuthenticationSlowPath(t *testing.T) {
	k := startKura(t, "--in-memory", "--credentials", "AKIDKURA:kura-secret")
	send := func(secret, body string, tamper bool) (int, string) {
		req, err := http.NewRequest("POST", k.endpoint+"/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		req.Header.Set("Origin", "http://example.test")
		signAs(t, req, "AKIDKURA", secret, []byte(body))
		if tamper {
			req.Body = io.NopCloser(bytes.NewReader([]byte(`{"Limit":7}`)))
			req.ContentLength = int64(len(`{"Limit":7}`))
		}
		return do(t, req)
	}
	if code, body := send("kura-secret", `{"Limit":5}`, false); code != 200 {
		t.Fatalf("signed: %d %s", code, body)
	}
	if code, body := send("kura-secret", `{"Limit":5}`, true); code != 400 || !strings.Contains(body, "InvalidSignatureException") {
		t.Fatalf("tampered body: %d %s", code, body)
	}
}

// signAs signs req (whose body is body) for DynamoDB in us-east-1 with the
// Go SDK's SigV4 signer.
func signAs(t *testing.T, req *http.Request, key, secret string, body []byte) {
	t.Helper()
	signIn(t, req, key, secret, "us-east-1", body)
}

// signIn signs req (whose body is body) for DynamoDB in region.
func signIn(t *testing.T, req *http.Request, key, secret, region string, body []byte) {
	t.Helper()
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", region, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// do sends req and returns the status and body of the answer.
func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// With authentication on, the --admin endpoints (advancing the clock
// expires items) take a signed request too, with DynamoDB's errors.
func TestAuthenticationAdmin(t *testing.T) {
	k := startKura(t, "--in-memory", "--admin", "--credentials", "AKIDKURA:kura-secret")
	post := func(path, secret string) (int, string) {
		req, err := http.NewRequest("POST", k.endpoint+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if secret != "" {
			signAs(t, req, "AKIDKURA", secret, nil)
		}
		return do(t, req)
	}
	for _, path := range []string{"/admin/ttl/expire", "/admin/clock/advance?by=1h"} {
		if code, body := post(path, ""); code != 400 || !strings.Contains(body, "MissingAuthenticationTokenException") {
			t.Errorf("unsigned %s: %d %s", path, code, body)
		}
		if code, body := post(path, "wrong"); code != 400 || !strings.Contains(body, "InvalidSignatureException") {
			t.Errorf("%s signed with a wrong secret: %d %s", path, code, body)
		}
		if code, body := post(path, "kura-secret"); code != 200 {
			t.Errorf("signed %s: %d %s", path, code, body)
		}
	}
}

// A flag that names no credential is refused rather than leaving the
// server open.
func TestAuthenticationFlags(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("# nobody\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--credentials", ","}, {"--credentials", "AKIDONLY"}, {"--credentials-file", empty}} {
		if out := runKuraToFailure(t, append([]string{"--in-memory", "--listen", "127.0.0.1:0"}, args...)...); !strings.Contains(out, "credential") {
			t.Fatalf("kura with %v: %s", args, out)
		}
	}
}
