package transact

import (
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// reads is a read transaction for GetItems over a map of items by key:
// every Get's table is "t", a read costs 2 units, and the projection keeps
// "pk" only.
type reads struct {
	gets
	items    map[string]attr.Item
	admitErr error
	charged  []attr.Item
	read     bool
}

func (r *reads) Admit() error { return r.admitErr }

func (r *reads) Read(keys [][]byte) ([]attr.Item, error) {
	r.read = true
	out := make([]attr.Item, len(keys))
	for i, k := range keys {
		out[i] = r.items[string(k)]
	}
	return out, nil
}

func (r *reads) Charge(items []attr.Item) { r.charged = items }

func (r *reads) Bill(int, attr.Item) (string, float64) { return "t", 2 }

func (r *reads) Project(_ int, it attr.Item) attr.Item { return attr.Item{"pk": it["pk"]} }

func TestGetItems(t *testing.T) {
	s := newState()
	big := attr.Value{T: attr.S, Str: strings.Repeat("x", 300<<10)}
	items := map[string]attr.Item{}
	for _, k := range []string{"a", "b"} {
		items[k] = attr.Item{"pk": {T: attr.S, Str: k}, "v": big}
	}
	r := &reads{gets: gets{keys: []string{"a", "c", "b"}}, items: items}
	got, cc, err := s.GetItems(r, "TOTAL", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1] != nil || len(got[0]) != 1 || got[2]["pk"].Str != "b" || len(r.charged) != 3 {
		t.Fatalf("items %v, charged %d", got, len(r.charged))
	}
	if len(cc) != 1 || *cc[0].CapacityUnits != 6 || *cc[0].ReadCapacityUnits != 6 {
		t.Fatalf("capacity %+v", cc)
	}
	// Over 4 MB of items, as stored: refused with limitSize only.
	many := &reads{items: items}
	for i := range 14 {
		k := string(rune('A' + i))
		items[k] = items["a"]
		many.keys = append(many.keys, k)
	}
	if _, _, err := s.GetItems(many, "NONE", true); err == nil || ddberr.As(err).Message != MsgTooLarge {
		t.Fatalf("4 MB: %v", err)
	}
	if _, cc, err := s.GetItems(many, "NONE", false); err != nil || cc != nil {
		t.Fatalf("4 MB unchecked: %v, %v", cc, err)
	}
	// Refused admission and a preparing writer stop it before any read.
	refused := &reads{gets: gets{keys: []string{"a"}}, items: items, admitErr: ddberr.Validation("refused")}
	if _, _, err := s.GetItems(refused, "NONE", true); err != refused.admitErr || refused.read {
		t.Fatalf("refused: %v, read %v", err, refused.read)
	}
	keys := [][]byte{[]byte("a")}
	s.Hold(keys)
	defer s.Release(keys)
	held := &reads{gets: gets{keys: []string{"a"}}, items: items}
	if _, _, err := s.GetItems(held, "NONE", true); err == nil || held.read {
		t.Fatalf("held by a preparing writer: %v, read %v", err, held.read)
	}
}
