package attr

import (
	"errors"
	"math/big"
	"math/rand"
	"strconv"
	"testing"
)

func TestCanonicalNumber(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"+0", "0"}, {"0.000", "0"}, {"0e125", "0"}, {"0e-130", "0"}, {"-0.0e-5", "0"},
		{"1", "1"}, {"+1", "1"}, {"-1", "-1"}, {"00042", "42"}, {"1.50", "1.5"},
		{"1e3", "1000"}, {"1E+3", "1000"}, {"1.5E2", "150"}, {"0.0001", "0.0001"},
		{"1e-4", "0.0001"}, {".5", "0.5"}, {"5.", "5"}, {"-.5", "-0.5"},
		{"3.1400", "3.14"}, {"0042.1200", "42.12"}, {"100", "100"}, {"1.0", "1"},
		{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
		{"123456789012345678901234567890123456780000", "123456789012345678901234567890123456780000"},
		{"1.23456789012345678901234567890123456780000", "1.2345678901234567890123456789012345678"},
		{"1E125", "1" + zeros(125)},
		{"9.9999999999999999999999999999999999999E+125", "99999999999999999999999999999999999999" + zeros(88)},
		{"1E-130", "0." + zeros(129) + "1"},
		{"-1E-130", "-0." + zeros(129) + "1"},
		{"12.345e1", "123.45"}, {"12.345e-1", "1.2345"}, {"0.001e3", "1"},
	}
	for _, c := range cases {
		got, err := CanonicalNumber(c.in)
		if err != nil || got != c.want {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		n, err := ParseNumber(c.in)
		if err != nil || n.String() != c.want {
			t.Errorf("ParseNumber(%q).String() = %q, %v", c.in, n.String(), err)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func TestNumberErrors(t *testing.T) {
	const (
		over  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
		under = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
		prec  = "Attempting to store more than 38 significant digits in a Number"
	)
	cases := []struct{ in, want string }{
		{"", "The parameter cannot be converted to a numeric value: "},
		{"abc", "The parameter cannot be converted to a numeric value: abc"},
		{" 1", "The parameter cannot be converted to a numeric value:  1"},
		{"1 ", "The parameter cannot be converted to a numeric value: 1 "},
		{".", "The parameter cannot be converted to a numeric value: ."},
		{"e5", "The parameter cannot be converted to a numeric value: e5"},
		{"1e", "The parameter cannot be converted to a numeric value: 1e"},
		{"1e+", "The parameter cannot be converted to a numeric value: 1e+"},
		{"--1", "The parameter cannot be converted to a numeric value: --1"},
		{"1.2.3", "The parameter cannot be converted to a numeric value: 1.2.3"},
		{"NaN", "The parameter cannot be converted to a numeric value: NaN"},
		{"Infinity", "The parameter cannot be converted to a numeric value: Infinity"},
		{"0x10", "The parameter cannot be converted to a numeric value: 0x10"},
		// Exponents past 32 bits, and zeros written with an exponent out of
		// range, are overflows and underflows (four regions, 2026-10-09, in
		// a public conformance suite run against DynamoDB).
		{"1e2147483648", over}, {"1e99999999999", over}, {"-1e99999999999", over},
		{"1e-2147483648", under}, {"1e-99999999999", under},
		{"0e126", over}, {"0e999", over}, {"0e-131", under},
		// Past 64 bits the exponent cannot be read (eu-west-2, 2026-10).
		{"1e9223372036854775807", over}, {"1e-9223372036854775808", under}, {"1e0009223372036854775807", over},
		{"1e9223372036854775808", "The parameter cannot be converted to a numeric value: 1e9223372036854775808"},
		{"1e-9223372036854775809", "The parameter cannot be converted to a numeric value: 1e-9223372036854775809"},
		{"1e126", over}, {"-1e126", over}, {"1E+126", over}, {"10e125", over},
		{"1e-131", under}, {"-1e-131", under}, {"0.1e-130", under},
		{"123456789012345678901234567890123456789", prec},
		{"-1.23456789012345678901234567890123456789", prec},
	}
	for _, c := range cases {
		_, err := CanonicalNumber(c.in)
		var ne *NumberError
		if !errors.As(err, &ne) || err.Error() != c.want {
			t.Errorf("CanonicalNumber(%q) err = %v; want %q", c.in, err, c.want)
		}
	}
}

func TestCanonicalNoAlloc(t *testing.T) {
	for _, s := range []string{"42", "-7", "1.5", "0.0001", "123456789012345678901234"} {
		if n := testing.AllocsPerRun(100, func() { _, _ = CanonicalNumber(s) }); n != 0 {
			t.Errorf("CanonicalNumber(%q) allocates %v", s, n)
		}
	}
}

func TestNumberCmp(t *testing.T) {
	ordered := []string{"-1e125", "-100", "-99.5", "-1", "-0.5", "-1e-130", "0", "1e-130",
		"0.001", "0.5", "1", "1.5", "2", "10", "99.99", "100", "1e125"}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := MustNumber(a).Cmp(MustNumber(b)); got != want {
				t.Errorf("Cmp(%s,%s) = %d want %d", a, b, got, want)
			}
			if got := CompareNumbers(a, b); got != want {
				t.Errorf("CompareNumbers(%s,%s) = %d want %d", a, b, got, want)
			}
		}
	}
}

func TestNumberAddSub(t *testing.T) {
	cases := []struct{ a, b, sum, diff string }{
		{"1", "2", "3", "-1"},
		{"0.1", "0.2", "0.3", "-0.1"},
		{"1.5", "-1.5", "0", "3"},
		{"999", "1", "1000", "998"},
		{"-5", "3", "-2", "-8"},
		{"1e20", "1", "100000000000000000001", "99999999999999999999"},
		{"0", "-7.25", "-7.25", "7.25"},
		{"1e-130", "1e-130", "0." + zeros(129) + "2", "0"},
	}
	for _, c := range cases {
		if got, err := AddNumbers(c.a, c.b); err != nil || got != c.sum {
			t.Errorf("%s + %s = %q, %v; want %s", c.a, c.b, got, err, c.sum)
		}
		if got, err := SubNumbers(c.a, c.b); err != nil || got != c.diff {
			t.Errorf("%s - %s = %q, %v; want %s", c.a, c.b, got, err, c.diff)
		}
	}
	errCases := []struct {
		a, b string
		kind NumberErrorKind
	}{
		{"9.9e125", "9.9e125", NumOverflow},
		// An inexact sum is reported as an overflow (DynamoDB, as
		// ScyllaDB's Alternator tests record it: 1e50 - 1).
		{"1e30", "1e-30", NumOverflow},
		{"99999999999999999999999999999999999999", "0.1", NumOverflow},
		{"1e50", "-1", NumOverflow},
		{"1.0000000000000000000000000000000000001e-130", "-1e-130", NumUnderflow},
	}
	for _, c := range errCases {
		_, err := AddNumbers(c.a, c.b)
		var ne *NumberError
		if !errors.As(err, &ne) || ne.Kind != c.kind {
			t.Errorf("%s + %s: err %v, want kind %d", c.a, c.b, err, c.kind)
		}
	}
	// 99…9 (38 nines) + 1 = 1E38, one significant digit: fine.
	if got, err := AddNumbers("99999999999999999999999999999999999999", "1"); err != nil || got != "1"+zeros(38) {
		t.Errorf("38 nines + 1 = %q, %v", got, err)
	}
}

func TestNumberAddRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		a, b := randNumber(rng), randNumber(rng)
		x, _ := new(big.Rat).SetString(a)
		y, _ := new(big.Rat).SetString(b)
		want := new(big.Rat).Add(x, y)
		got, err := AddNumbers(a, b)
		if err != nil {
			continue
		}
		g, _ := new(big.Rat).SetString(got)
		if g.Cmp(want) != 0 {
			t.Fatalf("%s + %s = %s, want %s", a, b, got, want.FloatString(40))
		}
		if c := MustNumber(a).Cmp(MustNumber(b)); c != x.Cmp(y) {
			t.Fatalf("Cmp(%s,%s) = %d", a, b, c)
		}
	}
}

