package engine

import (
	"sync/atomic"
	"time"
)

// AdminClock is a Clock whose time can be moved forward by an operator
// (the --admin endpoints): the base clock plus an offset. Tests use it to
// age TTL values, shard iterators and stream records without waiting.
type AdminClock struct {
	Base   Clock
	offset atomic.Int64 // nanoseconds
}

// Now returns the base time plus the offset.
func (c *AdminClock) Now() time.Time {
	base := c.Base
	if base == nil {
		base = SystemClock{}
	}
	return base.Now().Add(time.Duration(c.offset.Load()))
}

// Advance moves the clock forward by d (negative values are ignored) and
// returns the new time.
func (c *AdminClock) Advance(d time.Duration) time.Time {
	if d > 0 {
		c.offset.Add(int64(d))
	}
	return c.Now()
}

// AdvanceClock moves the engine's clock forward when it is an AdminClock;
// it reports false otherwise.
func (e *Engine) AdvanceClock(d time.Duration) (time.Time, bool) {
	c, ok := e.clock.(*AdminClock)
	if !ok {
		return e.clock.Now(), false
	}
	return c.Advance(d), true
}
