package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// adminPrefix is the path of the operator endpoints, served only when
// Options.Admin is set (kura --admin):
//
//	POST /admin/ttl/expire               run one TTL expiry pass now → {"Deleted": n}
//	POST /admin/clock/advance?by=<dur>   move the server clock forward (Go
//	                                     duration, e.g. 15m) → {"Now": RFC 3339}
//	POST /admin/iam/simulate             with --iam-file: would a key be allowed an
//	                                     action (authorize_admin.go)
//	POST /admin/replication/..., /admin/region/...
//	                                     with --regions: the global tables' fault
//	                                     controls (admin_replication.go)
//
// They let tests and users exercise TTL expiry, shard-iterator expiry and
// stream retention without waiting. With authentication on they take a
// signed request like every DynamoDB operation: advancing the clock
// expires items, so it is not for anyone who can reach the port. With
// --iam-file the signer must also be allowed kura:Admin.
const adminPrefix = "/admin/"

// maxAdminBody bounds the body read to check an admin request's signature
// (the endpoints read none).
const maxAdminBody = 64 << 10

// adminBackend is what the admin endpoints need from the backend.
type adminBackend interface {
	ExpireTTL(ctx context.Context) (int, error)
	AdvanceClock(d time.Duration) (time.Time, bool)
}

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if s.auth != nil {
		if err := s.verifyAdmin(r); err != nil {
			s.writeError(&exchange{ctx: r.Context(), out: httpReplier{w}}, err, 0)
			return
		}
	}
	if isReplicationAdmin(r.URL.Path) {
		s.serveReplicationAdmin(w, r) // before the region's backend: it may be unavailable
		return
	}
	b, release, err := s.backendFor(r.Header.Get("Authorization"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer release()
	ab, ok := b.(adminBackend)
	if r.Method != http.MethodPost || !ok {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var out any
	switch r.URL.Path {
	case adminPrefix + "ttl/expire":
		n, err := ab.ExpireTTL(r.Context())
		if err != nil {
			s.log.Error("admin: ttl expiry", "err", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out = map[string]int{"Deleted": n}
	case adminPrefix + "iam/simulate":
		if s.authz == nil {
			http.Error(w, "authorization is off (no --iam-file)", http.StatusNotFound)
			return
		}
		if out, err = s.simulate(r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	case adminPrefix + "clock/advance":
		d, err := time.ParseDuration(r.URL.Query().Get("by"))
		if err != nil || d < 0 {
			http.Error(w, "by: want a non-negative Go duration such as 15m", http.StatusBadRequest)
			return
		}
		now, ok := ab.AdvanceClock(d)
		if !ok {
			http.Error(w, "the server clock is not adjustable", http.StatusConflict)
			return
		}
		out = map[string]string{"Now": now.UTC().Format(time.RFC3339Nano)}
	default:
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// verifyAdmin checks an admin request's signature with DynamoDB's errors.
func (s *Server) verifyAdmin(r *http.Request) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAdminBody+1))
	if err != nil {
		return err
	}
	if len(body) > maxAdminBody {
		return ddberr.ErrRequestTooLarge
	}
	sr := signedRequest(r, body)
	key, err := s.auth.Verify(&sr)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // for the endpoint
	return s.authorizeAdmin(key)
}
