package clock

import (
	"sync/atomic"
	"time"
)

// Clock tells the time.
type Clock interface{ Now() time.Time }

// Admin is a Clock whose time can be moved forward by an operator: the
// base clock (nil: the system clock) plus an offset.
type Admin struct {
	Base   Clock
	offset atomic.Int64 // nanoseconds
}

// Now returns the base time plus the offset.
func (c *Admin) Now() time.Time {
	if c.Base == nil {
		return time.Now().Add(time.Duration(c.offset.Load()))
	}
	return c.Base.Now().Add(time.Duration(c.offset.Load()))
}

// Advance moves the clock forward by d (negative values are ignored) and
// returns the new time.
func (c *Admin) Advance(d time.Duration) time.Time {
	if d > 0 {
		c.offset.Add(int64(d))
	}
	return c.Now()
}
