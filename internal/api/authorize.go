package api

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/iam"
	"github.com/kura-db/kura/internal/wire"
)

// Authorization (--iam-file, internal/iam): once a request is
// authenticated (dispatch) the principal its access key acts as goes into
// the request's context; op then asks authorize, after the request's own
// checks and before the operation touches any resource, whether every IAM
// action the request needs (authorize_actions.go) is allowed. A refusal
// names only what the request itself named, so it reveals nothing about a
// resource.

// Authorizer configures authorization: the policies and principals
// (internal/iam), and what a request's ARNs are made of.
type Authorizer struct {
	IAM     *iam.Authorizer
	Region  string // "" takes each request's credential-scope region
	Account string
	// Secure says the listener speaks TLS (aws:SecureTransport).
	Secure bool
	// Now is the clock for aws:CurrentTime (nil: time.Now).
	Now func() time.Time
}

type callerKey struct{}

// caller is an authenticated request's principal and what its condition
// keys are made of.
type caller struct {
	az      *Authorizer
	p       *iam.Principal
	region  string
	remote  string
	log     *slog.Logger
	logReqs bool
}

// callerFor is the principal of access key id and what its condition
// keys are made of (nil when authorization is off). A key whose principal
// the IAM file lacks is refused.
func (s *Server) callerFor(id string, x *exchange) (*caller, error) {
	if s.authz == nil {
		return nil, nil
	}
	p, err := s.authz.IAM.Principal(id)
	if err != nil {
		return nil, ddberr.Service("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	c := &caller{az: s.authz, p: p, region: s.authz.Region, remote: x.remote, log: s.log, logReqs: s.logReqs}
	if c.region == "" {
		if scope := auth.CredentialScope(x.authorization); len(scope) > 2 {
			c.region = scope[2]
		}
	}
	return c, nil
}

// authorizing is the context an operation runs in: the exchange's, with
// its caller for authorize (a context derived per request, never stored
// back: a connection's exchange serves many requests).
func (x *exchange) authorizing() context.Context {
	if x.caller == nil {
		return x.ctx
	}
	return context.WithValue(x.ctx, callerKey{}, x.caller)
}

// authorize checks that the caller in ctx (none: authorization off) may
// make request in.
func authorize(ctx context.Context, b Backend, in any) error {
	c, _ := ctx.Value(callerKey{}).(*caller)
	if c == nil || c.p.Root {
		return nil
	}
	for _, ch := range checksFor(in, c.arns()) {
		if err := c.decide(ctx, b, &ch); err != nil {
			return err
		}
	}
	return nil
}

// asCaller names the caller in ctx in an AccessDeniedException of the
// backend's. The engine refuses some ARNs itself (internal/engine/
// arns: another account's resource, which no resource-based
// policy of this server's can grant; ListTagsOfResource of no table) and
// names the account's root user, who signs every request without
// --iam-file. With it DynamoDB names the signing principal, the user or
// the assumed-role session, as authorize does.
func asCaller(ctx context.Context, err error) error {
	c, _ := ctx.Value(callerKey{}).(*caller)
	if c == nil || c.p.Root {
		return err
	}
	var e *ddberr.Error
	if !errors.As(err, &e) || e.Type != "AccessDeniedException" {
		return err
	}
	root := "User: arn:aws:iam::" + c.az.Account + ":root "
	rest, ok := strings.CutPrefix(e.Message, root)
	if !ok {
		return err
	}
	return ddberr.AccessDenied("User: " + c.p.ARN + " " + rest)
}

// decide answers one check, logging the decision with --log-requests.
func (c *caller) decide(ctx context.Context, b Backend, ch *check) error {
	var rp *iam.Policy
	if ch.policyARN != "" {
		if doc, ok := policyDocument(ctx, b, ch.policyARN); ok {
			var perr error
			if rp, perr = c.az.IAM.ResourcePolicy(doc); perr != nil {
				c.log.Warn("iam: a resource-based policy does not parse; it grants nothing", "resource", ch.policyARN, "err", perr)
			}
		}
	}
	r := &iam.Request{Principal: c.p, Action: ch.action, Resource: ch.resource, Context: c.context(ctx, b, ch)}
	d := c.az.IAM.Decide(r, rp)
	if c.logReqs {
		c.log.Info("authorization", "principal", c.p.ARN, "action", ch.action, "resource", ch.resource,
			"allowed", d.Allowed, "explicitDeny", d.ExplicitDeny, "policy", d.Policy, "sid", d.Sid)
	}
	if d.Allowed {
		return nil
	}
	return ddberr.NotAuthorized(c.p.ARN, ch.action, ch.resource, d.ExplicitDeny, d.InResource)
}

// policyDocument is the resource-based policy attached to arn, if any.
func policyDocument(ctx context.Context, b Backend, arn string) (string, bool) {
	if l, ok := b.(PolicyLookup); ok {
		return l.ResourcePolicyDocument(ctx, arn)
	}
	out, err := b.GetResourcePolicy(ctx, &wire.GetResourcePolicyInput{ResourceArn: &arn})
	if err != nil || out.Policy == nil {
		return "", false
	}
	return *out.Policy, true
}

// context is the condition-key context of one check: the request's own
// keys, then the global keys of the connection and the clock, and
// dynamodb:LeadingKeys, each worked out only when a policy asks for it.
func (c *caller) context(ctx context.Context, b Backend, ch *check) iam.Context {
	return &lazyContext{m: ch.keys, ctx: ctx, b: b, ch: ch, c: c}
}

// lazyContext answers the global keys of the connection and the clock,
// and dynamodb:LeadingKeys and aws:ResourceTag/ from the table (its key
// schema, its tags), the first time a policy asks.
type lazyContext struct {
	m   iam.MapContext // the request's keys, then those worked out (nil: none yet)
	ctx context.Context
	b   Backend
	ch  *check
	c   *caller
	// leadingKeys is dynamodb:LeadingKeys once worked out (leadingDone).
	leadingKeys []string
	leadingOK   bool
	leadingDone bool
}

// put keeps a worked-out key's values.
func (l *lazyContext) put(k string, v []string) {
	if l.m == nil {
		l.m = iam.MapContext{}
	}
	l.m[k] = v
}

// global is the value of one of the global keys of the connection and the
// clock (ok false for another key).
func (l *lazyContext) global(k string) (string, bool) {
	switch k {
	case "aws:currenttime", "aws:epochtime":
		now := time.Now
		if l.c.az.Now != nil {
			now = l.c.az.Now
		}
		t := now().UTC()
		if k == "aws:epochtime" {
			return strconv.FormatInt(t.Unix(), 10), true
		}
		return t.Format(time.RFC3339), true
	case "aws:securetransport":
		return strconv.FormatBool(l.c.az.Secure), true
	case "aws:requestedregion":
		return l.c.region, true
	case "aws:sourceip":
		host, _, err := net.SplitHostPort(l.c.remote)
		return host, err == nil
	}
	return "", false
}

func (l *lazyContext) Get(key string) ([]string, bool) {
	k := strings.ToLower(key)
	if v, ok := l.m[k]; ok {
		return v, true
	}
	if v, ok := l.global(k); ok {
		l.put(k, []string{v})
		return l.m[k], true
	}
	switch {
	case k == "dynamodb:attributes" && l.ch.attrs != nil:
		names := l.ch.attrs()
		if names == nil {
			return nil, false
		}
		l.put(k, names)
		return names, true
	case k == "dynamodb:leadingkeys" && l.ch.leading != nil:
		if !l.leadingDone {
			l.leadingKeys, l.leadingOK = l.ch.leading(l.ctx, l.b)
			l.leadingDone = true
		}
		return l.leadingKeys, l.leadingOK
	case strings.HasPrefix(k, "aws:resourcetag/") && l.ch.tagsARN != "":
		out, err := l.b.ListTagsOfResource(l.ctx, &wire.ListTagsOfResourceInput{ResourceArn: &l.ch.tagsARN})
		if err != nil {
			return nil, false
		}
		for _, t := range out.Tags {
			if t.Key != nil && t.Value != nil {
				l.put("aws:resourcetag/"+strings.ToLower(*t.Key), []string{*t.Value})
			}
		}
		v, ok := l.m[k]
		return v, ok
	}
	return nil, false
}
