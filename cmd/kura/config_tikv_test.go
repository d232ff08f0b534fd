package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/server"
)

func TestParseTiKVFlags(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.TiKVPD != nil || c.TiKVNamespace != "default" || c.TiKVGCLifetime != 10*time.Minute {
		t.Fatalf("defaults: %v %q %v", c.TiKVPD, c.TiKVNamespace, c.TiKVGCLifetime)
	}
	if _, err := parseConfig([]string{"--tikv-gc-life-time", "-1s"}, none, io.Discard); err == nil {
		t.Error("a negative --tikv-gc-life-time accepted")
	}
	if _, err := parseConfig([]string{"--tikv-cert", "kura.pem"}, none, io.Discard); err == nil {
		t.Error("--tikv-cert without --tikv-key accepted")
	}

	args := []string{"--tikv-pd", " pd1:2379, pd2:2379 ,", "--tikv-namespace", "orders_2"}
	c, err = parseConfig(args, none, io.Discard)
	if !server.TiKVBuilt {
		if err == nil || !strings.Contains(err.Error(), "built without TiKV support; build it with `go build -tags tikv ./cmd/kura`") {
			t.Fatalf("untagged build: err = %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.TiKVPD, []string{"pd1:2379", "pd2:2379"}) || c.TiKVNamespace != "orders_2" {
		t.Fatalf("parsed: %q %q", c.TiKVPD, c.TiKVNamespace)
	}
	for _, bad := range [][]string{
		{"--tikv-pd", " , "},
		{"--tikv-pd", "pd:2379", "--in-memory"},
		{"--tikv-pd", "pd:2379", "--tikv-namespace", ""},
		{"--tikv-pd", "pd:2379", "--tikv-namespace", "a.b"},
		{"--tikv-pd", "pd:2379", "--tikv-namespace", "a/b"},
		{"--tikv-pd", "pd:2379", "--tikv-namespace", strings.Repeat("n", 65)},
	} {
		if _, err := parseConfig(bad, none, io.Discard); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
