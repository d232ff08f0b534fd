package metatest

import (
	"sync"
	"time"
)

// Catalog holds tables by name.
type Catalog[T any] struct {
	mu     sync.Mutex
	Clock  time.Time
	Tables map[string]T
}

// New is a Catalog of tables at the time now.
func New[T any](now time.Time, tables map[string]T) *Catalog[T] {
	return &Catalog[T]{Clock: now, Tables: tables}
}

// DDL is the control-plane lock.
func (c *Catalog[T]) DDL() sync.Locker { return &c.mu }

// Now is the catalog's clock.
func (c *Catalog[T]) Now() time.Time { return c.Clock }

// Table is the named table.
func (c *Catalog[T]) Table(name string) (T, bool) {
	t, ok := c.Tables[name]
	return t, ok
}

// All are the tables, in no order.
func (c *Catalog[T]) All() []T {
	var out []T
	for _, t := range c.Tables {
		out = append(out, t)
	}
	return out
}

// Change changes the named table with f; it panics unless the caller
// holds DDL, as the core's stores of a record demand.
func (c *Catalog[T]) Change(name string, f func(*T)) {
	if c.mu.TryLock() {
		panic("metatest: a table changed without the control-plane lock")
	}
	t := c.Tables[name]
	f(&t)
	c.Tables[name] = t
}
