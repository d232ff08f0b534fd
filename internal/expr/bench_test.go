package expr

import (
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

const benchCond = "attribute_exists(pk) AND #st IN (:a, :b) AND (size(tags) > :n OR begins_with(title, :p))"

func benchParams() *Params {
	return NewParams(map[string]string{"#st": "status"}, attr.Item{
		":a": {T: attr.S, Str: "open"}, ":b": {T: attr.S, Str: "pending"},
		":n": {T: attr.N, Str: "2"}, ":p": {T: attr.S, Str: "Kura"},
	})
}

var benchItem = attr.Item{
	"pk":     {T: attr.S, Str: "item#1"},
	"status": {T: attr.S, Str: "pending"},
	"tags":   {T: attr.SS, Strs: []string{"a", "b"}},
	"title":  {T: attr.S, Str: "Kura database"},
}

func BenchmarkParseResolveEval(b *testing.B) {
	for b.Loop() {
		c, err := ParseCondition(KindCondition, benchCond)
		if err != nil {
			b.Fatal(err)
		}
		if err := benchParams().ResolveCondition(c); err != nil {
			b.Fatal(err)
		}
		if ok, _ := c.Eval(benchItem); !ok {
			b.Fatal("condition false")
		}
	}
}

func BenchmarkEval(b *testing.B) {
	c, err := ParseCondition(KindCondition, benchCond)
	if err != nil {
		b.Fatal(err)
	}
	if err := benchParams().ResolveCondition(c); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if ok, _ := c.Eval(benchItem); !ok {
			b.Fatal("condition false")
		}
	}
}
