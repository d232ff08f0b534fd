package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

// logSink collects the SDK's log lines. aws-sdk-go-v2 verifies X-Amz-Crc32
// over the raw response bytes (the gzip stream when gzipped) when it closes
// the body, and reports a mismatch only as a warning there.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) Logf(_ logging.Classification, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

func (l *logSink) checksumWarnings() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, "checksum") {
			n++
		}
	}
	return n
}

func sdkClient(url string, gz bool, log logging.Logger) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:                   "us-east-1",
		BaseEndpoint:             aws.String(url),
		Credentials:              credentials.NewStaticCredentialsProvider("k", "s", ""),
		EnableAcceptEncodingGzip: gz,
		RetryMaxAttempts:         1,
		Logger:                   log,
	})
}

func TestSDKChecksum(t *testing.T) {
	srv := httptest.NewServer(NewServer(newFake(), Options{}))
	defer srv.Close()
	for _, gz := range []bool{false, true} {
		log := &logSink{}
		c := sdkClient(srv.URL, gz, log)
		out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatalf("gzip=%v: %v", gz, err)
		}
		if len(out.TableNames) != 2 || out.TableNames[0] != "a<b>" {
			t.Fatalf("gzip=%v: %v", gz, out.TableNames)
		}
		_, err = c.ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(0)})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" ||
			ae.ErrorMessage() != "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1" {
			t.Fatalf("gzip=%v: %v", gz, err)
		}
		if n := log.checksumWarnings(); n != 0 {
			t.Fatalf("gzip=%v: checksum warnings: %q", gz, log.lines)
		}
	}
}

// TestSDKChecksumDetectsMismatch proves the check above is live.
func TestSDKChecksumDetectsMismatch(t *testing.T) {
	s := NewServer(newFake(), Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(crcBreaker{w}, r)
	}))
	defer srv.Close()
	log := &logSink{}
	if _, err := sdkClient(srv.URL, true, log).ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if log.checksumWarnings() == 0 {
		t.Fatalf("no checksum warning for a wrong X-Amz-Crc32: %q", log.lines)
	}
}

type crcBreaker struct{ http.ResponseWriter }

func (c crcBreaker) WriteHeader(code int) {
	c.Header().Set("X-Amz-Crc32", "1")
	c.ResponseWriter.WriteHeader(code)
}
