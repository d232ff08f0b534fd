package engine

import (
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// probe is a subsystem that records what the write path offers it and
// whether the item was committed when it was told so.
type probe struct {
	e      *Engine
	refuse error
	staged []change.Change
	// committedSeen is, per Committed call, the item as a fresh read finds
	// it then (the commit must have happened).
	committedSeen []attr.Item
}

func (p *probe) Stage(_ storage.Txn, c change.Change) error {
	p.staged = append(p.staged, c)
	return p.refuse
}

func (p *probe) Committed(c change.Change) {
	snap, err := p.e.store.NewSnapshot()
	if err != nil {
		panic(err)
	}
	defer snap.Close()
	it, err := readItem(snap, c.Key)
	if err != nil {
		panic(err)
	}
	p.committedSeen = append(p.committedSeen, it)
}

func TestWritePathOffersChangesToSubsystems(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "T", "pk:S")
	p := &probe{e: e}
	e.subs = append(e.subs, p)

	a1 := attr.Item{"pk": dpS("a"), "v": dpS("1")}
	a2 := attr.Item{"pk": dpS("a"), "v": dpS("2")}
	dpPut(t, e, "T", a1)
	dpPut(t, e, "T", a2)
	if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("T"), Key: attr.Item{"pk": dpS("a")}}); err != nil {
		t.Fatal(err)
	}
	// Deleting a missing item changes nothing: nothing is offered.
	if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("T"), Key: attr.Item{"pk": dpS("a")}}); err != nil {
		t.Fatal(err)
	}
	if len(p.staged) != 3 || len(p.committedSeen) != 3 {
		t.Fatalf("staged %d, committed %d changes; want 3 and 3", len(p.staged), len(p.committedSeen))
	}
	want := []struct{ old, new attr.Item }{{nil, a1}, {a1, a2}, {a2, nil}}
	for i, w := range want {
		c := p.staged[i]
		if !attr.ItemsEqual(c.Old, w.old) || !attr.ItemsEqual(c.New, w.new) {
			t.Errorf("change %d: old %v new %v, want %v %v", i, c.Old, c.New, w.old, w.new)
		}
		if c.Table.Def().Name != "T" || len(c.Suffix) == 0 || len(c.Key) != len(c.Suffix)+itemPrefixLen {
			t.Errorf("change %d: table %q key %x suffix %x", i, c.Table.Def().Name, c.Key, c.Suffix)
		}
		if !c.Whole && i < 2 {
			t.Errorf("change %d: a Put not marked whole", i)
		}
		// Committed comes after the commit: a fresh read sees the change.
		if !attr.ItemsEqual(p.committedSeen[i], w.new) {
			t.Errorf("change %d: at Committed the store holds %v, want %v", i, p.committedSeen[i], w.new)
		}
	}
}

func TestSubsystemErrorAbortsTheWrite(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "T", "pk:S")
	refused := errors.New("refused by a subsystem")
	p := &probe{e: e, refuse: refused}
	e.subs = append(e.subs, p)

	_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("T"), Item: attr.Item{"pk": dpS("a")}})
	if !errors.Is(err, refused) {
		t.Fatalf("PutItem: %v, want the subsystem's error", err)
	}
	if len(p.committedSeen) != 0 {
		t.Fatal("Committed called for a write that did not commit")
	}
	if got := dpGet(t, e, "T", attr.Item{"pk": dpS("a")}); got != nil {
		t.Fatalf("the refused item was stored: %v", got)
	}
}
