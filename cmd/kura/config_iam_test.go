package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// With --iam-file the third field of a --credentials-file line is the
// principal, not a session token; --credentials keys stay the root user's
// and keep their token; without --iam-file nothing changes.
func TestParseIAMFlags(t *testing.T) {
	none := func(string) string { return "" }
	file := filepath.Join(t.TempDir(), "creds")
	if err := os.WriteFile(file, []byte("AKIDALICE:s:alice\nAKIDAPP:s:arn:aws:iam::000000000000:role/app\nAKIDROOT:s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig([]string{"--credentials", "AKIDLIST:s:TOKEN", "--credentials-file", file, "--iam-file", "iam.json"}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"AKIDALICE": "alice", "AKIDAPP": "arn:aws:iam::000000000000:role/app", "AKIDROOT": ""}
	if c.IAMFile != "iam.json" || len(c.Principals) != len(want) {
		t.Fatalf("%q %v", c.IAMFile, c.Principals)
	}
	for k, v := range want {
		if got, ok := c.Principals[k]; !ok || got != v {
			t.Errorf("principal of %s: %q", k, got)
		}
	}
	for _, cr := range c.Credentials {
		if token := map[string]string{"AKIDLIST": "TOKEN"}[cr.AccessKeyID]; cr.SessionToken != token {
			t.Errorf("%s has session token %q", cr.AccessKeyID, cr.SessionToken)
		}
	}
	c, err = parseConfig([]string{"--credentials-file", file}, none, io.Discard)
	if err != nil || c.Principals != nil || c.Credentials[0].SessionToken != "alice" {
		t.Fatalf("without --iam-file: %+v %v", c, err)
	}
}
