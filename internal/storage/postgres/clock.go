package postgres

import "time"

// monoTime is a reading of the monotonic clock.
type monoTime struct{ t time.Time }

// now reads the clock; a variable so tests can age transactions.
var now = func() monoTime { return monoTime{time.Now()} }

func (m monoTime) sub(o monoTime) time.Duration { return m.t.Sub(o.t) }
