package engine

import (
	"time"

	"github.com/kura-db/kura/internal/engine/clock"
)

// AdminClock is a Clock whose time an operator can move forward (the
// --admin endpoints; package clock).
type AdminClock = clock.Admin

// AdvanceClock moves the engine's clock forward when it is an AdminClock;
// it reports false otherwise.
func (e *Engine) AdvanceClock(d time.Duration) (time.Time, bool) {
	c, ok := e.clock.(*AdminClock)
	if !ok {
		return e.clock.Now(), false
	}
	return c.Advance(d), true
}
