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
func plainWord(x uint64) bool { return notPlain(x) == 0 }

// notPlain is zero when all eight bytes of x are plain, and non-zero
// otherwise. A byte with its high bit set is non-ASCII; below 0x80, the
// subtractions set it only in a byte under 0x20 (control), equal to '"' or
// equal to '\\', or in a byte above one of those (a borrow), which does
// not change the answer.
func notPlain(x uint64) uint64 {
	ctl := x - swarOnes*0x20
	quote := (x ^ (swarOnes * '"')) - swarOnes
	bslash := (x ^ (swarOnes * '\\')) - swarOnes
	return (ctl | quote | bslash | x) & swarHigh
}

// skipPlain returns the first index j >= i such that s[j:j+8] is not eight
// plain bytes (or fewer than eight bytes remain). Long runs are tested 32
// bytes at a time, with one branch for the four words.
func skipPlain(s []byte, i int) int {
	for i+32 <= len(s) {
		w := s[i : i+32 : i+32]
		if notPlain(binary.LittleEndian.Uint64(w))|
			notPlain(binary.LittleEndian.Uint64(w[8:]))|
			notPlain(binary.LittleEndian.Uint64(w[16:]))|
			notPlain(binary.LittleEndian.Uint64(w[24:])) != 0 {
			break
		}
		i += 32
	}
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
