package main

import (
	"io"
	"testing"

	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/vector"
)

func TestParseVectorFlags(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.VectorEfSearch != vector.DefaultEfSearch {
		t.Fatalf("default --vector-ef-search %d", c.VectorEfSearch)
	}
	if c.VectorQuantization != vector.QuantNone || c.VectorSnapshotInterval != engine.DefaultVectorSnapshotInterval || c.VectorSnapshotChanges != engine.DefaultVectorSnapshotChanges {
		t.Fatalf("defaults: %v %v %d", c.VectorQuantization, c.VectorSnapshotInterval, c.VectorSnapshotChanges)
	}
	env := map[string]string{"KURA_VECTOR_QUANTIZATION": "sq8"}
	c, err = parseConfig([]string{"--vector-snapshot-interval", "0", "--vector-snapshot-changes", "50", "--vector-ef-search", "320"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.VectorQuantization != vector.QuantSQ8 || c.VectorSnapshotInterval != 0 || c.VectorSnapshotChanges != 50 || c.VectorEfSearch != 320 {
		t.Fatalf("parsed: %v %v %d", c.VectorQuantization, c.VectorSnapshotInterval, c.VectorSnapshotChanges)
	}
	for _, bad := range [][]string{{"--vector-quantization", "int8"}, {"--vector-snapshot-interval", "-1s"}, {"--vector-snapshot-changes", "-3"}, {"--vector-ef-search", "0"}, {"--vector-ef-search", "10001"}} {
		if _, err := parseConfig(bad, none, io.Discard); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}
