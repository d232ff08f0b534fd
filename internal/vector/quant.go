package vector

import (
	"fmt"
	"math"
)

// Quantization selects how the graph traversal compares vectors.
type Quantization uint8

const (
	// QuantNone compares the stored float32 vectors everywhere (default).
	QuantNone Quantization = iota
	// QuantSQ8 keeps, next to each float32 vector, one uint8 code per
	// dimension (per-dimension min/step scalar quantisation). Graph
	// traversal reads only the codes, a quarter of the bytes, and the final
	// candidates are re-scored with the float32 vectors, so returned scores
	// are exact. Memory grows by one byte per dimension per vector.
	QuantSQ8
)

// String returns the flag spelling of q.
func (q Quantization) String() string {
	switch q {
	case QuantNone:
		return "none"
	case QuantSQ8:
		return "sq8"
	}
	return fmt.Sprintf("Quantization(%d)", uint8(q))
}

// ParseQuantization maps "none" or "sq8" (the --vector-quantization values)
// to a Quantization; "" is none.
func ParseQuantization(s string) (Quantization, error) {
	switch s {
	case "", "none":
		return QuantNone, nil
	case "sq8":
		return QuantSQ8, nil
	}
	return 0, fmt.Errorf("vector: unknown quantization %q (want none or sq8)", s)
}

// DefaultQuantTrain is how many vectors SQ8 waits for before it fixes its
// per-dimension ranges. Until then the index is small and every search uses
// the float32 vectors (below ExactMax it is an exact scan anyway).
const DefaultQuantTrain = 4096

// quantMargin widens each trained range by this fraction of its width on both
// sides, so that later vectors slightly outside the training sample are still
// represented instead of clamped. It costs 1/8 of the resolution.
const quantMargin = 1.0 / 16

// qWeightBound bounds the integer query weights for dim dimensions: they are
// int16, and each int32 lane of the AVX2 kernel sums dim/8 products of at
// most |k|·255, which must stay below 2^31 (a bound that only bites above
// 2,048 dimensions).
func qWeightBound(dim int) float32 {
	lane := max((dim+7)/8, 1)
	return float32(min(32767, (1<<31-1)/(255*lane)))
}

// sq8 is a trained per-dimension scalar quantiser: dimension i of a stored
// vector is approximated by lo[i] + step[i]·code[i]. Its slices are never
// modified after training (a retrain makes a new sq8), so searches and
// snapshot views can share them without locks.
type sq8 struct {
	lo, step []float32
}

