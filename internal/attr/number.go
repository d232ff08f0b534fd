package attr

import (
	"math"
	"strconv"
	"strings"
)

// Limits of DynamoDB numbers.
const (
	// MaxNumberDigits is the most significant digits a Number can hold.
	MaxNumberDigits = 38
	// maxExp and minExp bound Number.exp (value = 0.D × 10^exp): the largest
	// magnitude is 9.99…E+125 (exp 126), the smallest 1E-130 (exp -129).
	maxExp = 126
	minExp = -129
)

// NumberErrorKind classifies a NumberError.
type NumberErrorKind uint8

// The ways a number can be rejected.
const (
	NumSyntax     NumberErrorKind = iota + 1 // not a number at all
	NumOverflow                              // magnitude ≥ 1E+126
	NumUnderflow                             // non-zero magnitude < 1E-130
	NumTooPrecise                            // more than 38 significant digits
)

// NumberError is a rejected number. Its Error text is DynamoDB's message
// without any prefix; wrap it with ddberr.RequestInvalid (request checks) or
// ddberr.Validation (errors found while executing, e.g. SET a = a + :v).
type NumberError struct {
	Kind  NumberErrorKind
	Input string // the offending text, for NumSyntax
}

func (e *NumberError) Error() string {
	switch e.Kind {
	case NumOverflow:
		return "Number overflow. Attempting to store a number with magnitude larger than supported range"
	case NumUnderflow:
		return "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	case NumTooPrecise:
		return "Attempting to store more than 38 significant digits in a Number"
	default:
		return "The parameter cannot be converted to a numeric value: " + e.Input
	}
}

// Number is an exact DynamoDB decimal. The zero Number is 0.
//
// The value is ±0.D × 10^exp where D (digits) has no leading or trailing
// zeros; zero has empty digits.
type Number struct {
	neg    bool
	digits string
	exp    int
}

