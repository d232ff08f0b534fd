package server

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// BuildInfo is what the binary knows of its own build.
type BuildInfo struct {
	Version   string // the module version, or "devel" for a build from a checkout
	Revision  string // the commit it was built from (12 hex digits), "" if unknown
	Time      string // that commit's time, RFC 3339, "" if unknown
	Modified  bool   // built from a checkout with uncommitted changes
	GoVersion string
}

// Build reads the binary's build information (what `go version -m` shows).
func Build() BuildInfo {
	b := BuildInfo{Version: "devel", GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value[:min(12, len(s.Value))]
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the line kura --version prints, e.g. "kura devel (commit
// 3a8f173abcd0 of 2026-12-01T06:29:55Z) go1.26.8, TiKV backend linked".
func (b BuildInfo) String() string {
	var s strings.Builder
	s.WriteString("kura " + b.Version)
	if b.Revision != "" {
		s.WriteString(" (commit " + b.Revision)
		if b.Time != "" {
			s.WriteString(" of " + b.Time)
		}
		if b.Modified {
			s.WriteString(", with uncommitted changes")
		}
		s.WriteString(")")
	}
	s.WriteString(" " + b.GoVersion)
	if TiKVBuilt {
		s.WriteString(", TiKV backend linked")
	} else {
		s.WriteString(", TiKV backend not linked")
	}
	return s.String()
}
