package api

import (
	"bytes"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// Request bodies are read into memory as they arrive, never ahead of the
// bytes received: a head that declares 16 MB costs nothing until 16 MB are
// sent. What is buffered is charged to one budget shared by every
// connection (Options.MaxBufferedBytes); a request that would take it past
// the cap is answered ThrottlingException at once, not queued, and its
// connection closed. A body must also keep arriving: after bodyGrace it
// must average Options.BodyMinRate bytes a second, and all of it must have
// arrived within Options.BodyTimeout; a connection that falls behind is
// closed (the connection server's janitor watches its bodies, net/http's
// are read under a deadline that the bytes received move on).

// Defaults of the body limits.
const (
	DefaultMaxBufferedBytes = 1 << 30
	DefaultBodyTimeout      = 5 * time.Minute
	DefaultBodyMinRate      = 32 << 10 // bytes a second
	// bodyGrace is how long a body may take before BodyMinRate applies.
	bodyGrace = 10 * time.Second
	// smallBody is what a body may take at once: up to it the buffer is
	// sized to the declared length; past it, it grows as bytes arrive.
	smallBody = 64 << 10
	// decodeFactor is the memory charged, per byte of a body past
	// smallBody, for decoding it (the body itself is charged besides):
	// the decoded form of a request takes several times its JSON.
	decodeFactor = 2
)

// msgThrottled is DynamoDB's ThrottlingException text (the Developer
// Guide's table of error messages and codes).
const msgThrottled = "Rate of requests exceeds the allowed throughput."

// budget is a cap on bytes held by requests at once.
type budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64 // the most used since the last spike was let go
}

// take charges n bytes; false (nothing charged) when that would pass the
// cap.
func (b *budget) take(n int64) bool {
	used := b.used.Add(n)
	if used > b.limit {
		b.used.Add(-n)
		return false
	}
	for p := b.peak.Load(); used > p && !b.peak.CompareAndSwap(p, used); p = b.peak.Load() {
	}
	return true
}

// spikeMin is the budget use past which the memory of a spike is handed
// back to the operating system once it is over.
const spikeMin = 64 << 20

// spikeOver reports, once per spike, that requests held spikeMin bytes
// or more and now hold less than an eighth of that: the time to return
// the memory to the operating system (debug.FreeOSMemory), which the Go
// runtime otherwise keeps for minutes (a 16 MB request decodes into
// hundreds of MB).
func (b *budget) spikeOver() bool {
	p := b.peak.Load()
	used := b.used.Load()
	return p >= spikeMin && used < p/8 && b.peak.CompareAndSwap(p, used)
}

func (b *budget) give(n int64) { b.used.Add(-n) }

// bodyRead is one request body being read: its bytes, and what they
// cost the budget (given back by release).
type bodyRead struct {
	s       *Server
	small   *bytes.Buffer // the pooled buffer of a small body
	body    []byte
	charged int64
}

// release gives the body's memory back to the budget (and its buffer to
// the pool).
func (r *bodyRead) release() {
	if r.charged > 0 {
		r.s.bodies.give(r.charged)
		r.charged = 0
	}
	if r.small != nil {
		putBuf(r.small)
		r.small = nil
	}
	r.body = nil
}

// errThrottled refuses a request that would take the body budget past its
// cap.
func errThrottled() error { return ddberr.Throttling(msgThrottled) }

