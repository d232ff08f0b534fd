//go:build !linux

package server

// processStats is Linux-only (/proc/self/stat): elsewhere the process
// families are left out.
func processStats() (cpuSeconds float64, rssBytes int64, ok bool) { return 0, 0, false }
