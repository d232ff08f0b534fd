package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// replicationPrefix is the path of the global tables' fault controls,
// served with --admin on a server of several regions (Options.Replication):
//
//	POST /admin/replication/delay?from=R1&to=R2&by=2s   writes made in R1 reach R2 no sooner than that (by=0: at once)
//	POST /admin/replication/pause?region=R               writes for R queue up...
//	POST /admin/replication/resume?region=R              ...until this
//	POST /admin/region/unavailable?region=R              R's requests answer ServiceUnavailable, writes for it queue up...
//	POST /admin/region/available?region=R                ...until this: the backlog replicates
//	POST /admin/replication/status                       {"Backlog": {"R": n, ...}}: writes queued per region
//
// Each answers {"Backlog": ...} as the status does, so a test can wait for
// replication to catch up without sleeping.
const replicationPrefix = adminPrefix + "replication/"

const regionAdminPrefix = adminPrefix + "region/"

// ReplicationControls are the fault controls of a server's global tables
// (internal/replication.Group).
type ReplicationControls interface {
	SetDelay(from, to string, d time.Duration)
	SetPaused(region string, paused bool)
	SetUnavailable(region string, down bool)
	// Backlog counts the writes queued for each region.
	Backlog() (map[string]int, error)
	// Serves reports whether region is one of the server's.
	Serves(region string) bool
}

// isReplicationAdmin reports whether path is one of the fault controls.
func isReplicationAdmin(path string) bool {
	return strings.HasPrefix(path, replicationPrefix) || strings.HasPrefix(path, regionAdminPrefix)
}

// serveReplicationAdmin answers a fault control (its signature already
// checked).
func (s *Server) serveReplicationAdmin(w http.ResponseWriter, r *http.Request) {
	rc := s.repl
	if rc == nil || r.Method != http.MethodPost {
		http.Error(w, "not found (the fault controls need --regions with two or more regions)", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	region := func(name string) (string, bool) {
		v := q.Get(name)
		if !rc.Serves(v) {
			http.Error(w, name+": want one of the server's --regions", http.StatusBadRequest)
			return "", false
		}
		return v, true
	}
	switch strings.TrimPrefix(r.URL.Path, adminPrefix) {
	case "replication/delay":
		from, ok1 := region("from")
		if !ok1 {
			return
		}
		to, ok2 := region("to")
		if !ok2 {
			return
		}
		d, err := time.ParseDuration(q.Get("by"))
		if err != nil || d < 0 {
			http.Error(w, "by: want a non-negative Go duration such as 2s", http.StatusBadRequest)
			return
		}
		rc.SetDelay(from, to, d)
	case "replication/pause", "replication/resume", "region/unavailable", "region/available":
		reg, ok := region("region")
		if !ok {
			return
		}
		switch r.URL.Path[len(adminPrefix):] {
		case "replication/pause":
			rc.SetPaused(reg, true)
		case "replication/resume":
			rc.SetPaused(reg, false)
		case "region/unavailable":
			rc.SetUnavailable(reg, true)
		default:
			rc.SetUnavailable(reg, false)
		}
	case "replication/status":
	default:
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	backlog, err := rc.Backlog()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"Backlog": backlog})
}
