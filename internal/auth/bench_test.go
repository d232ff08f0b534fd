package auth

import (
	"testing"
	"time"
)

// BenchmarkVerify checks one SDK-signed GetItem-sized request.
func BenchmarkVerify(b *testing.B) {
	t := &testing.T{}
	r := signed(t, "AKIDKURA", "s3cret", "", "us-east-1", t0, `{"TableName":"bench","Key":{"pk":{"S":"item-000042"}}}`)
	v := NewVerifier("us-east-1", []Credential{{AccessKeyID: "AKIDKURA", Secret: "s3cret"}}, func() time.Time { return t0 })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
}
