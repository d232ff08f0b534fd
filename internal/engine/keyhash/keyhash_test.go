package keyhash

import (
	"bytes"
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

// TestNumberHashBytes checks DynamoDB's number serialisation on values
// whose bytes are known (Oracle NUMBER's, which it follows), and that
// equal numbers written differently hash alike.
func TestNumberHashBytes(t *testing.T) {
	for _, c := range []struct {
		n    string
		want []byte
	}{
		{"0", []byte{0x80}},
		{"1", []byte{0xC1, 0x02}},
		{"-1", []byte{0x3E, 0x64, 0x66}},
		{"100", []byte{0xC2, 0x02}},
		{"123.45", []byte{0xC2, 0x02, 0x18, 0x2E}},
		{"0.01", []byte{0xC0, 0x02}},
		{"-0.09", []byte{0x3F, 0x5C, 0x66}},
		{"1.0", []byte{0xC1, 0x02}},
		{"1e2", []byte{0xC2, 0x02}},
	} {
		if got := AppendBytes(nil, attr.Value{T: attr.N, Str: c.n}); !bytes.Equal(got, c.want) {
			t.Errorf("%s: % x, want % x", c.n, got, c.want)
		}
	}
}
