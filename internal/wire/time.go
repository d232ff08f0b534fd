package wire

import (
	"strconv"
	"time"
)

// Time is a timestamp on the wire: epoch seconds as a JSON number with a
// fractional part, as DynamoDB sends them.
type Time struct{ time.Time }

// NewTime wraps t.
func NewTime(t time.Time) *Time { return &Time{t} }

// MarshalJSON writes epoch seconds with millisecond precision.
func (t Time) MarshalJSON() ([]byte, error) {
	ms := t.UnixMilli()
	return strconv.AppendFloat(nil, float64(ms)/1000, 'f', -1, 64), nil
}

// UnmarshalJSON reads epoch seconds (number).
func (t *Time) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	t.Time = time.UnixMilli(int64(f * 1000)).UTC()
	return nil
}
