package api

import "testing"

// BenchmarkResponseCoding: the Accept-Encoding choice made for every
// response over 4 KB (the SDKs send "gzip" or "identity").
func BenchmarkResponseCoding(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if responseCoding("gzip") != codingGzip {
			b.Fatal("gzip")
		}
	}
}
