package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/kura-db/kura/internal/testcert"
)

// writeCert is testcert.Write, failing t on an error.
func writeCert(t *testing.T, dir, cn string) *x509.Certificate {
	t.Helper()
	cert, err := testcert.Write(dir, cn)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// With a certificate, Kura serves HTTPS: the SDK works over it, plain HTTP
// is refused, and a renewed certificate is served without a restart.
func TestTLS(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first := writeCert(t, dir, "first")
	s, err := Start(Config{InMemory: true, Console: true, TLSCert: filepath.Join(dir, "cert.pem"), TLSKey: filepath.Join(dir, "key.pem")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	if !strings.HasPrefix(s.Endpoint(), "https://127.0.0.1:") {
		t.Fatalf("endpoint %s", s.Endpoint())
	}
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint()), HTTPClient: testcert.Client(first),
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")})
	createTable(t, c, "tls", "pk")
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tls"), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tls"), Key: item})
	if err != nil || got.Item == nil {
		t.Fatalf("GetItem over TLS: %v %v", got, err)
	}
	// The console (served by the hand-off to net/http) too.
	resp, err := testcert.Client(first).Get(s.Endpoint() + "/console/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("console over TLS: %v %v", resp, err)
	}
	resp.Body.Close()

	// Plain HTTP gets no DynamoDB answer.
	if resp, err := http.Get("http://" + s.Addr().String() + "/"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatal("plain HTTP answered on the TLS port")
		}
	}

	// A renewed certificate is picked up at the next check.
	second := writeCert(t, dir, "second")
	s.certs.mu.Lock()
	s.certs.every = 0
	s.certs.mu.Unlock()
	conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: testcert.Pool(second)})
	if err != nil {
		t.Fatalf("handshake with the renewed certificate: %v", err)
	}
	if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "second" {
		t.Fatalf("served %q", cn)
	}
	conn.Close()
	// A broken pair is logged and the last good certificate kept.
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), []byte("broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	conn, err = tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: testcert.Pool(second)})
	if err != nil {
		t.Fatalf("after a broken renewal: %v", err)
	}
	conn.Close()

	if _, err := Start(Config{InMemory: true, TLSCert: filepath.Join(dir, "cert.pem"), TLSKey: filepath.Join(dir, "key.pem")}); err == nil ||
		!strings.HasPrefix(err.Error(), "TLS certificate: ") {
		t.Fatalf("a broken pair at start: %v", err)
	}
}
