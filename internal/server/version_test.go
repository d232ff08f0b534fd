package server

import (
	"runtime"
	"testing"
)

func TestBuildString(t *testing.T) {
	b := BuildInfo{Version: "v1.2.3", Revision: "3a8f173abcd0", Time: "2026-12-01T06:29:55Z", Modified: true, GoVersion: "go1.26.8"}
	want := "kura v1.2.3 (commit 3a8f173abcd0 of 2026-12-01T06:29:55Z, with uncommitted changes) go1.26.8, TiKV backend "
	if TiKVBuilt {
		want += "linked"
	} else {
		want += "not linked"
	}
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := (BuildInfo{Version: "devel", GoVersion: "go1.26.8"}).String(); got[:len("kura devel go1.26.8, TiKV backend")] != "kura devel go1.26.8, TiKV backend" {
		t.Errorf("without a commit: %q", got)
	}
	if b := Build(); b.GoVersion != runtime.Version() || b.Version == "" {
		t.Errorf("this test binary's build: %+v", b)
	}
}
