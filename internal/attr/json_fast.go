package attr

import (
	"encoding/binary"
	"unsafe"
)

// Word-at-a-time scanning for the JSON string writer and reader: a string
// payload is mostly bytes that need no attention (printable ASCII other
// than '"' and '\\'), and testing eight of them at once is several times
// faster than a branch per byte.

const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// plainWord reports whether none of the eight bytes of x (little-endian) is
// a control character, '"', '\\' or a non-ASCII byte.
func plainWord(x uint64) bool {
	ctl := (x - swarOnes*0x20) &^ x
	quote := x ^ (swarOnes * '"')
	quote = (quote - swarOnes) &^ quote
	bslash := x ^ (swarOnes * '\\')
	bslash = (bslash - swarOnes) &^ bslash
	return (ctl|quote|bslash|x)&swarHigh == 0
}

// skipPlain returns the first index j >= i such that s[j:j+8] is not eight
// plain bytes (or fewer than eight bytes remain).
func skipPlain(s []byte, i int) int {
	for i+8 <= len(s) {
		if !plainWord(binary.LittleEndian.Uint64(s[i:])) {
			return i
		}
		i += 8
	}
	return i
}

// skipPlainString is skipPlain for a string (read in place, not copied).
func skipPlainString(s string, i int) int {
	return skipPlain(unsafe.Slice(unsafe.StringData(s), len(s)), i)
}
