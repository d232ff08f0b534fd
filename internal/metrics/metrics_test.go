package metrics

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
)

func render(r *Requests) string {
	var b bytes.Buffer
	w := NewWriter(&b)
	r.Write(w)
	if err := w.Flush(); err != nil {
		panic(err)
	}
	return b.String()
}

func TestRequests(t *testing.T) {
	r := NewRequests([]string{"DynamoDB_20120810.PutItem", "DynamoDB_20120810.GetItem", "DynamoDBStreams_20120810.GetRecords"})
	r.Observe("DynamoDB_20120810.PutItem", 80*time.Microsecond, "")
	r.Observe("DynamoDB_20120810.PutItem", 300*time.Microsecond, "ConditionalCheckFailedException")
	r.Observe("DynamoDB_20120810.PutItem", 3*time.Second, "")
	r.Observe("DynamoDB_20120810.PutItem", time.Millisecond, "ValidationException")
	r.Observe("DynamoDB_20120810.PutItem", time.Millisecond, "ValidationException")
	r.Observe("DynamoDB_20120810.Nope", time.Millisecond, "UnknownOperationException")

	want := `# HELP kura_requests_total Requests answered, by operation (errors included).
# TYPE kura_requests_total counter
kura_requests_total{operation="PutItem"} 5
kura_requests_total{operation="unknown"} 1
# HELP kura_request_errors_total Requests answered with an error, by operation and DynamoDB error type.
# TYPE kura_request_errors_total counter
kura_request_errors_total{operation="PutItem",type="ConditionalCheckFailedException"} 1
kura_request_errors_total{operation="PutItem",type="ValidationException"} 2
kura_request_errors_total{operation="unknown",type="UnknownOperationException"} 1
# HELP kura_request_duration_seconds Time from a request's body read to its answer ready to be written, by operation.
# TYPE kura_request_duration_seconds histogram
`
	bucketLines := func(op string, counts []int, inf int, sum string) string {
		var b strings.Builder
		for i, le := range []string{"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5"} {
			b.WriteString("kura_request_duration_seconds_bucket{operation=\"" + op + "\",le=\"" + le + "\"} " + itoa(counts[i]) + "\n")
		}
		b.WriteString("kura_request_duration_seconds_bucket{operation=\"" + op + "\",le=\"+Inf\"} " + itoa(inf) + "\n")
		b.WriteString("kura_request_duration_seconds_sum{operation=\"" + op + "\"} " + sum + "\n")
		b.WriteString("kura_request_duration_seconds_count{operation=\"" + op + "\"} " + itoa(inf) + "\n")
		return b.String()
	}
	want += bucketLines("PutItem", []int{1, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 5, "3.00238")
	want += bucketLines("unknown", []int{0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, "0.001")
	got := render(r)
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// Prometheus' own parser reads it.
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(strings.NewReader(got))
	if err != nil || len(families) != 3 || families["kura_request_duration_seconds"].Metric[0].Histogram.GetSampleCount() != 5 {
		t.Fatalf("parsed: %v %v", families, err)
	}
}

func itoa(n int) string { return formatValue(float64(n)) }

func TestEscaping(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Family("kura_x", "gauge", "a \\ help\nline")
	w.Sample("kura_x", 1.5, "table", "a\"b\\c\nd")
	w.Flush()
	want := "# HELP kura_x a \\\\ help\\nline\n# TYPE kura_x gauge\nkura_x{table=\"a\\\"b\\\\c\\nd\"} 1.5\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
	var p expfmt.TextParser
	f, err := p.TextToMetricFamilies(strings.NewReader(b.String()))
	if err != nil || f["kura_x"].Metric[0].Label[0].GetValue() != "a\"b\\c\nd" {
		t.Fatalf("parsed: %v %v", f, err)
	}
}

// Counting is safe from many goroutines while a scrape reads.
func TestRequestsConcurrent(t *testing.T) {
	r := NewRequests([]string{"DynamoDB_20120810.GetItem"})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				errType := ""
				if i%10 == 0 {
					errType = "ResourceNotFoundException"
				}
				r.Observe("DynamoDB_20120810.GetItem", time.Duration(i)*time.Microsecond, errType)
			}
		}()
	}
	for i := 0; i < 20; i++ {
		render(r)
	}
	wg.Wait()
	got := render(r)
	for _, line := range []string{
		`kura_requests_total{operation="GetItem"} 8000`,
		`kura_request_errors_total{operation="GetItem",type="ResourceNotFoundException"} 800`,
		`kura_request_duration_seconds_count{operation="GetItem"} 8000`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("missing %s in\n%s", line, got)
		}
	}
}
