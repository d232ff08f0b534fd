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

func TestParseS3Flags(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig([]string{"--s3-endpoint", "http://127.0.0.1:9000", "--s3-path-style", "--kinesis-endpoint", "http://127.0.0.1:4567"}, none, io.Discard)
	if err != nil || c.S3Endpoint != "http://127.0.0.1:9000" || !c.S3PathStyle || c.S3Dir != "" || c.KinesisEndpoint != "http://127.0.0.1:4567" {
		t.Fatalf("%+v %v", c, err)
	}
	for msg, args := range map[string][]string{
		"--s3-dir and --s3-endpoint exclude each other":                                {"--s3-dir", "/tmp/s3", "--s3-endpoint", "http://127.0.0.1:9000"},
		"--s3-path-style goes with --s3-endpoint":                                      {"--s3-path-style"},
		`invalid --s3-endpoint "127.0.0.1:9000": want an http:// or https:// URL`:      {"--s3-endpoint", "127.0.0.1:9000"},
		`invalid --s3-endpoint "ftp://example.com": want an http:// or https:// URL`:   {"--s3-endpoint", "ftp://example.com"},
		`invalid --kinesis-endpoint "127.0.0.1:4567": want an http:// or https:// URL`: {"--kinesis-endpoint", "127.0.0.1:4567"},
	} {
		if _, err := parseConfig(args, none, io.Discard); err == nil || err.Error() != msg {
			t.Errorf("%v: %v, want %q", args, err, msg)
		}
	}
}
