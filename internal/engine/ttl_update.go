package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/wire"
)

// ttlCooldown is how long after a successful UpdateTimeToLive another
// change is refused (DynamoDB documents "up to one hour").
const ttlCooldown = time.Hour

// ttlRecord is a table's persisted Time to Live setting (package catalog).
type ttlRecord = catalog.TTLRecord

// ttlAttribute is the table's TTL attribute, "" when TTL is disabled.
func (t *Table) ttlAttribute() string {
	if t.rec == nil || t.rec.TTL == nil || !t.rec.TTL.Enabled {
		return ""
	}
	return t.rec.TTL.Attribute
}

// UpdateTimeToLive enables or disables TTL on one attribute, with
// DynamoDB's rules: one TTL attribute per table, no repeated enable or
// disable, the same attribute to disable, and one change per cooldown
// (content errors are reported before the cooldown).
func (e *Engine) UpdateTimeToLive(ctx context.Context, in *wire.UpdateTimeToLiveInput) (*wire.UpdateTimeToLiveOutput, error) {
	name := cpDeref(in.TableName)
	spec := in.TimeToLiveSpecification
	enable := cpDeref(spec.Enabled)
	attrName := cpDeref(spec.AttributeName)
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.lookupTable(name)
	if !ok {
		return nil, tableNotFound(name)
	}
	if t.Status == StatusCreating {
		// Worded unlike the other operations' "Table is being created: X".
		return nil, ddberr.ResourceInUse("Attempt to change a resource which is still in use: Table " + t.Name + " is being created")
	}
	if t.Status == StatusDeleting {
		return nil, inUse(t)
	}
	cur := t.rec.TTL
	active := cur != nil && cur.Enabled
	now := e.clock.Now()
	switch {
	case active && cur.Attribute != attrName:
		return nil, ddberr.Validation("TimeToLive is active on a different AttributeName: current AttributeName is " + cur.Attribute)
	case active && enable:
		return nil, ddberr.Validation("TimeToLive is already enabled")
	case !active && !enable:
		return nil, ddberr.Validation("TimeToLive is already disabled")
	case cur != nil && now.Sub(cur.Changed) < ttlCooldown:
		return nil, ddberr.Validation("Time to live has been modified multiple times within a fixed interval")
	}
	rec := t.rec.Clone()
	rec.TTL = &ttlRecord{Enabled: enable, Changed: now}
	if enable {
		rec.TTL.Attribute = attrName
	}
	if _, err := e.saveRecord(rec); err != nil {
		return nil, err
	}
	if enable {
		e.kickTTL()
	}
	return &wire.UpdateTimeToLiveOutput{TimeToLiveSpecification: &wire.TimeToLiveSpecification{
		AttributeName: cpPtr(attrName), Enabled: cpPtr(enable)}}, nil
}
