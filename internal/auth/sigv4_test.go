package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/kura-db/kura/internal/ddberr"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// signed builds a request the SDK's own signer signs, as Kura receives it.
func signed(t *testing.T, key, secret, token, region string, at time.Time, body string) *Request {
	t.Helper()
	req, err := http.NewRequest("POST", "http://127.0.0.1:8000/", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	sum := sha256.Sum256([]byte(body))
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: token}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", region, at); err != nil {
		t.Fatal(err)
	}
	r := &Request{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Body: []byte(body),
		Fields: []Field{{"Host", req.URL.Host}}}
	for name, vals := range req.Header {
		for _, v := range vals {
			r.Fields = append(r.Fields, Field{name, v})
		}
	}
	return r
}

func wantErr(t *testing.T, err error, typ, msg string) {
	t.Helper()
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Type != typ || de.Message != msg || de.FullType() != "com.amazon.coral.service#"+typ || de.Status != 400 {
		t.Fatalf("got %v\nwant %s: %s", err, typ, msg)
	}
}

// wantMismatch checks for a wrong signature's answer, whose canonical
// request TestVerify checks once in full.
func wantMismatch(t *testing.T, err error) {
	t.Helper()
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Type != "InvalidSignatureException" ||
		!strings.HasPrefix(de.Message, mismatch+"\n\nThe Canonical String for this request should have been\n'POST\n/\n") {
		t.Fatalf("got %v, want a signature mismatch", err)
	}
}

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestVerify(t *testing.T) {
	v := NewVerifier("us-east-1", []Credential{{AccessKeyID: "AKIDKURA", Secret: "s3cret"},
		{AccessKeyID: "ASIATEMP", Secret: "tmp", SessionToken: "tok"}}, func() time.Time { return t0 })
	body := `{"Limit":1}`

	id, err := v.Verify(signed(t, "AKIDKURA", "s3cret", "", "us-east-1", t0.Add(-time.Minute), body))
	if err != nil || id != "AKIDKURA" {
		t.Fatalf("a good signature: %q %v", id, err)
	}
	if _, err := v.Verify(signed(t, "ASIATEMP", "tmp", "tok", "us-east-1", t0, body)); err != nil {
		t.Fatalf("a good signature with its session token: %v", err)
	}

	// A wrong signature's answer shows the canonical request and the
	// string to sign the server computed (here for the body it received).
	r := signed(t, "AKIDKURA", "s3cret", "", "us-east-1", t0, body)
	r.Body = []byte(`{"Limit":2}`)
	_, err = v.Verify(r)
	canonical := "POST\n/\n\ncontent-length:11\ncontent-type:application/x-amz-json-1.0\nhost:127.0.0.1:8000\n" +
		"x-amz-date:20261201T120000Z\nx-amz-target:DynamoDB_20120810.ListTables\n\n" +
		"content-length;content-type;host;x-amz-date;x-amz-target\n" + hexSHA256(`{"Limit":2}`)
	wantErr(t, err, "InvalidSignatureException", mismatch+"\n\nThe Canonical String for this request should have been\n'"+canonical+
		"'\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n20261201T120000Z\n20261201/us-east-1/dynamodb/aws4_request\n"+
		hexSHA256(canonical)+"'\n")
	_, err = v.Verify(signed(t, "AKIDKURA", "wrong", "", "us-east-1", t0, body))
	wantMismatch(t, err)
	_, err = v.Verify(signed(t, "AKIDOTHER", "s3cret", "", "us-east-1", t0, body))
	wantErr(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")
	_, err = v.Verify(signed(t, "AKIDKURA", "s3cret", "forged", "us-east-1", t0, body))
	wantErr(t, err, "UnrecognizedClientException", "The security token included in the request is invalid")
	_, err = v.Verify(signed(t, "ASIATEMP", "tmp", "", "us-east-1", t0, body))
	wantErr(t, err, "UnrecognizedClientException", "The security token included in the request is invalid")

	_, err = v.Verify(signed(t, "AKIDKURA", "s3cret", "", "us-east-1", t0.Add(-16*time.Minute), body))
	wantErr(t, err, "InvalidSignatureException", "Signature expired: 20261201T114400Z is now earlier than 20261201T114500Z (20261201T120000Z - 15 min.)")
	_, err = v.Verify(signed(t, "AKIDKURA", "s3cret", "", "us-east-1", t0.Add(16*time.Minute), body))
	wantErr(t, err, "InvalidSignatureException", "Signature not yet current: 20261201T121600Z is still later than 20261201T121500Z (20261201T120000Z + 15 min.)")
	// The clock is checked before the key: an unknown key with a stale date is expired.
	_, err = v.Verify(signed(t, "AKIDOTHER", "x", "", "us-east-1", t0.Add(-time.Hour), body))
	wantErr(t, err, "InvalidSignatureException", "Signature expired: 20261201T110000Z is now earlier than 20261201T114500Z (20261201T120000Z - 15 min.)")
	_, err = v.Verify(signed(t, "AKIDKURA", "s3cret", "", "us-east-2", t0, body))
	wantErr(t, err, "InvalidSignatureException", "Credential should be scoped to a valid region, not 'us-east-2'. ")

	// Without a region of its own, a verifier takes any (one database per
	// key and region).
	any := NewVerifier("", []Credential{{AccessKeyID: "AKIDKURA", Secret: "s3cret"}}, func() time.Time { return t0 })
	if _, err := any.Verify(signed(t, "AKIDKURA", "s3cret", "", "eu-west-2", t0, body)); err != nil {
		t.Fatalf("any region: %v", err)
	}
	_, err = any.Verify(signed(t, "AKIDKURA", "wrong", "", "eu-west-2", t0, body))
	wantMismatch(t, err)

	// With OnlyRegions (--regions), a verifier takes those and no other.
	some := NewVerifier("", []Credential{{AccessKeyID: "AKIDKURA", Secret: "s3cret"}}, func() time.Time { return t0 }).OnlyRegions([]string{"us-east-1", "eu-west-1"})
	for _, r := range []string{"us-east-1", "eu-west-1"} {
		if _, err := some.Verify(signed(t, "AKIDKURA", "s3cret", "", r, t0, body)); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
	}
	_, err = some.Verify(signed(t, "AKIDKURA", "s3cret", "", "eu-west-2", t0, body))
	wantErr(t, err, "InvalidSignatureException", "Credential should be scoped to a valid region, not 'eu-west-2'. ")
}

func TestVerifyHeaderShape(t *testing.T) {
	v := NewVerifier("us-east-1", []Credential{{AccessKeyID: "AKIDKURA", Secret: "s3cret"}}, func() time.Time { return t0 })
	req := func(authz string, fields ...Field) *Request {
		r := &Request{Method: "POST", Path: "/", Fields: append([]Field{{"Host", "localhost"}}, fields...)}
		if authz != "" {
			r.Fields = append(r.Fields, Field{"Authorization", authz})
		}
		return r
	}
	date := Field{"X-Amz-Date", "20261201T120000Z"}
	_, err := v.Verify(req(""))
	wantErr(t, err, "MissingAuthenticationTokenException", "Request is missing Authentication Token")
	_, err = v.Verify(req("X", date))
	wantErr(t, err, "MissingAuthenticationTokenException", "Request is missing Authentication Token")
	_, err = v.Verify(req("AWS4-"))
	wantErr(t, err, "IncompleteSignatureException", "Authorization header requires 'Credential' parameter. "+
		"Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. "+
		"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-")
	_, err = v.Verify(req("AWS4-HMAC-SHA256 Credential=AKIDKURA/20261201/us-east-1/dynamodb/aws4_request, SignedHeaders=x-amz-date, Signature=00", date))
	wantErr(t, err, "IncompleteSignatureException", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
	_, err = v.Verify(req("AWS4-HMAC-SHA256 Credential=AKIDKURA/20261201/us-east-1/dynamodb/aws4_request SignedHeaders=host Signature", date))
	wantErr(t, err, "IncompleteSignatureException", "'Signature' not a valid key=value pair (missing equal-sign) in Authorization header: "+
		"'AWS4-HMAC-SHA256 Credential=AKIDKURA/20261201/us-east-1/dynamodb/aws4_request SignedHeaders=host Signature'.")
	_, err = v.Verify(req("AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=00", date))
	wantErr(t, err, "IncompleteSignatureException", "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d'")
	_, err = v.Verify(req("AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00", date))
	wantErr(t, err, "InvalidSignatureException", "Credential should be scoped to a valid region, not 'c'. "+
		"Credential should be scoped to correct service: 'dynamodb'. Credential should be scoped with a valid terminator: 'aws4_request', not 'e'. "+
		"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: 'b' != '20261201', from '20261201T120000Z'.")
	_, err = v.Verify(req("AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00", Field{"X-Amz-Date", "201"}))
	wantErr(t, err, "IncompleteSignatureException", "Date must be in ISO-8601 'basic format'. Got '201'. See http://en.wikipedia.org/wiki/ISO_8601")
	_, err = v.Verify(req("AWS4-HMAC-SHA25 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00", date))
	wantErr(t, err, "IncompleteSignatureException", "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). ")
}

func TestCredentials(t *testing.T) {
	cs, err := ParseCredentials("AKID1:secret1, AKID2:secret2:token2")
	if err != nil || len(cs) != 2 || cs[1] != (Credential{"AKID2", "secret2", "token2"}) {
		t.Fatalf("%+v %v", cs, err)
	}
	if _, err := ParseCredentials("AKID1"); err == nil {
		t.Fatal("a credential without a secret was accepted")
	}
	cs, err = ReadCredentials(bytes.NewBufferString("# keys\n\nAKID1:s1\n AKID2:s2 \n"))
	if err != nil || len(cs) != 2 || cs[1].Secret != "s2" {
		t.Fatalf("%+v %v", cs, err)
	}
	if _, err := ReadCredentials(bytes.NewBufferString("AKID1:s1\nbroken\n")); err == nil || err.Error() != `line 2: credential "broken:…": want ACCESS_KEY_ID:SECRET[:SESSION_TOKEN]` {
		t.Fatalf("a broken line: %v", err)
	}
}

// A signature must cover X-Amz-Target, X-Amz-Date and X-Amz-Security-Token
// when the request has them: a request signed without its target could be
// replayed as any operation. CheckHead needs no body; CheckSignature then
// checks it.
func TestSignedHeadersRequired(t *testing.T) {
	v := NewVerifier("us-east-1", []Credential{{AccessKeyID: "AKID", Secret: "s"}}, func() time.Time { return t0 })
	r := signed(t, "AKID", "s", "", "us-east-1", t0, "{}")
	for i := range r.Fields {
		if r.Fields[i].Name == "Authorization" {
			r.Fields[i].Value = strings.Replace(r.Fields[i].Value, ";x-amz-target", "", 1)
		}
	}
	_, err := v.CheckHead(r)
	wantErr(t, err, "IncompleteSignatureException", "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization.")

	r = signed(t, "AKID", "s", "", "us-east-1", t0, "{}")
	body := r.Body
	r.Body = nil // the head alone
	h, err := v.CheckHead(r)
	if err != nil {
		t.Fatalf("CheckHead of a well-signed head: %v", err)
	}
	r.Body = body
	if key, err := v.CheckSignature(r, h); err != nil || key != "AKID" {
		t.Fatalf("CheckSignature: %q %v", key, err)
	}
	r.Body = []byte(`{"Limit":1}`)
	_, err = v.CheckSignature(r, h)
	wantMismatch(t, err)
}
