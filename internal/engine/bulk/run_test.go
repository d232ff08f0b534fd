package bulk

import (
	"testing"
	"time"
)

// writeRate paces reservations to its units a second, lets waits under
// 5 ms go, and does not bank idle time.
func TestWriteRatePaces(t *testing.T) {
	max := int64(1024)
	r := newWriteRate(&max)
	now := time.Unix(1000, 0)
	if w := r.reserve(now, 512); w != 0 {
		t.Fatalf("first reservation waits %v", w)
	}
	if w := r.reserve(now, 512); w != 500*time.Millisecond {
		t.Fatalf("second reservation waits %v, want 500ms", w)
	}
	if w := r.reserve(now, 1); w != time.Second {
		t.Fatalf("third reservation waits %v, want 1s", w)
	}
	later := now.Add(time.Minute) // idle: no burst of a minute's units
	if w := r.reserve(later, 1024); w != 0 {
		t.Fatalf("after idling: %v", w)
	}
	if w := r.reserve(later, 1); w != time.Second {
		t.Fatalf("after idling, next waits %v, want 1s", w)
	}
	if w := newWriteRate(nil).reserve(now, 1e9); w != 0 {
		t.Fatalf("no rate waits %v", w)
	}
}
