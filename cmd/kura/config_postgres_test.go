package main

import (
	"io"
	"strings"
	"testing"
)

func TestParsePostgresFlags(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Postgres != "" || c.PostgresNamespace != "default" {
		t.Fatalf("defaults: %q %q", c.Postgres, c.PostgresNamespace)
	}
	url := "postgres://kura:secret@db:5432/kura?sslmode=verify-full"
	env := func(k string) string {
		if k == "KURA_POSTGRES" {
			return url
		}
		return ""
	}
	c, err = parseConfig([]string{"--postgres-namespace", "orders_2"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Postgres != url || c.PostgresNamespace != "orders_2" {
		t.Fatalf("parsed: %q %q", c.Postgres, c.PostgresNamespace)
	}
	for bad, want := range map[string][]string{
		"--postgres and --in-memory exclude each other":             {"--postgres", url, "--in-memory"},
		"--postgres and --tikv-pd exclude each other":               {"--postgres", url, "--tikv-pd", "pd:2379"},
		`invalid --postgres-namespace "a.b"`:                        {"--postgres", url, "--postgres-namespace", "a.b"},
		`invalid --postgres-namespace ""`:                           {"--postgres", url, "--postgres-namespace", ""},
		"not with --in-memory, --tikv-pd or --postgres":             {"--postgres", url, "--checkpoint-dir", "/tmp/ck"},
		"invalid --postgres-namespace \"" + strings.Repeat("n", 65): {"--postgres", url, "--postgres-namespace", strings.Repeat("n", 65)},
	} {
		if _, err := parseConfig(want, none, io.Discard); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: err = %v, want %q", want, err, bad)
		}
	}
}

// TestParseClusterFlag: --cluster goes with a shared store and refuses the
// flags its nodes cannot honour together yet.
func TestParseClusterFlag(t *testing.T) {
	none := func(string) string { return "" }
	url := "postgres://kura@db:5432/kura"
	c, err := parseConfig([]string{"--cluster", "--postgres", url}, none, io.Discard)
	if err != nil || !c.Cluster {
		t.Fatalf("--cluster --postgres: %v (Cluster %v)", err, c != nil && c.Cluster)
	}
	// Each node enforces its share of the capacity (engine, throttle.go).
	if c, err = parseConfig([]string{"--cluster", "--postgres", url, "--enforce-throughput"}, none, io.Discard); err != nil || !c.EnforceThroughput {
		t.Fatalf("--cluster --enforce-throughput: %v", err)
	}
	for want, args := range map[string][]string{
		"--cluster needs a store the nodes share":             {"--cluster"},
		"--cluster needs a store the nodes share: --postgres": {"--cluster", "--in-memory"},
		"--cluster and --regions exclude each other":          {"--cluster", "--postgres", url, "--regions", "us-east-1,eu-west-1"},
	} {
		if _, err := parseConfig(args, none, io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
	}
}
