package change

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
)

// recorder is a subsystem that logs what it is offered and may refuse.
type recorder struct {
	name string
	log  *[]string
	fail error
}

func (r recorder) Stage(_ storage.Txn, c Change) error {
	*r.log = append(*r.log, "stage "+r.name)
	return r.fail
}

func (r recorder) Committed(c Change) { *r.log = append(*r.log, "committed "+r.name) }

func TestSubsystemsOrder(t *testing.T) {
	var log []string
	subs := Subsystems{recorder{name: "a", log: &log}, recorder{name: "b", log: &log}}
	if err := subs.Stage(nil, Change{}); err != nil {
		t.Fatal(err)
	}
	subs.Committed(Change{})
	want := []string{"stage a", "stage b", "committed a", "committed b"}
	if !reflect.DeepEqual(log, want) {
		t.Fatalf("calls %q, want %q", log, want)
	}
}

func TestSubsystemsStopAtFirstError(t *testing.T) {
	var log []string
	refused := errors.New("refused")
	subs := Subsystems{
		recorder{name: "a", log: &log},
		recorder{name: "b", log: &log, fail: refused},
		recorder{name: "c", log: &log},
	}
	if err := subs.Stage(nil, Change{}); err != refused {
		t.Fatalf("Stage: %v, want %v", err, refused)
	}
	if want := []string{"stage a", "stage b"}; !reflect.DeepEqual(log, want) {
		t.Fatalf("calls %q, want %q", log, want)
	}
}

func TestKeyItem(t *testing.T) {
	it := attr.Item{"pk": {T: attr.S, Str: "p"}, "sk": {T: attr.N, Str: "1"}, "x": {T: attr.S, Str: "y"}}
	hashOnly := &Table{Hash: KeyAttr{Name: "pk", Type: attr.S}}
	if got := hashOnly.KeyItem(it); !reflect.DeepEqual(got, attr.Item{"pk": {T: attr.S, Str: "p"}}) {
		t.Fatalf("hash-only key %v", got)
	}
	both := &Table{Hash: KeyAttr{Name: "pk", Type: attr.S}, Range: &KeyAttr{Name: "sk", Type: attr.N}}
	if got := both.KeyItem(it); !reflect.DeepEqual(got, attr.Item{"pk": {T: attr.S, Str: "p"}, "sk": {T: attr.N, Str: "1"}}) {
		t.Fatalf("composite key %v", got)
	}
}
