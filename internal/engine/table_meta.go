package engine

import (
	"context"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/insights"
	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/tags"
	"github.com/kura-db/kura/internal/engine/ttl"
	"github.com/kura-db/kura/internal/wire"
)

// What a table's record keeps besides its definition has APIs of its
// own, each a package's: tags (package tags), resource-based policies
// (policies), Contributor Insights (insights) and Time to Live (ttl, with
// its expirer). metaCore is the core as each of them sees it (their Core
// interfaces): the control-plane lock, the clock, the tables and the part
// of their records each keeps, and, for the expirer, a snapshot and the
// write path.
type metaCore struct{ e *Engine }

func (c metaCore) DDL() sync.Locker { return &c.e.ddl }
func (c metaCore) Now() time.Time   { return c.e.clock.Now() }

// setRecord stores the named table's record as change makes it (callers
// hold e.ddl).
func (c metaCore) setRecord(name string, change func(*tableRecord)) error {
	t, ok := c.e.lookupTable(name)
	if !ok {
		return tableNotFound(name)
	}
	rec := t.rec.Clone()
	change(rec)
	_, err := c.e.saveRecord(rec)
	return err
}

// viewTable is the named table as view shows it (freshTable).
func viewTable[T any](e *Engine, name string, view func(*Table) T) (T, bool) {
	t, ok := e.freshTable(name)
	if !ok {
		var none T
		return none, false
	}
	return view(t), true
}

// freshTable is the named table for a control-plane request. In cluster
// mode it is read from the store first: another node may have changed its
// record within this node's recheck period (catalog_nodes.go), and a
// change built on the cached record would fail its generation check,
// and a backup, a restore or an export must see the table's recovery
// settings and definition of the moment.
// (Should that read fail, the cached version is used; a change built on
// it is still refused rather than lost.)
func (e *Engine) freshTable(name string) (*Table, bool) {
	if e.cfg.Cluster {
		e.reloadTable(name) //nolint:errcheck // see above
	}
	return e.lookupTable(name)
}

// viewTables are all the tables as view shows them; in cluster mode
// those other nodes created or changed too.
func viewTables[T any](e *Engine, view func(*Table) T) ([]T, error) {
	if e.cfg.Cluster {
		if err := e.syncCatalog(); err != nil {
			return nil, err
		}
	}
	var out []T
	for _, t := range e.snapshotTables() {
		out = append(out, view(t))
	}
	return out, nil
}

func tagsView(t *Table) tags.Table { return tags.Table{Status: t.Status, Tags: t.rec.Tags} }

func (c metaCore) TagTable(name string) (tags.Table, bool) { return viewTable(c.e, name, tagsView) }

func (c metaCore) SetTags(name string, tg []wire.Tag) error {
	return c.setRecord(name, func(r *tableRecord) { r.Tags = tg })
}

func policiesView(t *Table) policies.Table {
	return policies.Table{Name: t.Name, Status: t.Status, StreamARN: cpDeref(t.Desc.LatestStreamArn), Policies: t.rec.Policies}
}

func (c metaCore) PolicyTable(name string) (policies.Table, bool) {
	return viewTable(c.e, name, policiesView)
}

func (c metaCore) SetPolicies(name string, s policies.Set) error {
	return c.setRecord(name, func(r *tableRecord) { r.Policies = s })
}

func insightsView(t *Table) insights.Table {
	return insights.Table{Name: t.Name, Status: t.Status, Desc: &t.Desc, Records: t.rec.Insights}
}

func (c metaCore) InsightsTable(name string) (insights.Table, bool) {
	return viewTable(c.e, name, insightsView)
}

func (c metaCore) InsightsTables() ([]insights.Table, error) { return viewTables(c.e, insightsView) }

func (c metaCore) SetInsights(name, index string, ir *insights.Record) error {
	return c.setRecord(name, func(r *tableRecord) {
		if r.Insights == nil {
			r.Insights = map[string]*insights.Record{}
		}
		r.Insights[index] = ir
	})
}

func ttlView(t *Table) ttl.Table { return ttl.Table{Def: &t.Table, Status: t.Status, TTL: t.rec.TTL} }

func (c metaCore) TTLTable(name string) (ttl.Table, bool) { return viewTable(c.e, name, ttlView) }

func (c metaCore) TTLTables() ([]ttl.Table, error) { return viewTables(c.e, ttlView) }

func (c metaCore) SetTTL(name string, tr *ttl.Record) error {
	return c.setRecord(name, func(r *tableRecord) { r.TTL = tr })
}

func (c metaCore) Snapshot() (*snapshot.Reader, error) { return c.e.openSnapshot() }

// Delete is the TTL expirer's deletion of one item through writeItem,
// which marks it as TTL's (itemWrite.ttl): indexes and stream records
// follow the normal delete path, and foreground writers only ever wait for
// one item's write.
func (c metaCore) Delete(ctx context.Context, tt ttl.Table, key attr.Item, keep func(attr.Item) error) error {
	t, ok := c.e.lookupTable(tt.Def.Name)
	if !ok || t.ID != tt.Def.ID {
		return keep(nil) // gone, as its items are
	}
	_, err := c.e.writeItem(ctx, itemWrite{table: t, key: t.primaryKeyOf(key), tooBig: msgItemSize, ttl: true,
		apply: func(old attr.Item) (attr.Item, error) { return nil, keep(old) }})
	return err
}
