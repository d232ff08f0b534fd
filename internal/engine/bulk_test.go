package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/wire"
)

// writeRate paces reservations to its units a second, lets waits under
// 5 ms go, and does not bank idle time.
func TestWriteRatePaces(t *testing.T) {
	max := int64(1024)
	r := newWriteRate(&max)
	now := time.Unix(1000, 0)
	if w := r.reserve(now, 512); w != 0 {
		t.Fatalf("first reservation waits %v", w)
	}
	if w := r.reserve(now, 512); w != 500*time.Millisecond {
		t.Fatalf("second reservation waits %v, want 500ms", w)
	}
	if w := r.reserve(now, 1); w != time.Second {
		t.Fatalf("third reservation waits %v, want 1s", w)
	}
	later := now.Add(time.Minute) // idle: no burst of a minute's units
	if w := r.reserve(later, 1024); w != 0 {
		t.Fatalf("after idling: %v", w)
	}
	if w := r.reserve(later, 1); w != time.Second {
		t.Fatalf("after idling, next waits %v, want 1s", w)
	}
	if w := newWriteRate(nil).reserve(now, 1e9); w != 0 {
		t.Fatalf("no rate waits %v", w)
	}
}

// bulkStart starts a bulk put from exports/<prefix> into "exp".
func bulkStart(t *testing.T, e *Engine, prefix, token string) (*wire.BulkOperationDescription, error) {
	t.Helper()
	out, err := e.StartBulkPutItems(context.Background(), &wire.StartBulkPutItemsInput{TableName: cpPtr("exp"), ClientToken: &token,
		InputS3Configuration:  &wire.InputS3Configuration{InputFormat: "DYNAMODB_JSON", S3Bucket: cpPtr("exports"), S3KeyPrefix: &prefix},
		OutputS3Configuration: &wire.OutputS3Configuration{S3Bucket: cpPtr("exports"), OutputType: []string{"ERROR"}}})
	if err != nil {
		return nil, err
	}
	return out.BulkOperationDescription, nil
}

// A ClientToken names its operation for 8 hours of the engine's clock:
// reused with other parameters within them it is refused, after them it
// starts a new operation. ListBulkOperations shows the last 90 days, most
// recent first.
func TestBulkTokenAndListWindows(t *testing.T) {
	e, clk, _ := exportEngine(t)
	first, err := bulkStart(t, e, "a/", "tok")
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(8*time.Hour - time.Second)
	if _, err := bulkStart(t, e, "b/", "tok"); err == nil || !strings.Contains(err.Error(), "IdempotentParameterMismatchException") {
		t.Fatalf("within 8 hours: %v", err)
	}
	clk.advance(time.Second)
	second, err := bulkStart(t, e, "b/", "tok")
	if err != nil || cpDeref(second.BulkOperationArn) == cpDeref(first.BulkOperationArn) {
		t.Fatalf("after 8 hours: %+v %v", second, err)
	}
	list := func() []string {
		out, err := e.ListBulkOperations(context.Background(), &wire.ListBulkOperationsInput{})
		if err != nil {
			t.Fatal(err)
		}
		var arns []string
		for _, s := range out.BulkOperationsSummaryList {
			arns = append(arns, cpDeref(s.BulkOperationArn))
		}
		return arns
	}
	if got := list(); len(got) != 2 || got[0] != cpDeref(second.BulkOperationArn) {
		t.Fatalf("list: %v", got)
	}
	clk.advance(90*24*time.Hour - 8*time.Hour + time.Second)
	if got := list(); len(got) != 1 || got[0] != cpDeref(second.BulkOperationArn) {
		t.Fatalf("list after 90 days of the first: %v", got)
	}
}
