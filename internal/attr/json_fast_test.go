package attr

import (
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
