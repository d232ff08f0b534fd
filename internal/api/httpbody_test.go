package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

// A body is read whole whether its last bytes come with io.EOF or alone,
// of a known length or not, small or large; over the size limit it is
// refused without reading more than one byte past the limit.
func TestReadBody(t *testing.T) {
	s := NewServer(newFake(), Options{MaxRequestBytes: 1 << 20})
	for _, n := range []int{0, 10, smallBody, smallBody + 1, 700_000} {
		want := bytes.Repeat([]byte("x"), n)
		for name, src := range map[string]func() io.Reader{
			"plain":        func() io.Reader { return bytes.NewReader(want) },
			"data+EOF":     func() io.Reader { return iotest.DataErrReader(bytes.NewReader(want)) },
			"one by one":   func() io.Reader { return iotest.OneByteReader(bytes.NewReader(want)) },
			"half by half": func() io.Reader { return iotest.HalfReader(bytes.NewReader(want)) },
		} {
			for _, length := range []int64{int64(n), -1} {
				var seen int64
				br, err := s.readBody(src(), length, func(got int64) { seen = got })
				if err != nil || !bytes.Equal(br.body, want) || n > 0 && seen != int64(n) {
					t.Errorf("%d bytes %s, length %d: %v, %d bytes read, progress %d", n, name, length, err, len(br.body), seen)
				}
				br.release()
			}
		}
	}
	if s.bodies.used.Load() != 0 {
		t.Fatalf("%d bytes still charged after every body was released", s.bodies.used.Load())
	}
	big := &countingReader{r: bytes.NewReader(make([]byte, 3<<20))}
	br, err := s.readBody(big, -1, nil)
	br.release()
	if !errors.Is(err, ddberr.ErrRequestTooLarge) || big.n > 1<<20+smallBody {
		t.Fatalf("an unbounded body over the limit: %v after %d bytes", err, big.n)
	}
	if _, err := s.readBody(strings.NewReader("{}"), 1<<20+1, nil); !errors.Is(err, ddberr.ErrRequestTooLarge) {
		t.Fatalf("a declared length over the limit: %v", err)
	}
	if _, err := s.readBody(strings.NewReader("{}"), 10, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a body shorter than declared: %v", err)
	}
}

// Memory is charged as bytes arrive, never for a declared length alone;
// a body that would pass the budget is refused with DynamoDB's
// ThrottlingException, and what it took is given back.
func TestBodyBudget(t *testing.T) {
	s := NewServer(newFake(), Options{MaxBufferedBytes: 1 << 20})
	stalled := &countingReader{r: iotest.TimeoutReader(strings.NewReader(""))}
	br, _ := s.readBody(stalled, 16<<20, nil)
	if s.bodies.peak.Load() > smallBody {
		t.Fatalf("a stalled 16 MB body was charged %d bytes", s.bodies.peak.Load())
	}
	br.release()
	br, err := s.readBody(bytes.NewReader(make([]byte, 900_000)), 900_000, nil)
	if e, ok := err.(*ddberr.Error); !ok || e.Type != "ThrottlingException" || e.Message != msgThrottled {
		t.Fatalf("a body past the budget: %v", err)
	}
	br.release()
	if s.bodies.used.Load() != 0 {
		t.Fatalf("%d bytes still charged", s.bodies.used.Load())
	}
	hold, err := s.readBody(bytes.NewReader(make([]byte, 300_000)), 300_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.readBody(bytes.NewReader(make([]byte, 300_000)), 300_000, nil); err == nil {
		t.Fatal("a second body past what the first left of the budget was read")
	}
	hold.release()
	if !s.bodies.spikeOver() == (s.bodies.peak.Load() >= spikeMin) {
		t.Fatal("spikeOver after a small peak")
	}
}

// The minimum rate applies after the grace period; the timeout bounds the
// whole body; the deadline moves on with the bytes received.
func TestBodyDeadlines(t *testing.T) {
	s := NewServer(newFake(), Options{BodyTimeout: time.Minute, BodyMinRate: 1000})
	start := time.Unix(1000, 0)
	for _, c := range []struct {
		after time.Duration
		got   int64
		slow  bool
	}{
		{5 * time.Second, 0, false},
		{11 * time.Second, 0, true},
		{11 * time.Second, 11_000, false},
		{30 * time.Second, 29_000, true},
		{61 * time.Second, 1 << 30, true},
	} {
		if got := s.bodyTooSlow(start, start.Add(c.after), c.got); got != c.slow {
			t.Errorf("%v with %d bytes: too slow %v", c.after, c.got, got)
		}
	}
	if d := s.bodyDeadline(start, 0); !d.Equal(start.Add(bodyGrace)) {
		t.Errorf("deadline before any byte: %v", d.Sub(start))
	}
	if d := s.bodyDeadline(start, 30_000); !d.Equal(start.Add(30 * time.Second)) {
		t.Errorf("deadline after 30,000 bytes: %v", d.Sub(start))
	}
	if d := s.bodyDeadline(start, 1<<30); !d.Equal(start.Add(time.Minute)) {
		t.Errorf("deadline past the timeout: %v", d.Sub(start))
	}
}

// net/http's path reads a large body (its last bytes arrive with io.EOF)
// and a chunked one.
func TestServeHTTPLargeBody(t *testing.T) {
	var got int
	s := NewServer(putSizeFake(&got), Options{})
	v := strings.Repeat("x", 300_000)
	body := `{"TableName":"tbl","Item":{"v":{"S":"` + v + `"}}}`
	for _, chunked := range []bool{false, true} {
		got = 0
		req := httptest.NewRequest(http.MethodPost, "/", iotest.DataErrReader(strings.NewReader(body)))
		if chunked {
			req.ContentLength = -1
		}
		req.Header.Set("X-Amz-Target", targetPrefix+"PutItem")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 200 || got != len(v) {
			t.Errorf("chunked %v: %d %s; backend saw %d bytes", chunked, rec.Code, rec.Body, got)
		}
	}
}