// numScan is the result of scanning a decimal literal without allocating:
// the significant digits are the digit characters of s[start:end] (a '.'
// may sit between them).
type numScan struct {
	neg        bool
	zero       bool
	start, end int
	nd         int   // number of significant digits
	exp        int64 // value = 0.D × 10^exp
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// fitsInt64 reports whether the decimal digits ds, negated when neg, fit
// in a signed 64-bit integer.
func fitsInt64(ds string, neg bool) bool {
	ds = strings.TrimLeft(ds, "0")
	limit := "9223372036854775807"
	if neg {
		limit = "9223372036854775808"
	}
	return len(ds) < len(limit) || len(ds) == len(limit) && ds <= limit
}

// scanNumber parses the syntax DynamoDB accepts (that of Java's BigDecimal):
// an optional sign, digits with an optional '.', at least one digit, and an
// optional exponent whose value fits in 32 bits. No whitespace.
func scanNumber(s string) (numScan, bool) {
	var r numScan
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		r.neg = s[i] == '-'
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracEnd = i
	}
	if intEnd == intStart && fracEnd == fracStart {
		return r, false
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		ds := i
		for i < len(s) && isDigit(s[i]) {
			// An exponent past 32 bits saturates: DynamoDB answers it
			// as an overflow or underflow, not a syntax error (four
			// regions, 2026-10-09, in a public conformance suite).
			if e <= 2*math.MaxInt32 {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == ds || !fitsInt64(s[ds:i], eneg) {
			// Past 64 bits an exponent cannot be read at all: "cannot
			// be converted" (eu-west-2, 2026-10, same suite).
			return r, false
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return r, false
	}
	first := -1
	for j := intStart; j < fracEnd; j++ {
		if c := s[j]; c >= '1' && c <= '9' {
			first = j
			break
		}
	}
	if first < 0 {
		// A zero keeps the exponent it is written with, as Java's
		// BigDecimal does (0e126 is 0E+126): DynamoDB refuses 0e126 as an
		// overflow and 0e-131 as an underflow.
		r.zero, r.neg = true, false
		r.exp = e - int64(fracEnd-fracStart) + 1
		return r, true
	}
	last := first
	for j := fracEnd - 1; j > first; j-- {
		if c := s[j]; c >= '1' && c <= '9' {
			last = j
			break
		}
	}
	r.start, r.end = first, last+1
	r.nd = r.end - r.start
	if first < intEnd && last >= fracStart && fracStart > intEnd {
		r.nd-- // the '.' lies between the significant digits
	}
	if first < intEnd {
		r.exp = int64(intEnd-first) + e
	} else {
		r.exp = -int64(first-fracStart) + e
	}
	return r, true
}

// check applies DynamoDB's range and precision rules, in DynamoDB's order.
func (r *numScan) check(s string) *NumberError {
	switch {
	case r.exp > maxExp:
		return &NumberError{Kind: NumOverflow, Input: s}
	case r.exp < minExp:
		return &NumberError{Kind: NumUnderflow, Input: s}
	case r.nd > MaxNumberDigits:
		return &NumberError{Kind: NumTooPrecise, Input: s}
	}
	return nil
}

// digitsOf returns the significant digits of a scanned literal; it only
// allocates when a '.' separates them.
func (r *numScan) digitsOf(s string) string {
	span := s[r.start:r.end]
	if len(span) == r.nd {
		return span
	}
	return strings.Replace(span, ".", "", 1)
}

// ParseNumber parses a DynamoDB number literal ("42", "-1.50", "1e3",
// "+.5", …). Errors are *NumberError.
func ParseNumber(s string) (Number, error) {
	r, ok := scanNumber(s)
	if !ok {
		return Number{}, &NumberError{Kind: NumSyntax, Input: s}
	}
	if err := r.check(s); err != nil {
		return Number{}, err
	}
	if r.zero {
		return Number{}, nil
	}
	return Number{neg: r.neg, digits: r.digitsOf(s), exp: int(r.exp)}, nil
}

// MustNumber is ParseNumber for literals known to be valid; it panics on
// error. Meant for tests and constants.
func MustNumber(s string) Number {
	n, err := ParseNumber(s)
	if err != nil {
		panic(err)
	}
	return n
}

// NumberFromInt returns i as a Number.
func NumberFromInt(i int64) Number {
	n, _ := ParseNumber(strconv.FormatInt(i, 10))
	return n
}

// IsZero reports whether n is 0.
func (n Number) IsZero() bool { return n.digits == "" }

// Sign returns -1, 0 or +1.
func (n Number) Sign() int {
	switch {
	case n.digits == "":
		return 0
	case n.neg:
		return -1
	}
	return 1
}

// Neg returns -n.
func (n Number) Neg() Number {
	if n.digits != "" {
		n.neg = !n.neg
	}
	return n
}

// Abs returns |n|.
func (n Number) Abs() Number { n.neg = false; return n }

// String returns the canonical text DynamoDB returns for the number: plain
// decimal notation without exponent, no leading or trailing zeros, no "+",
// and "0" for zero ("1.50"→"1.5", "-0"→"0", "1e3"→"1000").
func (n Number) String() string {
	var buf [192]byte
	return string(n.appendCanonical(buf[:0]))
}

func (n Number) appendCanonical(dst []byte) []byte {
	return appendDecimal(dst, n.neg, n.digits, n.exp)
}

// appendDecimal writes ±0.digits × 10^exp in plain notation.
func appendDecimal[T string | []byte](dst []byte, neg bool, digits T, exp int) []byte {
	if len(digits) == 0 {
		return append(dst, '0')
	}
	if neg {
		dst = append(dst, '-')
	}
	switch {
	case exp >= len(digits):
		dst = append(dst, digits...)
		for i := len(digits); i < exp; i++ {
			dst = append(dst, '0')
		}
	case exp > 0:
		dst = append(dst, digits[:exp]...)
		dst = append(dst, '.')
		dst = append(dst, digits[exp:]...)
	default:
		dst = append(dst, '0', '.')
		for i := exp; i < 0; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	}
	return dst
}

// CanonicalNumber validates s and returns its canonical form (see
// Number.String). It does not allocate when s is already canonical.
// Errors are *NumberError.
func CanonicalNumber(s string) (string, error) {
	if isSmallCanonicalInt(s) {
		return s, nil
	}
	r, ok := scanNumber(s)
	if !ok {
		return "", &NumberError{Kind: NumSyntax, Input: s}
	}
	if err := r.check(s); err != nil {
		return "", err
	}
	if r.zero {
		return "0", nil
	}
	var buf [192]byte
	var dig [MaxNumberDigits]byte
	nd := 0
	for i := r.start; i < r.end; i++ {
		if s[i] != '.' {
			dig[nd] = s[i]
			nd++
		}
	}
	out := appendDecimal(buf[:0], r.neg, dig[:nd], int(r.exp))
	if string(out) == s {
		return s, nil
	}
	return string(out), nil
}

// isSmallCanonicalInt reports whether s is an integer of at most 18 digits
// already in canonical form ("0", "42", "-7"; not "-0", "007", "+1").
func isSmallCanonicalInt(s string) bool {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
		if d == "0" {
			return false
		}
	}
	if len(d) == 0 || len(d) > 18 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if !isDigit(d[i]) {
			return false
		}
	}
	return true
}

// smallInt parses a canonical integer of at most 18 digits.
func smallInt(s string) (int64, bool) {
	if !isSmallCanonicalInt(s) {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// Cmp compares n and m numerically: -1, 0 or +1.
func (n Number) Cmp(m Number) int {
	sn, sm := n.Sign(), m.Sign()
	if sn != sm {
		if sn < sm {
			return -1
		}
		return 1
	}
	if sn == 0 {
		return 0
	}
	c := cmpMag(n, m)
	if sn < 0 {
		return -c
	}
	return c
}

// cmpMag compares |n| and |m| for non-zero n and m.
func cmpMag(n, m Number) int {
	if n.exp != m.exp {
		if n.exp < m.exp {
			return -1
		}
		return 1
	}
	return strings.Compare(n.digits, m.digits)
}

// CompareNumbers compares two number texts numerically. Canonical small
// integers take a fast path; invalid texts compare as 0 (callers hold
// validated values).
func CompareNumbers(a, b string) int {
	if x, ok := smallInt(a); ok {
		if y, ok := smallInt(b); ok {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	na, _ := ParseNumber(a)
	nb, _ := ParseNumber(b)
	return na.Cmp(nb)
}

// Add returns n + m exactly. Errors (*NumberError) are overflow, underflow
// and more than 38 significant digits.
func (n Number) Add(m Number) (Number, error) {
	if n.IsZero() {
		return m, nil
	}
	if m.IsZero() {
		return n, nil
	}
	// Digit i of x has weight 10^(x.exp-1-i). Lay both out on one grid from
	// weight hi (a carry slot) down to weight lo.
	hi := max(n.exp, m.exp)
	lo := min(n.exp-len(n.digits), m.exp-len(m.digits))
	width := hi - lo + 1
	var stack [2][300]byte
	var a, b []byte
	if width <= len(stack[0]) {
		a, b = stack[0][:width], stack[1][:width]
	} else {
		a, b = make([]byte, width), make([]byte, width)
	}
	place := func(x Number, g []byte) {
		for i := 0; i < len(x.digits); i++ {
			g[hi-(x.exp-1-i)] = x.digits[i] - '0'
		}
	}
	place(n, a)
	place(m, b)
	neg := n.neg
	if n.neg == m.neg {
		carry := byte(0)
		for i := width - 1; i >= 0; i-- {
			s := a[i] + b[i] + carry
			carry = s / 10
			a[i] = s % 10
		}
	} else {
		c := cmpMag(n, m)
		if c == 0 {
			return Number{}, nil
		}
		if c < 0 {
			a, b = b, a
			neg = m.neg
		}
		borrow := byte(0)
		for i := width - 1; i >= 0; i-- {
			d := 10 + a[i] - b[i] - borrow
			a[i] = d % 10
			borrow = 1 - d/10
		}
	}
	first, last := -1, -1
	for i := 0; i < width; i++ {
		if a[i] != 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return Number{}, nil
	}
	r := numScan{neg: neg, nd: last - first + 1, exp: int64(hi - first + 1)}
	if err := r.check(""); err != nil {
		if err.Kind == NumTooPrecise {
			// A sum that needs more than 38 digits is reported as an
			// overflow, not as the literal's precision error (SET b = :a -
			// :b with 1e50 and 1: ScyllaDB's Alternator tests, which are
			// run against DynamoDB).
			err.Kind = NumOverflow
		}
		return Number{}, err
	}
	d := make([]byte, r.nd)
	for i := range d {
		d[i] = a[first+i] + '0'
	}
	return Number{neg: neg, digits: string(d), exp: int(r.exp)}, nil
}

// Sub returns n - m exactly; errors as for Add.
func (n Number) Sub(m Number) (Number, error) { return n.Add(m.Neg()) }

// AddNumbers adds two number texts and returns the canonical sum, with a
// fast path for small integers. Errors are *NumberError.
func AddNumbers(a, b string) (string, error) {
	if x, ok := smallInt(a); ok {
		if y, ok := smallInt(b); ok {
			return strconv.FormatInt(x+y, 10), nil
		}
	}
	na, err := ParseNumber(a)
	if err != nil {
		return "", err
	}
	nb, err := ParseNumber(b)
	if err != nil {
		return "", err
	}
	s, err := na.Add(nb)
	if err != nil {
		return "", err
	}
	return s.String(), nil
}

// SubNumbers is AddNumbers for a - b.
func SubNumbers(a, b string) (string, error) {
	if x, ok := smallInt(a); ok {
		if y, ok := smallInt(b); ok {
			return strconv.FormatInt(x-y, 10), nil
		}
	}
	na, err := ParseNumber(a)
	if err != nil {
		return "", err
	}
	nb, err := ParseNumber(b)
	if err != nil {
		return "", err
	}
	s, err := na.Sub(nb)
	if err != nil {
		return "", err
	}
	return s.String(), nil
}
