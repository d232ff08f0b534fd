package engine

import (
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// TableStats reports what DescribeTable does, for every table, by name.
func TestTableStats(t *testing.T) {
	e := ctlOpen(t, Config{})
	for _, name := range []string{"b", "a"} {
		if _, err := e.CreateTable(dpCtx, ctlPPR(name)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("b"), Item: attr.Item{"pk": dpS(fmt.Sprint(i)), "v": dpS("xyz")}}); err != nil {
			t.Fatal(err)
		}
	}
	got := e.TableStats()
	d, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr("b")})
	if err != nil {
		t.Fatal(err)
	}
	want := []TableStat{{Name: "a", Status: "ACTIVE"}, {Name: "b", Status: "ACTIVE", Items: 3, Bytes: *d.Table.TableSizeBytes}}
	if fmt.Sprint(got) != fmt.Sprint(want) || want[1].Bytes != 3*(2+1+1+3) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
