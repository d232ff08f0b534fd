package server

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/replication"
)

// With Config.Regions the server is several regions: a request belongs to
// the region of its SigV4 credential scope (an unsigned one to
// Config.Region, the home region), and each region is a database of its
// own, so its tables, ARNs, streams, limits and account settings are its
// own. In shared mode the home region's database is the shared one (in
// the data directory itself, so turning --regions on keeps its tables
// there) and every other region's is named regionKey, in the folder
// regionDir of the data directory (or the TiKV or PostgreSQL namespace of
// that name). With a database per credential, folderName already names
// the region: the regions list only bounds which ones exist.

// regionPrefix starts the database name of a region other than the home
// one in shared mode. No folderName has it: those hold a '_', and
// "region-" followed by a region name holds none.
const regionPrefix = "region-"

// regionKey is the database name of region in shared mode.
func (s *Server) regionKey(region string) string {
	if region == s.cfg.Region {
		return sharedKey
	}
	return regionPrefix + encodeName(region)
}

// regionDir is the folder of a region's database under the data
// directory of a shared server.
func regionDir(dataDir, region string) string {
	return filepath.Join(dataDir, "regions", encodeName(region))
}

// servesRegion reports whether a request scoped to region is served: any
// region without Config.Regions, else one of them.
func (s *Server) servesRegion(region string) bool {
	return len(s.cfg.Regions) == 0 || slices.Contains(s.cfg.Regions, region)
}

// checkRegions validates Config.Regions: region names, no repeats, and
// the home region among them.
func checkRegions(cfg Config) error {
	if len(cfg.Regions) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, r := range cfg.Regions {
		if r == "" || encodeName(r) != r {
			return fmt.Errorf("--regions: %q is not a region name (letters, digits and '-')", r)
		}
		if seen[r] {
			return fmt.Errorf("--regions: %s is listed twice", r)
		}
		seen[r] = true
	}
	if !seen[cfg.Region] {
		return fmt.Errorf("--regions: the home region --region %s (unsigned requests' region) is not among them", cfg.Region)
	}
	return nil
}

// unknownRegion is the answer to a request for a region the server does
// not serve: what DynamoDB's endpoint of one region answers a request
// signed for another (auth.UnknownRegion), with or without authentication
// on, since a client pointed at Kura reaches no other endpoint.
func unknownRegion(region string) error { return auth.UnknownRegion(region) }

// regionOutage answers every request for a region made unavailable
// (replication.Group.SetUnavailable) as DynamoDB answers while it cannot
// serve a region (ddberr.ServiceUnavailable).
func regionOutage() error { return ddberr.ServiceUnavailable() }

// msgNoGlobalTablesPerKey refuses ReplicaUpdates of an unsigned request
// with several regions and a database per access key and region
// (--shared-db=false): each access key has global tables of its own
// (keyrepl.go), the database of unsigned requests none. Kura's own text.
const msgNoGlobalTablesPerKey = "ReplicaUpdates are not supported for unsigned requests with --shared-db=false: each access key has global tables of its own between its databases, and unsigned requests have no access key"

// replicationKey names the store of the global tables' replication state
// (internal/replication) of a shared server with several regions: the
// folder "_replication" beside the regions' (no region's folder has a
// '_'), or that name in TiKV or PostgreSQL.
const replicationKey = "replication"

// startReplication opens the replication store and the global tables of
// the regions (a shared server with two or more regions), whose engines
// are open.
func (s *Server) startReplication(engines map[string]*engine.Engine) error {
	cfg := s.cfg
	cfg.DataDir = filepath.Join(cfg.DataDir, "regions", "_replication")
	store, err := s.openStore(cfg, replicationKey)
	if err != nil {
		return fmt.Errorf("opening the replication store: %w", err)
	}
	rc := replication.Config{Store: store, Regions: engines, Logger: s.log, UpdateDelay: cfg.CreateDelay, Cluster: cfg.Cluster}
	if cfg.Admin {
		// Each region's --admin clock, which /admin/clock/advance moves:
		// replication delays are timed on it.
		rc.Now = func(region string) time.Time { return s.adminClock(s.regionKey(region)).Now() }
	}
	g, err := replication.Open(rc)
	if err != nil {
		store.Close()
		return fmt.Errorf("opening the global tables: %w", err)
	}
	s.repl, s.replStore = g, store
	return nil
}

// stopReplication stops replication and closes its store.
func (s *Server) stopReplication() error {
	if s.repl == nil {
		return nil
	}
	s.repl.Close()
	s.repl = nil
	return s.replStore.Close()
}
