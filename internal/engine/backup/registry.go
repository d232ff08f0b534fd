package backup

import (
	"slices"
	"sync"
	"time"
)

// Registry is the in-memory view of the backups: every record by the
// resource part of its ARN (Resource). Records are replaced, never changed in place. The zero Registry
// is empty and ready.
type Registry[S any] struct {
	mu    sync.Mutex
	byRes map[string]*Record[S]
}

// Get is the backup with the given ARN (of any region).
func (r *Registry[S]) Get(arn string) (*Record[S], bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.byRes[Resource(arn)]
	return b, ok
}

// Set installs a new version of a backup record (nil removes it).
func (r *Registry[S]) Set(arn string, b *Record[S]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b == nil {
		delete(r.byRes, Resource(arn))
		return
	}
	if r.byRes == nil {
		r.byRes = map[string]*Record[S]{}
	}
	r.byRes[Resource(arn)] = b
}

// Sorted is the backups keep accepts, in ListBackups' order.
func (r *Registry[S]) Sorted(keep func(*Record[S]) bool) []*Record[S] {
	type placed struct {
		p Position
		b *Record[S]
	}
	r.mu.Lock()
	all := make([]placed, 0, len(r.byRes))
	for _, b := range r.byRes {
		if keep(b) {
			all = append(all, placed{b.Position(), b})
		}
	}
	r.mu.Unlock()
	slices.SortFunc(all, func(x, y placed) int { return x.p.Compare(y.p) })
	list := make([]*Record[S], len(all))
	for i, x := range all {
		list[i] = x.b
	}
	return list
}

// Expired is the system backups past their expiry at now.
func (r *Registry[S]) Expired(now time.Time) []*Record[S] {
	var expired []*Record[S]
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.byRes {
		if b.System && !now.Before(b.Expires) {
			expired = append(expired, b)
		}
	}
	return expired
}

// replace installs all (by Resource) as the registry's records.
func (r *Registry[S]) replace(all map[string]*Record[S]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byRes = all
}
