//go:build !amd64

package vector

// useAVX2 is never true off amd64 (tests toggle it on amd64).
var useAVX2 = false

// dotCodesSIMD has no assembly on this architecture: the Go loop does all.
func dotCodesSIMD(k []int16, c []uint8) (int64, int) { return 0, 0 }

// prefetch is a no-op without the assembly.
func prefetch(p *byte, lines int) {}
