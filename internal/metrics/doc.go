// Package metrics counts what Kura serves and writes it in the Prometheus
// text exposition format (version 0.0.4), for the --metrics listener.
//
// Requests holds the per-operation request counters, errors by type and
// latency histograms that the api layer updates on every request: fixed
// per operation at start, updated with atomic adds (no lock on the request
// path except the first error of a kind). Writer writes metric families
// with their HELP and TYPE lines and escaped label values.
//
// Files:
//
//	requests.go  per-operation counters and latency histograms
//	writer.go    the text exposition format
package metrics
