package ttl

import (
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// Cooldown is how long after a successful UpdateTimeToLive another change
// is refused (DynamoDB documents "up to one hour").
const Cooldown = time.Hour

// Record is a table's Time to Live setting, as its table record stores it.
type Record struct {
	Attribute string    `json:"attr,omitempty"`
	Enabled   bool      `json:"enabled"`
	Changed   time.Time `json:"changed"`
}

// EnabledAttribute is the TTL attribute r enables, "" when TTL is
// disabled (or r is nil: never set).
func (r *Record) EnabledAttribute() string {
	if r == nil || !r.Enabled {
		return ""
	}
	return r.Attribute
}

// DescribeTimeToLive reports the table's TTL setting: ENABLED with its
// attribute, or DISABLED (DynamoDB applies changes at once as observed, so
// ENABLING/DISABLING are not reported).
func (x *Expirer) DescribeTimeToLive(in *wire.DescribeTimeToLiveInput) (*wire.DescribeTimeToLiveOutput, error) {
	name := wire.Deref(in.TableName)
	t, ok := x.core.TTLTable(name)
	if !ok {
		return nil, ddberr.TableNamedNotFound(name)
	}
	if t.Status == tables.StatusCreating || t.Status == tables.StatusDeleting {
		return nil, ddberr.Validationf("Cannot describe time to live while table is in %s state: Current table state is %s", t.Status, t.Status)
	}
	if a := t.TTL.EnabledAttribute(); a != "" {
		return &wire.DescribeTimeToLiveOutput{TimeToLiveDescription: &wire.TimeToLiveDescription{
			AttributeName: wire.Ptr(a), TimeToLiveStatus: "ENABLED"}}, nil
	}
	return &wire.DescribeTimeToLiveOutput{TimeToLiveDescription: &wire.TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}}, nil
}

// UpdateTimeToLive enables or disables TTL on one attribute, with
// DynamoDB's rules: one TTL attribute per table, no repeated enable or
// disable, the same attribute to disable, and one change per Cooldown
// (content errors are reported before the cooldown). Enabling it kicks
// the background pass.
func (x *Expirer) UpdateTimeToLive(in *wire.UpdateTimeToLiveInput) (*wire.UpdateTimeToLiveOutput, error) {
	name := wire.Deref(in.TableName)
	spec := in.TimeToLiveSpecification
	enable := wire.Deref(spec.Enabled)
	attrName := wire.Deref(spec.AttributeName)
	ddl := x.core.DDL()
	ddl.Lock()
	defer ddl.Unlock()
	t, ok := x.core.TTLTable(name)
	if !ok {
		return nil, ddberr.TableNamedNotFound(name)
	}
	switch t.Status {
	case tables.StatusCreating:
		// Worded unlike the other operations' "Table is being created: X".
		return nil, ddberr.ResourceInUse("Attempt to change a resource which is still in use: Table " + t.Def.Name + " is being created")
	case tables.StatusDeleting:
		return nil, tables.InUse(t.Def.Name, t.Status)
	}
	cur := t.TTL
	active := cur.EnabledAttribute() != ""
	now := x.core.Now()
	switch {
	case active && cur.EnabledAttribute() != attrName:
		return nil, ddberr.Validation("TimeToLive is active on a different AttributeName: current AttributeName is " + cur.EnabledAttribute())
	case active && enable:
		return nil, ddberr.Validation("TimeToLive is already enabled")
	case !active && !enable:
		return nil, ddberr.Validation("TimeToLive is already disabled")
	case cur != nil && now.Sub(cur.Changed) < Cooldown:
		return nil, ddberr.Validation("Time to live has been modified multiple times within a fixed interval")
	}
	next := &Record{Enabled: enable, Changed: now}
	if enable {
		next.Attribute = attrName
	}
	if err := x.core.SetTTL(t.Def.Name, next); err != nil {
		return nil, err
	}
	if enable {
		x.Kick()
	}
	return &wire.UpdateTimeToLiveOutput{TimeToLiveSpecification: &wire.TimeToLiveSpecification{
		AttributeName: wire.Ptr(attrName), Enabled: wire.Ptr(enable)}}, nil
}
