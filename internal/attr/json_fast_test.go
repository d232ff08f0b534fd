package attr

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPlainWord(t *testing.T) {
	for c := 0; c < 256; c++ {
		plain := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		for pos := 0; pos < 8; pos++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			if got := skipPlain(b, 0) == 8; got != plain {
				t.Fatalf("byte %#x at %d: plain %v, want %v", c, pos, got, plain)
			}
			if got := skipPlainString(string(b), 0) == 8; got != plain {
				t.Fatalf("string: byte %#x at %d: plain %v, want %v", c, pos, got, plain)
			}
		}
	}
	if got := skipPlainString("0123456789abcdef\"xyz", 0); got != 16 {
		t.Fatalf("skipPlain = %d, want 16", got)
	}
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := strings.Repeat("x", 1000)
	var dst []byte
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = appendJSONString(dst[:0], s)
	}
}

func BenchmarkSkipPlain(b *testing.B) {
	s := []byte(strings.Repeat("x", 1000))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if skipPlain(s, 0) < 992 {
			b.Fatal("stopped early")
		}
	}
}

// TestNotPlainRandom checks the word test against a byte-by-byte one on
// words mixing plain bytes with every kind of byte that is not.
func TestNotPlainRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := []byte{0, 0x01, 0x1f, 0x20, 0x21, '"', 0x23, 0x5b, '\\', 0x5d, 0x7e, 0x7f, 0x80, 0xc3, 0xff}
	for n := 0; n < 1_000_000; n++ {
		var b [8]byte
		want := true
		for k := range b {
			if rng.IntN(3) == 0 {
				b[k] = pick[rng.IntN(len(pick))]
			} else {
				b[k] = byte(0x20 + rng.IntN(0x60))
			}
			c := b[k]
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				want = false
			}
		}
		if got := plainWord(binary.LittleEndian.Uint64(b[:])); got != want {
			t.Fatalf("% x: plain %v, want %v", b, got, want)
		}
	}
}
