package transact

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// TokenTTL is how long a ClientRequestToken stays bound to its request.
const TokenTTL = 10 * time.Minute

// MsgTokenMismatch is DynamoDB's IdempotentParameterMismatchException
// text.
const MsgTokenMismatch = "Request parameters do not match the parameters of the original request with the same client token"

// tokens are the ClientRequestTokens of recent requests.
type tokens struct {
	mu     sync.Mutex
	byTok  map[string]*tokenEntry
	expiry []tokenExpiry // finished entries in expiry order
}

// tokenEntry is one ClientRequestToken: the hash of the request it was
// first used with and, once finished, that request's output.
type tokenEntry struct {
	hash [32]byte
	done chan struct{}
	out  any
	err  error
}

type tokenExpiry struct {
	token string
	at    time.Time
}

// requestHash is the identity of a request for idempotency: its canonical
// JSON form.
func requestHash(in any) [32]byte {
	b, err := json.Marshal(in)
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(b)
}

// Idempotent runs f once per ClientRequestToken within TokenTTL: a repeat
// of the same request (in, compared by its JSON form) gets replay(first
// outcome) without re-applying it, a different request with the same
// token gets IdempotentParameterMismatchException. Concurrent repeats wait
// for the first. Only successes are remembered; a failed request may be
// retried with its token. A nil token runs f(nil).
//
// With shared tokens (ShareTokens, cluster mode) a token this node does
// not know is looked up in the store, and f gets the Token that Run
// records inside the transaction's commit; a repeat of a request first
// applied through another node gets replay(nil).
func (s *State) Idempotent(token *string, in any, f func(*Token) (any, error), replay func(first any) (any, error)) (any, error) {
	if token == nil {
		return f(nil)
	}
	t := &s.tokens
	h := requestHash(in)
	for {
		t.mu.Lock()
		s.pruneTokensLocked()
		ent, ok := t.byTok[*token]
		if !ok {
			ent = &tokenEntry{hash: h, done: make(chan struct{})}
			if t.byTok == nil {
				t.byTok = make(map[string]*tokenEntry)
			}
			t.byTok[*token] = ent
			t.mu.Unlock()
			ent.out, ent.err = s.first(*token, h, f)
			t.mu.Lock()
			if ent.err != nil {
				delete(t.byTok, *token)
			} else {
				t.expiry = append(t.expiry, tokenExpiry{*token, s.clock.Now().Add(TokenTTL)})
			}
			close(ent.done)
			t.mu.Unlock()
			if errors.Is(ent.err, errElsewhere) {
				return replay(nil)
			}
			return ent.out, ent.err
		}
		t.mu.Unlock()
		if ent.hash != h {
			return nil, ddberr.IdempotentParameterMismatch(MsgTokenMismatch)
		}
		<-ent.done
		switch {
		case ent.err == nil:
			return replay(ent.out)
		case errors.Is(ent.err, errElsewhere):
			return replay(nil)
		}
		// The first attempt failed and was forgotten: run again.
	}
}

// pruneTokensLocked forgets tokens whose window has passed. The caller
// holds s.tokens.mu.
func (s *State) pruneTokensLocked() {
	t := &s.tokens
	now := s.clock.Now()
	n := 0
	for n < len(t.expiry) && !now.Before(t.expiry[n].at) {
		x := t.expiry[n]
		if ent, ok := t.byTok[x.token]; ok && isClosed(ent.done) {
			delete(t.byTok, x.token)
		}
		n++
	}
	if n > 0 {
		t.expiry = slices.Delete(t.expiry, 0, n)
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