// trainSQ8 fixes the ranges from a sample of prepared vectors. The ranges
// never move afterwards: moving them would mean re-encoding every stored
// vector under the write lock. Components outside the widened range are
// clamped, which only blurs traversal distances; re-scoring keeps the
// returned scores exact.
func trainSQ8(dim int, sample func(yield func([]float32))) *sq8 {
	lo := make([]float32, dim)
	hi := make([]float32, dim)
	for i := range lo {
		lo[i], hi[i] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	seen := false
	sample(func(v []float32) {
		seen = true
		for i, f := range v {
			lo[i] = min(lo[i], f)
			hi[i] = max(hi[i], f)
		}
	})
	q := &sq8{lo: lo, step: make([]float32, dim)}
	for i := range lo {
		if !seen {
			lo[i], hi[i] = -1, 1
		}
		w := hi[i] - lo[i]
		lo[i] -= w * quantMargin
		w *= 1 + 2*quantMargin
		q.step[i] = w / 255
	}
	return q
}

// encode writes v's codes to dst (len dim).
func (q *sq8) encode(dst []uint8, v []float32) {
	dst = dst[:len(v)]
	for i, f := range v {
		s := q.step[i]
		if s == 0 {
			dst[i] = 0
			continue
		}
		c := math.Round(float64((f - q.lo[i]) / s))
		dst[i] = uint8(min(max(c, 0), 255))
	}
}

// prepQuery turns a prepared query into integer weights so that
//
//	q·v̂ = Σ q[i]·(lo[i] + step[i]·c[i]) ≈ base + scale·Σ k[i]·c[i]
//
// where k[i] = round(q[i]·step[i] / scale). The weights keep 15 bits (fewer
// above 2,048 dimensions) of the largest |q[i]·step[i]|, far finer than the
// codes themselves.
func (q *sq8) prepQuery(s *searcher) {
	k := s.qk[:0]
	var base float64
	var big float32
	for i, f := range s.q {
		base += float64(f) * float64(q.lo[i])
		big = max(big, float32(math.Abs(float64(f*q.step[i]))))
	}
	scale := big / qWeightBound(len(s.q))
	inv := float32(0)
	if scale > 0 {
		inv = 1 / scale
	}
	for i, f := range s.q {
		k = append(k, int16(math.Round(float64(f*q.step[i]*inv))))
	}
	s.qk, s.qbase, s.qscale = k, float32(base), scale
}

// dotCodes is Σ k[i]·c[i]: the AVX2 kernel where available, then the Go
// loop for the rest (all of it elsewhere). The Go loop is unrolled by eight
// with four independent accumulators; each int32 product is below 2^23, so
// two of them are summed in int32 before widening.
func dotCodes(k []int16, c []uint8) int64 {
	c = c[:len(k)]
	sum, i := dotCodesSIMD(k, c)
	return sum + dotCodesGo(k[i:], c[i:])
}

func dotCodesGo(k []int16, c []uint8) int64 {
	c = c[:len(k)]
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+8 <= len(k); i += 8 {
		kk := k[i : i+8 : i+8]
		cc := c[i : i+8 : i+8]
		s0 += int64(int32(kk[0])*int32(cc[0]) + int32(kk[4])*int32(cc[4]))
		s1 += int64(int32(kk[1])*int32(cc[1]) + int32(kk[5])*int32(cc[5]))
		s2 += int64(int32(kk[2])*int32(cc[2]) + int32(kk[6])*int32(cc[6]))
		s3 += int64(int32(kk[3])*int32(cc[3]) + int32(kk[7])*int32(cc[7]))
	}
	for ; i < len(k); i++ {
		s0 += int64(int32(k[i]) * int32(c[i]))
	}
	return s0 + s1 + s2 + s3
}

// code returns node n's SQ8 codes.
func (x *Index) code(n uint32) []uint8 {
	c := x.codes[n>>chunkBits]
	o := int(n&chunkMask) * x.dim
	return c[o : o+x.dim : o+x.dim]
}

// qdistCodes is qdist on the codes (s.qk prepared).
func (x *Index) qdistCodes(s *searcher, n uint32) float32 {
	return x.queryDist(s, n, s.qbase+s.qscale*float32(dotCodes(s.qk, x.code(n))))
}

// useCodes prepares s for a traversal on the codes when the index has a
// trained quantiser (caller holds mu for reading) and reports whether it did.
func (x *Index) useCodes(s *searcher) bool {
	s.useQ = x.quant != nil
	if s.useQ {
		x.quant.prepQuery(s)
	}
	return s.useQ
}

// encodeAll (re)builds the code slab for every node with the current
// quantiser (caller holds mu for writing, or owns x).
func (x *Index) encodeAll() {
	x.codes = nil
	if x.quant == nil {
		return
	}
	for base := 0; base < len(x.ids); base += chunkSize {
		x.codes = append(x.codes, make([]uint8, chunkSize*x.dim))
		for n := base; n < min(base+chunkSize, len(x.ids)); n++ {
			x.quant.encode(x.code(uint32(n)), x.vec(uint32(n)))
		}
	}
}

// maybeTrain trains the quantiser once SQ8 is configured and enough vectors
// have arrived (caller holds mu for writing). The sample is spread evenly
// over the nodes so that a retrain of a large index is cheap.
func (x *Index) maybeTrain() {
	if x.cfg.Quantization != QuantSQ8 || x.quant != nil || len(x.ids) < x.cfg.QuantTrain {
		return
	}
	step := max(1, len(x.ids)/x.cfg.QuantTrain)
	x.quant = trainSQ8(x.dim, func(yield func([]float32)) {
		for n := 0; n < len(x.ids); n += step {
			if !x.dead[n] {
				yield(x.vec(uint32(n)))
			}
		}
	})
	x.encodeAll()
}

// SetQuantization switches the traversal representation of an existing index
// (for example one loaded from a snapshot written under another setting).
// Switching to SQ8 trains on the stored vectors when there are enough of
// them; switching to none drops the codes.
func (x *Index) SetQuantization(q Quantization) error {
	if q != QuantNone && q != QuantSQ8 {
		return fmt.Errorf("vector: invalid quantization %v", q)
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cfg.Quantization == q {
		return nil
	}
	x.cfg.Quantization = q
	x.quant, x.codes = nil, nil
	x.maybeTrain()
	return nil
}
