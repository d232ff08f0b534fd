package vector

// The AVX2 kernel (dotcodes_amd64.s) is about ten times faster than the
// unrolled Go loop on 1,024 dimensions, which is what makes SQ8 traversal
// cheaper than gonum's float32 dot rather than slower. GOAMD64=v1 binaries
// cannot assume AVX2, so it is detected at start-up (CPUID plus XGETBV for
// the operating system's YMM state support).

//go:noescape
func dotCodesAVX2(k *int16, c *uint8, n int) int64

// prefetch asks the CPU to start loading lines 64-byte cache lines from p;
// it never faults, whatever p is.
//
//go:noescape
func prefetch(p *byte, lines int)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (lo, hi uint32)

var useAVX2 = detectAVX2()

func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if lo, _ := xgetbv0(); lo&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

// dotCodesSIMD runs the AVX2 kernel on the longest multiple-of-32 prefix and
// reports how many elements it covered.
func dotCodesSIMD(k []int16, c []uint8) (int64, int) {
	n := len(k) &^ 31
	if !useAVX2 || n == 0 {
		return 0, 0
	}
	_ = c[n-1]
	return dotCodesAVX2(&k[0], &c[0], n), n
}