// randNumber returns a valid canonical number with a small exponent range.
func randNumber(rng *rand.Rand) string {
	if rng.Intn(10) == 0 {
		return strconv.Itoa(rng.Intn(2000) - 1000)
	}
	nd := 1 + rng.Intn(20)
	d := make([]byte, nd)
	for i := range d {
		d[i] = byte('0' + rng.Intn(10))
	}
	d[0] = byte('1' + rng.Intn(9))
	s := string(d) + "e" + strconv.Itoa(rng.Intn(40)-20)
	if rng.Intn(2) == 0 {
		s = "-" + s
	}
	c, err := CanonicalNumber(s)
	if err != nil {
		panic(err)
	}
	return c
}

func TestNumberSize(t *testing.T) {
	// Literals measured against DynamoDB by bisecting the 400 KB gate
	// (nubo-db/dynamodb-conformance src/item-size.ts, eu-west-2 2026-08-18).
	cases := []struct {
		in   string
		want int
	}{
		{"0", 1}, {"1", 2}, {"12", 2}, {"123", 3}, {"1234", 3},
		{"12345678901234567890123456789012345678", 20},
		{"0042", 2}, {"100", 2}, {"1010", 3}, {"0.0000001", 2},
		{"1E125", 2}, {"1E-100", 2}, {"1.5", 3}, {"15", 2}, {"1.2", 3},
		{"1.200", 3}, {"1.234", 4}, {"3.14159", 5}, {"123456", 4},
		{"100.5", 4}, {"0.15", 2}, {"-42", 3}, {"-0", 1},
		// Base-100 alignment (dynalite's rule) beyond the captured set.
		{"110", 3}, {"11000", 3}, {"0.011", 3}, {"1.2345678901234567890123456789012345678", 21},
	}
	for _, c := range cases {
		if got := NumberSize(c.in); got != c.want {
			t.Errorf("NumberSize(%s) = %d want %d", c.in, got, c.want)
		}
	}
}
