package server

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Summary is what a user needs to know of a running server, as attribute
// pairs for its one start-up log record (cmd/kura): the version, the URL it
// serves, where the data is, whether requests must be signed, the
// console's URL and the metrics listener's.
func (s *Server) Summary() []any {
	return []any{
		"version", Build().String(),
		"listen", s.Endpoint(),
		"storage", s.storageSummary(),
		"authentication", s.authSummary(),
		"console", s.consoleSummary(),
		"metrics", s.metricsSummary(),
	}
}

func (s *Server) storageSummary() string {
	cfg := s.cfg
	var where string
	switch {
	case s.tikv != nil:
		where = fmt.Sprintf("TiKV cluster %s, namespace %s", strings.Join(cfg.TiKVPD, ","), cfg.TiKVNamespace)
	case s.pg != nil:
		where = fmt.Sprintf("PostgreSQL %s, namespace %s", s.pg, cfg.PostgresNamespace)
	case cfg.InMemory:
		where = "in memory (nothing survives a restart)"
	default:
		dir := cfg.DataDir
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		where = "data directory " + dir
		if !cfg.Sync {
			where += " (--sync=false: the last 50 ms of writes can be lost in a crash)"
		}
	}
	if cfg.PerCredential {
		where += "; a database per access key and region"
		if s.dbs.max > 0 {
			where += fmt.Sprintf(", at most %d open", s.dbs.max)
		}
	}
	if len(cfg.Regions) > 0 {
		where += fmt.Sprintf("; regions %s (home %s)", strings.Join(cfg.Regions, ","), cfg.Region)
	}
	return where
}

func (s *Server) authSummary() string {
	if n := len(s.cfg.Credentials); n > 0 {
		return fmt.Sprintf("on: requests must be signed with a configured key (%d configured)", n)
	}
	return "off: any access key and secret accepted"
}

func (s *Server) consoleSummary() string {
	if !s.cfg.Console {
		return "off"
	}
	return s.Endpoint() + "/console/"
}

func (s *Server) metricsSummary() string {
	if s.metricsLn == nil {
		return "off"
	}
	return "http://" + s.metricsLn.Addr().String() + "/metrics"
}