// readBody reads a body of length bytes (-1: unknown, read to EOF) from
// src, up to s.maxBody (past it: ddberr.ErrRequestTooLarge). progress, if
// set, is told the bytes received so far after every read. A body that
// does not fit the budget gets errThrottled; a failed read is returned as
// is.
func (s *Server) readBody(src io.Reader, length int64, progress func(int64)) (bodyRead, error) {
	r := bodyRead{s: s}
	if length > s.maxBody {
		return r, ddberr.ErrRequestTooLarge
	}
	if length >= 0 && length <= smallBody {
		if !s.bodies.take(length) {
			return r, errThrottled()
		}
		r.charged = length
		r.small = getBuf()
		r.small.Grow(int(length))
		r.body = r.small.AvailableBuffer()[:length]
		for got := 0; got < len(r.body); {
			n, err := src.Read(r.body[got:])
			got += n
			if progress != nil && n > 0 {
				progress(int64(got))
			}
			if err != nil && got < len(r.body) {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return r, err
			}
		}
		return r, nil
	}
	limit := s.maxBody + 1
	if length >= 0 {
		limit = length
	}
	var b []byte
	for int64(len(b)) < limit {
		if len(b) == cap(b) {
			grown := min(max(2*int64(cap(b)), smallBody), limit)
			if !s.bodies.take(grown - int64(cap(b))) {
				return r, errThrottled()
			}
			r.charged += grown - int64(cap(b))
			nb := make([]byte, len(b), grown)
			copy(nb, b)
			b = nb
		}
		n, err := src.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if progress != nil && n > 0 {
			progress(int64(len(b)))
		}
		if err == io.EOF && (length < 0 || int64(len(b)) == length) {
			break
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return r, err
		}
	}
	if int64(len(b)) > s.maxBody {
		return r, ddberr.ErrRequestTooLarge
	}
	r.body = b
	// Decoding takes memory too: charged now, for the rest of the request.
	if extra := decodeFactor * int64(len(b)); !s.bodies.take(extra) {
		return r, errThrottled()
	} else {
		r.charged += extra
	}
	return r, nil
}

// largeBody is the body size past which a request waits for one of
// Server.largeSlots before it is decoded and run: the decoded form of a
// request takes up to tens of times its JSON (an 11.9 MB PutItem with
// 500,000 ExpressionAttributeValues decodes into some 500 MB), so only a
// few such requests may decode at once, however many arrive.
const largeBody = 1 << 20

// enterLarge waits for a slot to run a request with a large body in; the
// returned function gives it back. false when ctx ended first. While any
// such request runs, the collector runs at GOGC 100 (largeGC) rather than
// the binary's 400: its garbage is the decoded request, hundreds of MB,
// which at 400 would be left to pile up to five times the live heap.
func (s *Server) enterLarge(x *exchange, n int) (func(), bool) {
	if n <= largeBody {
		return func() {}, true
	}
	select {
	case s.largeSlots <- struct{}{}:
		largeGC(+1)
		return func() {
			largeGC(-1)
			<-s.largeSlots
		}, true
	case <-x.ctx.Done():
		return nil, false
	}
}

// largeGCPercent is the GOGC while large requests run.
const largeGCPercent = 100

var largeGCState struct {
	sync.Mutex
	running int
	saved   int // the GOGC before the first of them
}

// largeGC counts a large request in (+1) or out (-1), lowering GOGC to
// largeGCPercent while there are any and restoring it after the last.
func largeGC(delta int) {
	st := &largeGCState
	st.Lock()
	defer st.Unlock()
	st.running += delta
	switch {
	case delta > 0 && st.running == 1:
		st.saved = debug.SetGCPercent(largeGCPercent)
		if st.saved >= 0 && st.saved < largeGCPercent {
			debug.SetGCPercent(st.saved) // already thriftier (GOGC set low)
		}
	case delta < 0 && st.running == 0:
		debug.SetGCPercent(st.saved)
	}
}

// bodyTooSlow reports whether a body that began at start and has brought
// got bytes by now has run out of time: past the timeout, or, after
// bodyGrace, below the minimum rate.
func (s *Server) bodyTooSlow(start, now time.Time, got int64) bool {
	elapsed := now.Sub(start)
	if elapsed > s.bodyTimeout {
		return true
	}
	return elapsed > min(bodyGrace, s.bodyTimeout) && float64(got) < float64(s.bodyMinRate)*elapsed.Seconds()
}

// bodyDeadline is when a body that began at start, having brought got
// bytes, runs out of time if no more arrive.
func (s *Server) bodyDeadline(start time.Time, got int64) time.Time {
	d := min(bodyGrace, s.bodyTimeout)
	if s.bodyMinRate > 0 {
		d = max(d, time.Duration(float64(got)/float64(s.bodyMinRate)*float64(time.Second)))
	}
	return start.Add(min(d, s.bodyTimeout))
}
