package vector

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas32"
)

// Distance is a vector index distance function.
type Distance uint8

// The distance functions of DynamoDB vector indexes.
const (
	Cosine     Distance = iota + 1 // COSINE: 1 − cos, ascending
	Euclidean                      // EUCLIDEAN: ‖q − v‖, ascending
	DotProduct                     // DOT_PRODUCT: q·v, descending
)

// String returns the DynamoDB name of d.
func (d Distance) String() string {
	switch d {
	case Cosine:
		return "COSINE"
	case Euclidean:
		return "EUCLIDEAN"
	case DotProduct:
		return "DOT_PRODUCT"
	}
	return fmt.Sprintf("Distance(%d)", uint8(d))
}

// ParseDistance maps a DynamoDB DistanceFunction name to a Distance.
func ParseDistance(s string) (Distance, error) {
	switch s {
	case "COSINE":
		return Cosine, nil
	case "EUCLIDEAN":
		return Euclidean, nil
	case "DOT_PRODUCT":
		return DotProduct, nil
	}
	return 0, fmt.Errorf("vector: unknown distance function %q", s)
}

// HigherIsBetter reports whether larger scores rank first (DOT_PRODUCT).
func (d Distance) HigherIsBetter() bool { return d == DotProduct }

// Config configures an Index. Zero fields take defaults.
type Config struct {
	Dimensions int      // vector length, required
	Distance   Distance // required

	M              int // max neighbours per node on upper layers (layer 0 has 2·M); default 32
	EfConstruction int // candidate list size while inserting; default 128
	EfSearch       int // default candidate list size while searching (raised to k); default 64

	// ExactMax: searches without a filter scan exactly while the index holds
	// at most this many live vectors. 0 means the default (about 80 MB of
	// vectors: 20,000 at 1,024 dimensions); negative disables.
	ExactMax int
	// FilterExactMax: a filtered search scans its candidate list exactly when
	// that list has at most this many nodes. 0 means the default 4,096;
	// negative means only the cost model decides.
	FilterExactMax int
	// Seed seeds the level generator; equal seeds and insert orders give
	// identical graphs.
	Seed uint64
	// Quantization: QuantSQ8 traverses the graph on 8-bit codes and
	// re-scores the ef best candidates with the float32 vectors.
	Quantization Quantization
	// QuantTrain: SQ8 fixes its per-dimension ranges once this many vectors
	// are stored (0 means DefaultQuantTrain).
	QuantTrain int
}

// Defaults.
const (
	DefaultM              = 32 // 16 lost recall fast past 250k vectors (BENCHMARKS.md, 1M × 1024)
	DefaultEfConstruction = 128
	DefaultEfSearch       = 64
	DefaultFilterExactMax = 4096
	defaultExactBytes     = 20000 * 1024 // float32 elements scanned exactly by default
	maxLevel              = 15
	maxDimensions         = 1 << 16
)

// Errors.
var (
	ErrDimensions = errors.New("vector: wrong number of dimensions")
	ErrNotFinite  = errors.New("vector: vector contains NaN or Inf")
	ErrCorrupt    = errors.New("vector: corrupt snapshot")
)

func (c Config) withDefaults() (Config, error) {
	if c.Dimensions <= 0 || c.Dimensions > maxDimensions {
		return c, fmt.Errorf("vector: dimensions %d out of range 1..%d", c.Dimensions, maxDimensions)
	}
	switch c.Distance {
	case Cosine, Euclidean, DotProduct:
	default:
		return c, fmt.Errorf("vector: invalid distance %v", c.Distance)
	}
	if c.M <= 0 {
		c.M = DefaultM
	}
	if c.M < 2 || c.M > 256 {
		return c, fmt.Errorf("vector: M %d out of range 2..256", c.M)
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	if c.EfConstruction < c.M {
		c.EfConstruction = c.M
	}
	if c.EfSearch <= 0 {
		c.EfSearch = DefaultEfSearch
	}
	if c.ExactMax == 0 {
		c.ExactMax = defaultExactBytes / c.Dimensions
	}
	if c.FilterExactMax == 0 {
		c.FilterExactMax = DefaultFilterExactMax
	}
	if c.Quantization != QuantNone && c.Quantization != QuantSQ8 {
		return c, fmt.Errorf("vector: invalid quantization %v", c.Quantization)
	}
	if c.QuantTrain <= 0 {
		c.QuantTrain = DefaultQuantTrain
	}
	return c, nil
}

// Result is one search hit.
type Result struct {
	ID    uint64
	Score float32 // see the package documentation for its meaning per Distance
}

// dot is the inner product of two equal-length vectors.
func dot(a, b []float32) float32 {
	return blas32.Dot(blas32.Vector{N: len(a), Inc: 1, Data: a}, blas32.Vector{N: len(b), Inc: 1, Data: b})
}

// normalize scales v in place to unit length; zero vectors stay zero. The
// length is taken in float64: a float32 sum of squares underflows for a
// tiny vector ([1e-23, 0], which DynamoDB scores as a direction, not as a
// zero vector: eu-west-2 and us-east-1, 2026-08-13, captured by another
// emulator's authors) and overflows for a huge one.
func normalize(v []float32) {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	n := math.Sqrt(sq)
	if n == 0 {
		return
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
}

// checkVector validates a caller's vector.
func checkVector(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("%w: got %d, want %d", ErrDimensions, len(v), dim)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return ErrNotFinite
		}
	}
	return nil
}

// l2sq is the exact squared Euclidean distance, accumulated in float64.
func l2sq(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}
