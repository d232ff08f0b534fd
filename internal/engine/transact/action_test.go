package transact

import (
	"context"
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

func TestActionOf(t *testing.T) {
	name := wire.Ptr("t")
	key := attr.Item{"pk": {T: attr.S, Str: "k"}}
	for _, it := range []wire.TransactWriteItem{
		{},
		{Put: &wire.Put{TableName: name}, Delete: &wire.Delete{TableName: name}},
	} {
		if _, err := ActionOf(it); ddberr.As(err).Message != MsgOneAction {
			t.Fatalf("%+v: %v", it, err)
		}
	}
	a, err := ActionOf(wire.TransactWriteItem{Update: &wire.Update{TableName: name, Key: key,
		UpdateExpression: wire.Ptr("SET a = :a"), ConditionExpression: wire.Ptr("attribute_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: "ALL_OLD"}})
	if err != nil || a.Kind != KindUpdate || a.TableName != name || a.Key["pk"].Str != "k" || *a.Update != "SET a = :a" ||
		*a.Condition != "attribute_exists(pk)" || a.OnFailure != "ALL_OLD" || a.Item != nil {
		t.Fatalf("%+v %v", a, err)
	}
	if a, _ := ActionOf(wire.TransactWriteItem{ConditionCheck: &wire.ConditionCheck{TableName: name, Key: key}}); a.Kind != KindConditionCheck {
		t.Fatalf("%+v", a)
	}
}

func TestCheckExpressions(t *testing.T) {
	if err := CheckExpressions(wire.TransactWriteItem{Update: &wire.Update{UpdateExpression: wire.Ptr("SET")}}); err == nil {
		t.Fatal("a bad UpdateExpression passed")
	}
	if err := CheckExpressions(wire.TransactWriteItem{Delete: &wire.Delete{ConditionExpression: wire.Ptr("a =")}}); err == nil {
		t.Fatal("a bad ConditionExpression passed")
	}
	if err := CheckExpressions(wire.TransactWriteItem{Put: &wire.Put{ConditionExpression: wire.Ptr("attribute_not_exists(pk)")}}); err != nil {
		t.Fatal(err)
	}
}

// prepared is a Prepared whose run (an insert through s) and figures are
// counted.
type prepared struct {
	s                 *State
	w                 *inserts
	runs, collections int
	fail              error
}

func (p *prepared) Run(ctx context.Context, tok *Token) error {
	p.runs++
	if p.fail != nil {
		return p.fail
	}
	return p.s.Run(ctx, p.w, p.w.keys, tok)
}

func (p *prepared) Capacity(mode string) []wire.ConsumedCapacity {
	return []wire.ConsumedCapacity{{TableName: wire.Ptr("written " + mode)}}
}

func (p *prepared) Collections(mode string) map[string][]wire.ItemCollectionMetrics {
	p.collections++
	return map[string][]wire.ItemCollectionMetrics{mode: nil}
}

func (p *prepared) ReplayCapacity(mode string) ([]wire.ConsumedCapacity, error) {
	return []wire.ConsumedCapacity{{TableName: wire.Ptr("read " + mode)}}, nil
}

// TestWriteItems: a repeat answers the first run's collection metrics and
// the capacity of reading the items again, on this node and through
// another (shared tokens: the metrics are taken again); a failed run is
// not remembered.
func TestWriteItems(t *testing.T) {
	store := memory.New()
	defer store.Close()
	a, b := newState(), newState()
	a.ShareTokens(store)
	b.ShareTokens(store)
	in := &wire.TransactWriteItemsInput{ClientRequestToken: wire.Ptr("tok"), ReturnConsumedCapacity: "TOTAL", ReturnItemCollectionMetrics: "SIZE"}
	p := &prepared{s: a, w: newInserts(store, "k"), fail: errors.New("failed")}
	if _, err := a.WriteItems(context.Background(), p, in); err == nil {
		t.Fatal("no error")
	}
	p.fail = nil
	for i, s := range []*State{a, a, b} {
		p.s = s
		out, err := s.WriteItems(context.Background(), p, in)
		want := "read TOTAL"
		if i == 0 {
			want = "written TOTAL"
		}
		if err != nil || *out.ConsumedCapacity[0].TableName != want || out.ItemCollectionMetrics == nil {
			t.Fatalf("call %d: %+v %v", i, out, err)
		}
	}
	if p.runs != 2 || p.collections != 2 {
		t.Fatalf("%d runs, %d collection metrics", p.runs, p.collections)
	}
}
