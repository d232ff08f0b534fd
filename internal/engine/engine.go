package engine

import (
	"sync"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// Clock is injected so that time-dependent behaviour is testable.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Config configures an Engine.
type Config struct {
	Region    string // default "us-east-1"
	AccountID string // default "000000000000"
	// Sync makes every acknowledged write durable before it is acknowledged.
	Sync bool
	// CreateDelay is how long a new table (or index) stays CREATING.
	CreateDelay time.Duration
	// DeleteDelay is how long a deleted table stays DELETING.
	DeleteDelay time.Duration
	Clock       Clock
}

// Engine is one Kura database.
type Engine struct {
	cfg   Config
	store storage.Store
	clock Clock

	mu     sync.RWMutex
	tables map[string]*Table // by name; values are immutable, swapped on change

	locks [1024]sync.Mutex // striped per-item locks, see lockFor
}
