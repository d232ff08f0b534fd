package test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/kura-db/kura/internal/testcert"
)

// kura --tls-cert --tls-key serves HTTPS: the SDK works against it with a
// client that trusts the certificate, and one that does not is refused.
func TestTLSListener(t *testing.T) {
	dir := t.TempDir()
	cert, err := testcert.Write(dir, "kura-test")
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	log := &syncLog{}
	cmd := exec.Command(kuraBin, "--in-memory", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--tls-cert", filepath.Join(dir, "cert.pem"), "--tls-key", filepath.Join(dir, "key.pem"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	k := &kura{cmd: cmd, endpoint: fmt.Sprintf("https://127.0.0.1:%d", port), log: log}
	t.Cleanup(k.stop)
	hc := testcert.Client(cert)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := hc.Get(k.endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HTTPS answer: %v\n%s", err, log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(k.endpoint), HTTPClient: hc,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""), Retryer: aws.NopRetryer{}})
	table := createTable(t, c, "pk", "", types.ScalarAttributeTypeS)
	item := map[string]types.AttributeValue{"pk": S("a"), "v": S("over TLS")}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("a")}})
	if err != nil || str(t, got.Item["v"]) != "over TLS" {
		t.Fatalf("GetItem: %v %v", got, err)
	}

	// A client that does not trust the certificate gets no further.
	untrusting := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(k.endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""), Retryer: aws.NopRetryer{}})
	if _, err := untrusting.ListTables(bg, &dynamodb.ListTablesInput{}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("an untrusted certificate: %v", err)
	}
}
