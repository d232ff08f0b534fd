package main

import (
	"io"
	"testing"
)

func TestParseTLSFlags(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig([]string{"--tls-cert", "c.pem", "--tls-key", "k.pem"}, none, io.Discard)
	if err != nil || c.TLSCert != "c.pem" || c.TLSKey != "k.pem" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, args := range [][]string{{"--tls-cert", "c.pem"}, {"--tls-key", "k.pem"}} {
		if _, err := parseConfig(args, none, io.Discard); err == nil || err.Error() != "--tls-cert and --tls-key go together" {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func TestParseCheckpointFlag(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig([]string{"--checkpoint-dir", "/backups"}, none, io.Discard)
	if err != nil || c.CheckpointDir != "/backups" {
		t.Fatalf("%+v %v", c, err)
	}
	want := "--checkpoint-dir copies the embedded store's files: not with --in-memory, --tikv-pd or --postgres"
	if _, err := parseConfig([]string{"--checkpoint-dir", "/backups", "--in-memory"}, none, io.Discard); err == nil || err.Error() != want {
		t.Errorf("with --in-memory: %v", err)
	}
}

func TestParseVersionFlag(t *testing.T) {
	c, err := parseConfig([]string{"--version"}, func(string) string { return "" }, io.Discard)
	if err != nil || !c.Version {
		t.Fatalf("%+v %v", c, err)
	}
}
