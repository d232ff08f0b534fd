package iam

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Authorizer holds the policies in force (from the --iam-file) and the
// principal each access key acts as, and decides requests. Its state is
// replaced whole on Reload; a file that does not load leaves the previous
// state in force.
type Authorizer struct {
	path       string
	accountID  string
	principals map[string]string // access key ID → principal ("" root)
	log        *slog.Logger

	cur atomic.Pointer[state]

	// Parsed resource-based policies by document text (they change only
	// through PutResourcePolicy and are parsed once).
	rpMu sync.Mutex
	rp   map[string]*parsedResource

	// loadMu serialises loads (SIGHUP and Watch) and guards the file's
	// modification time and size as last loaded.
	loadMu  sync.Mutex
	modTime time.Time
	size    int64
}

type parsedResource struct {
	p   *Policy
	err error
}

// state is one loaded IAM file: its version (incremented by each load),
// the principal of each access key, and the decisions cached under it.
type state struct {
	version uint64
	byKey   map[string]*Principal
	bad     map[string]error // keys whose principal the file lacks
	cache   sync.Map         // decisionKey → Decision
	n       atomic.Int64
}

type decisionKey struct {
	p                *Principal
	action, resource string
	resourcePolicy   *Policy
}

// maxCached bounds the decisions cached per state; past it the cache is
// dropped and refilled.
const maxCached = 1 << 16

// New loads the IAM file at path for account accountID; principals maps
// each access key ID to the principal it acts as ("" or absent: the root
// user). A file that does not load is an error here (at start-up).
func New(path, accountID string, principals map[string]string, log *slog.Logger) (*Authorizer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Authorizer{path: path, accountID: accountID, principals: principals, log: log, rp: map[string]*parsedResource{}}
	if err := a.load(); err != nil {
		return nil, err
	}
	return a, nil
}

// Version is the version of the policies in force (1 after New, one more
// for each successful reload).
func (a *Authorizer) Version() uint64 { return a.cur.Load().version }

func (a *Authorizer) load() error {
	a.loadMu.Lock()
	defer a.loadMu.Unlock()
	fi, err := os.Stat(a.path)
	if err != nil {
		return fmt.Errorf("--iam-file: %v", err)
	}
	doc, err := os.ReadFile(a.path)
	if err != nil {
		return fmt.Errorf("--iam-file: %v", err)
	}
	acct, err := ParseAccount(a.accountID, doc)
	if err != nil {
		return fmt.Errorf("--iam-file %s: %v", a.path, err)
	}
	st := &state{byKey: map[string]*Principal{}, bad: map[string]error{}}
	for key, name := range a.principals {
		p, err := acct.Resolve(name, key)
		if err != nil {
			st.bad[key] = err
			a.log.Warn("iam: access key names an unknown principal; its requests are refused", "key", key, "err", err)
			continue
		}
		st.byKey[key] = p
	}
	if prev := a.cur.Load(); prev != nil {
		st.version = prev.version
	}
	st.version++
	a.cur.Store(st)
	a.modTime, a.size = fi.ModTime(), fi.Size()
	return nil
}

// Reload reads the IAM file again. When it does not load, the policies in
// force stay and the error is logged and returned.
func (a *Authorizer) Reload() error {
	if err := a.load(); err != nil {
		a.log.Error("iam: reload failed; the previous policies stay in force", "err", err)
		return err
	}
	a.log.Info("iam: policies reloaded", "file", a.path, "version", a.Version())
	return nil
}

// Watch reloads the file whenever its modification time or size changes,
// checking every interval, until ctx is done.
func (a *Authorizer) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if a.changed() {
			_ = a.Reload()
		}
	}
}

// changed reports whether the file's modification time or size differs
// from the last load's (a file that stays broken is retried, and logged,
// once per change).
func (a *Authorizer) changed() bool {
	fi, err := os.Stat(a.path)
	if err != nil {
		return false
	}
	a.loadMu.Lock()
	defer a.loadMu.Unlock()
	if fi.ModTime().Equal(a.modTime) && fi.Size() == a.size {
		return false
	}
	a.modTime, a.size = fi.ModTime(), fi.Size()
	return true
}

// Principal is who access key id acts as. An access key the credentials
// give no principal is the root user.
func (a *Authorizer) Principal(id string) (*Principal, error) {
	st := a.cur.Load()
	if p, ok := st.byKey[id]; ok {
		return p, nil
	}
	if err, ok := st.bad[id]; ok {
		return nil, err
	}
	return &Principal{ARN: "arn:aws:iam::" + a.accountID + ":root", Account: a.accountID, UserID: a.accountID, Root: true}, nil
}

// ResourcePolicy parses a resource-based policy document ("" for none),
// once per distinct document.
func (a *Authorizer) ResourcePolicy(doc string) (*Policy, error) {
	if doc == "" {
		return nil, nil
	}
	a.rpMu.Lock()
	defer a.rpMu.Unlock()
	if r, ok := a.rp[doc]; ok {
		return r.p, r.err
	}
	if len(a.rp) >= 1024 {
		clear(a.rp)
	}
	p, err := Parse("resource-based policy", []byte(doc))
	a.rp[doc] = &parsedResource{p, err}
	return p, err
}

// Decide evaluates r against the principal's policies and the resource's
// policy (nil: none). Decisions that cannot depend on the request's
// condition keys (no statement involved has a condition or a policy
// variable) are cached per principal, action and resource under the
// policies' version.
func (a *Authorizer) Decide(r *Request, resource *Policy) Decision {
	if r.Principal.Root {
		return Decision{Allowed: true}
	}
	if !staticAll(r.Principal.Policies) || (resource != nil && !resource.static()) {
		return Evaluate(r, resource)
	}
	st := a.cur.Load()
	k := decisionKey{r.Principal, r.Action, r.Resource, resource}
	if d, ok := st.cache.Load(k); ok {
		return d.(Decision)
	}
	d := Evaluate(r, resource)
	if st.n.Add(1) > maxCached {
		st.cache.Clear()
		st.n.Store(0)
	}
	st.cache.Store(k, d)
	return d
}

func staticAll(ps []*Policy) bool {
	for _, p := range ps {
		if !p.static() {
			return false
		}
	}
	return true
}
