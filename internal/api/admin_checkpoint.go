package api

import (
	"encoding/json"
	"net/http"
)

// checkpointPath is the endpoint that writes a consistent copy of the data
// (Options.Checkpoint; kura --checkpoint-dir):
//
//	POST /admin/checkpoint   → {"Path": "<checkpoint dir>/kura-<UTC time>"}
//
// It is served without --admin (it changes nothing), and with
// authentication on it takes a signed request like the other endpoints.
const checkpointPath = adminPrefix + "checkpoint"

func (s *Server) serveCheckpoint(w http.ResponseWriter, r *http.Request) {
	if s.auth != nil {
		if err := s.verifyAdmin(r); err != nil {
			s.writeError(&exchange{ctx: r.Context(), out: httpReplier{w}}, err, 0)
			return
		}
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	path, err := s.ckpt()
	if err != nil {
		s.log.Error("checkpoint", "err", err)
		http.Error(w, "checkpoint failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.log.Info("checkpoint written", "path", path)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"Path": path})
}
