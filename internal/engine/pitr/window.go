package pitr

import (
	"cmp"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// DefaultRecoveryPeriodDays is point-in-time recovery's default (and
// maximum) window.
const DefaultRecoveryPeriodDays = 35

// Lag is how far LatestRestorableDateTime trails the present.
const Lag = 5 * time.Minute

// Window is the span a table with point-in-time recovery on since
// enabledAt, with a recovery period of days (0: the default), can be
// restored to at now: from its enabling (or the start of its recovery
// period) to five minutes ago (or the enabling, early on), as DynamoDB
// reports it.
func Window(enabledAt time.Time, days int32, now time.Time) (earliest, latest time.Time) {
	days = cmp.Or(days, DefaultRecoveryPeriodDays)
	earliest = enabledAt
	if w := now.AddDate(0, 0, -int(days)); w.After(earliest) {
		earliest = w
	}
	latest = now.Add(-Lag)
	if latest.Before(earliest) {
		latest = earliest
	}
	return earliest, latest
}

// Describe is the ContinuousBackupsDescription of a table whose recovery
// is enabled (since enabledAt, for days) or not, at now.
func Describe(enabled bool, enabledAt time.Time, days int32, now time.Time) *wire.ContinuousBackupsDescription {
	d := &wire.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "DISABLED"}
	if enabled {
		earliest, latest := Window(enabledAt, days, now)
		d.PointInTimeRecoveryStatus = "ENABLED"
		d.RecoveryPeriodInDays = wire.Ptr(cmp.Or(days, DefaultRecoveryPeriodDays))
		d.EarliestRestorableDateTime = wire.NewTime(earliest)
		d.LatestRestorableDateTime = wire.NewTime(latest)
	}
	return &wire.ContinuousBackupsDescription{ContinuousBackupsStatus: "ENABLED", PointInTimeRecoveryDescription: d}
}

// CheckUpdate checks an UpdateContinuousBackups' specification on its
// own and reports whether it enables recovery, and for how many days.
func CheckUpdate(spec *wire.PointInTimeRecoverySpecification) (enable bool, days int32, err *ddberr.Error) {
	enable = spec != nil && wire.Deref(spec.PointInTimeRecoveryEnabled)
	if spec != nil && !enable && spec.RecoveryPeriodInDays != nil {
		return false, 0, ddberr.Validation("Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	}
	if enable {
		days = cmp.Or(wire.Deref(spec.RecoveryPeriodInDays), DefaultRecoveryPeriodDays)
	}
	return enable, days, nil
}
