package indexes_test

import (
	"testing"

	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/wire"
)

// TestGSIKeySchemaShape: the multi-attribute key rules in DynamoDB's words.
func TestGSIKeySchemaShape(t *testing.T) {
	k := func(spec ...string) []wire.KeySchemaElement {
		var out []wire.KeySchemaElement
		for i := 0; i < len(spec); i += 2 {
			out = append(out, wire.KeySchemaElement{AttributeName: wire.Ptr(spec[i]), KeyType: spec[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		ks   []wire.KeySchemaElement
		want string
	}{
		{k("a", "HASH", "b", "HASH", "c", "RANGE"), ""},
		{k("a", "HASH", "b", "RANGE", "c", "HASH"), "One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema"},
		{k("a", "HASH", "a", "HASH"), "The KeySchema contains multiple key attributes with the same name"},
		{k("a", "HASH", "b", "HASH", "c", "HASH", "d", "HASH", "e", "HASH"), "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes"},
		{k("a", "HASH", "b", "RANGE", "c", "RANGE", "d", "RANGE", "e", "RANGE", "f", "RANGE"), "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of RANGE key attributes"},
	} {
		err := indexes.CheckGSIKeySchemaShape(c.ks)
		if got := ""; err != nil {
			got = err.Message
			if got != c.want {
				t.Errorf("%v: %q, want %q", c.ks, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%v accepted, want %q", c.ks, c.want)
		}
	}
}

// TestOnlineChange: one online GSI change at a time; deleting a GSI that
// is still backfilling is a cancel.
func TestOnlineChange(t *testing.T) {
	d := &wire.TableDescription{GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{
		{IndexName: wire.Ptr("a"), IndexStatus: "ACTIVE"},
		{IndexName: wire.Ptr("b"), IndexStatus: "CREATING", Backfilling: wire.Ptr(true)},
	}}
	if !indexes.OnlineChangeRunning(d) {
		t.Fatal("a backfilling GSI is not an online change")
	}
	if !indexes.DeletesBackfilling(d, &wire.DeleteGlobalSecondaryIndexAction{IndexName: wire.Ptr("b")}) ||
		indexes.DeletesBackfilling(d, &wire.DeleteGlobalSecondaryIndexAction{IndexName: wire.Ptr("a")}) {
		t.Fatal("DeletesBackfilling")
	}
	d.GlobalSecondaryIndexes = d.GlobalSecondaryIndexes[:1]
	if indexes.OnlineChangeRunning(d) {
		t.Fatal("an ACTIVE GSI is an online change")
	}
}
