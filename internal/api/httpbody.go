package api

import (
	"bytes"
	"io"
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
}

// take charges n bytes; false (nothing charged) when that would pass the
// cap.
func (b *budget) take(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	return true
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
func (s *Server) readBody(src io.Reader, length int64, progress func(int64)) (*bodyRead, error) {
	r := &bodyRead{s: s}
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
		if err == io.EOF && length < 0 {
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
