package server

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	runtimemetrics "runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/metrics"
)

// startMetrics serves GET /metrics (Prometheus text format) on addr, a
// listener of its own (Config.Metrics).
func (s *Server) startMetrics(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", s.guardMetrics)
	s.metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.metricsLn = ln
	go func() {
		if err := s.metricsSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics listener stopped", "err", err)
		}
	}()
	s.log.Debug("metrics listening", "addr", ln.Addr().String()) // in Summary
	return nil
}

// MetricsAddr is the metrics listener's address (nil without one).
func (s *Server) MetricsAddr() net.Addr {
	if s.metricsLn == nil {
		return nil
	}
	return s.metricsLn.Addr()
}

// guardMetrics serves GET /metrics to a principal allowed kura:Admin
// when authorization is on (api.Server.RequireAdmin). The listener opens
// before the API server exists; until Start has made it, a scrape with
// authorization on is told to come back.
func (s *Server) guardMetrics(w http.ResponseWriter, r *http.Request) {
	if s.cfg.IAMFile == "" {
		s.serveMetrics(w, r)
		return
	}
	a := s.apiSrv.Load()
	if a == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	a.RequireAdmin(http.HandlerFunc(s.serveMetrics)).ServeHTTP(w, r)
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	mw := metrics.NewWriter(w)
	b := Build()
	mw.Family("kura_build_info", "gauge", "Always 1; the labels say which build is running.")
	mw.Sample("kura_build_info", 1, "version", b.Version, "revision", b.Revision, "goversion", b.GoVersion)
	s.requests.Write(mw)
	s.writeTableMetrics(mw)
	writeProcessMetrics(mw, s.started)
	if err := mw.Flush(); err != nil {
		s.log.Debug("writing metrics", "err", err)
	}
}

// writeTableMetrics writes each table's item count and size, as
// DescribeTable reports them; with a database per credential, labelled
// with the database too, and with --regions with the region (each region
// has tables of its own, a global table a replica in each).
func (s *Server) writeTableMetrics(w *metrics.Writer) {
	type stats struct {
		db, region string
		tables     []engine.TableStat
	}
	var all []stats
	for _, db := range s.holdOpenDatabases() {
		all = append(all, stats{db.name, db.region, db.eng.TableStats()})
		s.release(db)
	}
	slices.SortFunc(all, func(a, b stats) int { return strings.Compare(a.db, b.db) })
	labelsOf := func(st stats, table string) []string {
		var l []string
		if s.cfg.PerCredential {
			l = append(l, "database", st.db)
		}
		if len(s.cfg.Regions) > 0 {
			l = append(l, "region", st.region)
		}
		return append(l, "table", table)
	}
	w.Family("kura_table_items", "gauge", "Items in a table (DescribeTable's ItemCount).")
	for _, st := range all {
		for _, t := range st.tables {
			w.Sample("kura_table_items", float64(t.Items), labelsOf(st, t.Name)...)
		}
	}
	w.Family("kura_table_size_bytes", "gauge", "A table's size by DynamoDB's item size formula (DescribeTable's TableSizeBytes).")
	for _, st := range all {
		for _, t := range st.tables {
			w.Sample("kura_table_size_bytes", float64(t.Bytes), labelsOf(st, t.Name)...)
		}
	}
	for _, f := range capacityFamilies {
		w.Family(f.name, "counter", f.help)
		for _, st := range all {
			for _, t := range st.tables {
				for _, c := range t.Capacity {
					if c.Write != f.write {
						continue
					}
					l := labelsOf(st, t.Name)
					if c.Index != "" {
						l = append(l, "index", c.Index)
					}
					v := c.Units
					if f.throttles {
						v = float64(c.Throttled)
					}
					w.Sample(f.name, v, l...)
				}
			}
		}
	}
}

// capacityFamilies are the per-table (and per-GSI) capacity counters,
// CloudWatch's ConsumedRead/WriteCapacityUnits and Read/WriteThrottleEvents.
var capacityFamilies = []struct {
	name, help       string
	write, throttles bool
}{
	{"kura_consumed_read_capacity_units_total", "Read capacity units a table or GSI consumed (as ConsumedCapacity reports them; LSI reads count as the table's).", false, false},
	{"kura_consumed_write_capacity_units_total", "Write capacity units a table or GSI consumed (as ConsumedCapacity reports them; LSI writes count as the table's).", true, false},
	{"kura_read_throttle_events_total", "Reads refused for a table's or GSI's capacity (--enforce-throughput; per key in a batch).", false, true},
	{"kura_write_throttle_events_total", "Writes refused for a table's or GSI's capacity (--enforce-throughput; per item in a batch).", true, true},
}

// heapObjects is the runtime metric of live and not yet swept heap
// objects' bytes.
const heapObjects = "/memory/classes/heap/objects:bytes"

// writeProcessMetrics writes the process families Prometheus' Go client
// would (the ones an operator's dashboards expect), read without stopping
// the world.
func writeProcessMetrics(w *metrics.Writer, started time.Time) {
	w.Family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.")
	w.Sample("process_start_time_seconds", float64(started.UnixNano())/1e9)
	if cpu, rss, ok := processStats(); ok {
		w.Family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
		w.Sample("process_cpu_seconds_total", cpu)
		w.Family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
		w.Sample("process_resident_memory_bytes", float64(rss))
	}
	w.Family("go_goroutines", "gauge", "Number of goroutines that currently exist.")
	w.Sample("go_goroutines", float64(runtime.NumGoroutine()))
	sample := []runtimemetrics.Sample{{Name: heapObjects}}
	runtimemetrics.Read(sample)
	if sample[0].Value.Kind() == runtimemetrics.KindUint64 {
		w.Family("go_memstats_heap_alloc_bytes", "gauge", "Number of heap bytes allocated and still in use.")
		w.Sample("go_memstats_heap_alloc_bytes", float64(sample[0].Value.Uint64()))
	}
}
