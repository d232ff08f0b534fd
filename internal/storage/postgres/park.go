package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Ending a read-only transaction (a snapshot, an iterator's, a transaction
// that wrote nothing) costs a round trip for ROLLBACK, as much as the
// read itself. So such a connection is parked instead, its transaction
// still open, and the next snapshot or transaction that takes it sends
// ROLLBACK in front of its own BEGIN, in the same round trip. A parked
// connection holds its snapshot, which holds PostgreSQL's vacuum back, so
// one parked for parkMax is rolled back and given back to the pool, and at
// most maxParked wait at a time.
const (
	parkMax   = 50 * time.Millisecond
	maxParked = 32
)

// parking holds connections whose read-only transaction still has to be
// rolled back.
type parking struct {
	mu     sync.Mutex
	conns  []parkedConn // oldest first
	timer  *time.Timer  // runs sweep while any connection is parked
	closed bool
}

type parkedConn struct {
	c  *pgxpool.Conn
	at time.Time
}

// park keeps c (in a read-only transaction) for the next taker.
func (p *parking) park(c *pgxpool.Conn) {
	p.mu.Lock()
	if p.closed || len(p.conns) >= maxParked {
		p.mu.Unlock()
		rollback(c)
		return
	}
	p.conns = append(p.conns, parkedConn{c, time.Now()})
	if p.timer == nil {
		p.timer = time.AfterFunc(parkMax, p.sweep)
	}
	p.mu.Unlock()
}

// take returns the most recently parked connection, or nil.
func (p *parking) take() *pgxpool.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	if n == 0 {
		return nil
	}
	c := p.conns[n-1].c
	p.conns = p.conns[:n-1]
	return c
}

// sweep rolls back the connections parked for parkMax or longer.
func (p *parking) sweep() {
	p.mu.Lock()
	var old []*pgxpool.Conn
	cutoff := time.Now().Add(-parkMax)
	for len(p.conns) > 0 && !p.conns[0].at.After(cutoff) {
		old = append(old, p.conns[0].c)
		p.conns = p.conns[1:]
	}
	if len(p.conns) > 0 && !p.closed {
		p.timer = time.AfterFunc(time.Until(p.conns[0].at.Add(parkMax)), p.sweep)
	} else {
		p.timer = nil
	}
	p.mu.Unlock()
	for _, c := range old {
		rollback(c)
	}
}

// close rolls back every parked connection; later ones are rolled back at
// once.
func (p *parking) close() {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = nil
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.mu.Unlock()
	for _, pc := range conns {
		rollback(pc.c)
	}
}

// rollback ends c's transaction and gives it back to the pool (which
// closes it if that failed).
func rollback(c *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_, _ = c.Exec(ctx, "ROLLBACK")
	c.Release()
}
