package pitr

import (
	"testing"
	"time"

	"github.com/kura-db/kura/internal/wire"
)

// TestWindow: from the enabling (or the recovery period's start) to five
// minutes ago, never before the enabling.
func TestWindow(t *testing.T) {
	now := time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC)
	on := now.Add(-time.Minute)
	if e, l := Window(on, 0, now); !e.Equal(on) || !l.Equal(on) {
		t.Fatalf("just enabled: %v %v", e, l)
	}
	if e, l := Window(now.AddDate(0, 0, -100), 7, now); !e.Equal(now.AddDate(0, 0, -7)) || !l.Equal(now.Add(-5*time.Minute)) {
		t.Fatalf("7 days: %v %v", e, l)
	}
	d := Describe(true, now.AddDate(0, 0, -100), 0, now).PointInTimeRecoveryDescription
	if d.PointInTimeRecoveryStatus != "ENABLED" || wire.Deref(d.RecoveryPeriodInDays) != DefaultRecoveryPeriodDays ||
		!d.EarliestRestorableDateTime.Equal(now.AddDate(0, 0, -DefaultRecoveryPeriodDays)) {
		t.Fatalf("%+v", d)
	}
	if d := Describe(false, time.Time{}, 0, now).PointInTimeRecoveryDescription; d.PointInTimeRecoveryStatus != "DISABLED" || d.EarliestRestorableDateTime != nil {
		t.Fatalf("%+v", d)
	}
}

// TestCheckUpdate: no recovery period when disabling; the default period.
func TestCheckUpdate(t *testing.T) {
	_, _, err := CheckUpdate(&wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: wire.Ptr(false), RecoveryPeriodInDays: wire.Ptr[int32](3)})
	if err == nil || err.Message != "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery." {
		t.Fatalf("%v", err)
	}
	if on, days, err := CheckUpdate(&wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: wire.Ptr(true)}); !on || days != DefaultRecoveryPeriodDays || err != nil {
		t.Fatalf("%v %d %v", on, days, err)
	}
	if on, _, err := CheckUpdate(nil); on || err != nil {
		t.Fatalf("%v %v", on, err)
	}
}
