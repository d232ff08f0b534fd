package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// With a database per credential, table figures name their database; a
// server without Metrics has no metrics listener.
func TestMetricsPerCredential(t *testing.T) {
	ctx := context.Background()
	s, err := Start(Config{InMemory: true, PerCredential: true, Metrics: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	for _, key := range []string{"ALICE", "BOB"} {
		c := dynamodb.New(dynamodb.Options{Region: "eu-west-2", BaseEndpoint: aws.String(s.Endpoint()),
			Credentials: credentials.NewStaticCredentialsProvider(key, "secret", "")})
		createTable(t, c, "tbl", "pk")
	}
	scrape := func() string {
		resp, err := http.Get("http://" + s.MetricsAddr().String() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	// A request is counted before its answer goes out.
	c := dynamodb.New(dynamodb.Options{Region: "eu-west-2", BaseEndpoint: aws.String(s.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("ALICE", "secret", "")})
	for i := 1; i <= 30; i++ {
		if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`kura_requests_total{operation="ListTables"} %d`, i); !strings.Contains(scrape(), want+"\n") {
			t.Fatalf("after %d requests: no %s", i, want)
		}
	}
	body := scrape()
	for _, line := range []string{
		`kura_table_items{database="ALICE_eu-west-2",table="tbl"} 0`,
		`kura_table_items{database="BOB_eu-west-2",table="tbl"} 0`,
		`kura_requests_total{operation="CreateTable"} 2`,
	} {
		if !strings.Contains(string(body), line+"\n") {
			t.Errorf("no %s in\n%s", line, body)
		}
	}

	off, err := Start(Config{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Shutdown(ctx)
	if off.MetricsAddr() != nil {
		t.Errorf("a metrics listener at %v without Metrics", off.MetricsAddr())
	}
}
