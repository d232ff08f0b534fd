package test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// scrape reads and parses k's metrics.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("/metrics: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// value is the value of the sample of family name with these labels
// (name, value, ...); -1 when there is none.
func value(families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// With --metrics, Kura counts requests by operation and error type, times
// them, and reports tables and the process, on a listener of its own.
func TestMetrics(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	k := startKura(t, "--in-memory", "--metrics", addr)
	c := k.client()
	table := createTable(t, c, "pk", "", "")
	item := map[string]types.AttributeValue{"pk": S("a"), "v": S("xyz")}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	if _, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("a")}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("none"), Key: map[string]types.AttributeValue{"pk": S("a")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	typ, _ := rawCall(t, k, "NoSuchOperation", `{}`)
	if typ != "UnknownOperationException" {
		t.Fatalf("unknown operation: %s", typ)
	}
	// Refused before routing, for its content type: counted too.
	req, _ := http.NewRequest(http.MethodPost, k.endpoint, strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("wrong content type: %d", resp.StatusCode)
	}

	f := scrape(t, addr)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kura_requests_total", []string{"operation", "PutItem"}, 2},
		{"kura_requests_total", []string{"operation", "GetItem"}, 2},
		{"kura_requests_total", []string{"operation", "CreateTable"}, 1},
		{"kura_requests_total", []string{"operation", "unknown"}, 1},
		{"kura_request_errors_total", []string{"operation", "PutItem", "type", "ConditionalCheckFailedException"}, 1},
		{"kura_request_errors_total", []string{"operation", "GetItem", "type", "ResourceNotFoundException"}, 1},
		{"kura_request_errors_total", []string{"operation", "unknown", "type", "UnknownOperationException"}, 1},
		{"kura_request_errors_total", []string{"operation", "ListTables", "type", "UnknownOperationException"}, 1},
		{"kura_request_duration_seconds", []string{"operation", "PutItem"}, 2},
		{"kura_table_items", []string{"table", table}, 1},
		{"kura_table_size_bytes", []string{"table", table}, 2 + 1 + 1 + 3},
		{"kura_build_info", []string{"goversion", runtime.Version()}, 1},
		// The put and the failed conditional put, one unit each; the
		// eventually consistent GetItem, half a unit.
		{"kura_consumed_write_capacity_units_total", []string{"table", table}, 2},
		{"kura_consumed_read_capacity_units_total", []string{"table", table}, 0.5},
		{"kura_write_throttle_events_total", []string{"table", table}, 0},
	} {
		if got := value(f, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if value(f, "kura_request_errors_total", "operation", "CreateTable") != -1 {
		t.Error("a request that succeeded counted as an error")
	}
	for _, name := range []string{"process_start_time_seconds", "process_resident_memory_bytes", "go_goroutines", "go_memstats_heap_alloc_bytes"} {
		if value(f, name) <= 0 {
			t.Errorf("%s missing or zero", name)
		}
	}
	if value(f, "process_cpu_seconds_total") < 0 { // counted in 10 ms ticks: may still be 0
		t.Error("process_cpu_seconds_total missing")
	}
	if s := f["kura_request_duration_seconds"].Metric[0].Histogram.GetSampleSum(); s <= 0 || s > 10 {
		t.Errorf("latency sum %v s", s)
	}

	// Only the metrics listener serves them.
	resp, err = http.Get(k.endpoint + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the DynamoDB listener answered /metrics with %d", resp.StatusCode)
	}
}
