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
