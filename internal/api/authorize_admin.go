package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/iam"
)

// adminAction is the action the operator endpoints (--admin, the
// checkpoint) need with --iam-file: Kura's own, as DynamoDB has no such
// endpoints.
const adminAction = "kura:Admin"

// authorizeAdmin refuses an operator request whose signer (access key id)
// is not allowed kura:Admin on "*" (authorization off: nothing refused).
func (s *Server) authorizeAdmin(id string) error {
	if s.authz == nil {
		return nil
	}
	p, err := s.authz.IAM.Principal(id)
	if err != nil {
		return ddberr.Service("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	d := s.authz.IAM.Decide(&iam.Request{Principal: p, Action: adminAction, Resource: "*", Context: iam.MapContext{}}, nil)
	if !d.Allowed {
		return ddberr.NotAuthorized(p.ARN, adminAction, "*", d.ExplicitDeny, d.InResource)
	}
	return nil
}

// RequireAdmin guards h, the handler of a listener of Kura's own that is
// not DynamoDB's API (the --metrics listener): with --iam-file its
// requests need a principal allowed kura:Admin, signed (SigV4, as the
// admin endpoints take) or with HTTP basic authorization (user name the
// access key ID, password its secret), since Prometheus cannot sign a
// scrape. An unauthenticated request is answered 401 with a
// WWW-Authenticate challenge, a refused one 403, each with DynamoDB's
// error body. Without --iam-file h is served as it is.
func (s *Server) RequireAdmin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.authz == nil {
			h.ServeHTTP(w, r)
			return
		}
		status := http.StatusUnauthorized
		key, err := s.operatorKey(r)
		if err == nil {
			status = http.StatusForbidden
			err = s.authorizeAdmin(key)
		}
		if err != nil {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="kura", charset="UTF-8"`)
			}
			s.writeError(&exchange{ctx: r.Context(), out: httpReplier{w}}, err, status)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// operatorKey is the access key that authenticated r: by basic
// authorization, or else by its signature.
func (s *Server) operatorKey(r *http.Request) (string, error) {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Basic ") {
		return s.auth.CheckBasic(h)
	}
	sr := signedRequest(r, nil)
	return s.auth.Verify(&sr)
}

// simulation is the body of POST /admin/iam/simulate: would the principal
// of AccessKeyId be allowed Action on Resource, with these condition keys
// (Context: key → values) and this resource-based policy (none when
// empty)? Like IAM's policy simulator, for debugging policies.
type simulation struct {
	AccessKeyId    string
	Action         string
	Resource       string
	Context        map[string][]string
	ResourcePolicy string
}

// simulated is its answer.
type simulated struct {
	Principal    string
	Allowed      bool
	ExplicitDeny bool
	InResource   bool
	Policy       string `json:",omitempty"`
	Sid          string `json:",omitempty"`
}

func (s *Server) simulate(r *http.Request) (*simulated, error) {
	var in simulation
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return nil, errors.New("want a JSON object with AccessKeyId, Action, Resource and optionally Context and ResourcePolicy")
	}
	if in.Action == "" || in.Resource == "" {
		return nil, errors.New("Action and Resource are required")
	}
	p, err := s.authz.IAM.Principal(in.AccessKeyId)
	if err != nil {
		return nil, err
	}
	var rp *iam.Policy
	if in.ResourcePolicy != "" {
		if rp, err = iam.Parse("resource-based policy", []byte(in.ResourcePolicy)); err != nil {
			return nil, err
		}
	}
	ctx := iam.MapContext{}
	for k, v := range in.Context {
		ctx[strings.ToLower(k)] = v
	}
	d := iam.Evaluate(&iam.Request{Principal: p, Action: in.Action, Resource: in.Resource, Context: ctx}, rp)
	return &simulated{Principal: p.ARN, Allowed: d.Allowed, ExplicitDeny: d.ExplicitDeny, InResource: d.InResource, Policy: d.Policy, Sid: d.Sid}, nil
}
