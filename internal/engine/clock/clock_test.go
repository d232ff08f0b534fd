package clock

import (
	"testing"
	"time"
)

type fixed time.Time

func (f fixed) Now() time.Time { return time.Time(f) }

// TestAdmin: the base clock's time plus what Advance added; going back is
// ignored; no base is the system clock.
func TestAdmin(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	c := &Admin{Base: fixed(t0)}
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v, want %v", got, t0)
	}
	if got := c.Advance(time.Hour); !got.Equal(t0.Add(time.Hour)) {
		t.Fatalf("Advance = %v", got)
	}
	if got := c.Advance(-time.Minute); !got.Equal(t0.Add(time.Hour)) {
		t.Fatalf("a negative Advance moved the clock: %v", got)
	}
	var sys Admin
	sys.Advance(24 * time.Hour)
	if d := time.Until(sys.Now()); d < 23*time.Hour || d > 25*time.Hour {
		t.Fatalf("the system clock advanced a day is %v ahead", d)
	}
}
