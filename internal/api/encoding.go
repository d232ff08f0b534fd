package api

import (
	"compress/gzip"
	"compress/zlib"
	"math"
	"strconv"
	"strings"
	"sync"
)

// The response content codings DynamoDB offers.
const (
	codingGzip    = "gzip"
	codingDeflate = "deflate" // zlib-wrapped, as HTTP's deflate is
)

// compressMin is the smallest body DynamoDB compresses (4 KB; ScyllaDB's
// Alternator tests, which are run against DynamoDB, see a 4,094-byte body
// sent plain to a client that accepts gzip).
const compressMin = 4096

var (
	gzPool = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
		return w
	}}
	zlibPool = sync.Pool{New: func() any {
		w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
		return w
	}}
)

// send writes a JSON response body, compressed in the coding the client
// prefers when the body is large enough to be worth it.
func (s *Server) send(x *exchange, status int, body []byte) {
	s.observe(x, status)
	enc := ""
	if len(body) >= compressMin && x.acceptEncoding != "" {
		enc = responseCoding(x.acceptEncoding)
	}
	if enc == "" {
		x.out.writeJSON(status, "", body)
		return
	}
	zb := getBuf()
	defer putBuf(zb)
	if enc == codingGzip {
		w := gzPool.Get().(*gzip.Writer)
		w.Reset(zb)
		_, _ = w.Write(body)
		_ = w.Close()
		gzPool.Put(w)
	} else {
		w := zlibPool.Get().(*zlib.Writer)
		w.Reset(zb)
		_, _ = w.Write(body)
		_ = w.Close()
		zlibPool.Put(w)
	}
	x.out.writeJSON(status, enc, zb.Bytes())
}

// responseCoding picks the response coding for an Accept-Encoding value
// the way DynamoDB does (ScyllaDB's Alternator tests, run against DynamoDB,
// record each rule): codings are matched case-insensitively after trimming;
// a coding's weight is its first q parameter (HTTP's "q=", nothing between
// the name and "="), 1 when absent or unreadable,
// capped at 1, refused at 0 or below; a coding listed twice keeps its best
// weight; "*" stands for gzip and deflate when they are not listed
// themselves; identity and unknown codings are ignored. The highest weight
// wins; on a tie a listed coding beats one "*" stands for, an earlier one a
// later one, and gzip deflate when both come from "*". "" means none.
func responseCoding(ae string) string {
	type offer struct {
		q      float64
		pos    int
		listed bool
	}
	var gz, df, star offer
	pos := -1
	for part := range strings.SplitSeq(ae, ",") {
		pos++
		name, params, _ := strings.Cut(part, ";")
		var o *offer
		switch strings.ToLower(strings.TrimSpace(name)) {
		case codingGzip:
			o = &gz
		case codingDeflate:
			o = &df
		case "*":
			o = &star
		default:
			continue
		}
		q := codingWeight(params)
		if !o.listed {
			*o = offer{q: q, pos: pos, listed: true}
		} else if q > o.q {
			o.q = q
		}
	}
	for _, o := range []*offer{&gz, &df} {
		if !o.listed && star.listed {
			*o = offer{q: star.q, pos: star.pos}
		}
	}
	best, bestOffer := "", offer{}
	for _, c := range []struct {
		name string
		o    offer
	}{{codingGzip, gz}, {codingDeflate, df}} {
		if c.o.q <= 0 {
			continue
		}
		if best == "" || c.o.q > bestOffer.q ||
			c.o.q == bestOffer.q && (c.o.listed && !bestOffer.listed || c.o.listed == bestOffer.listed && c.o.pos < bestOffer.pos) {
			best, bestOffer = c.name, c.o
		}
	}
	return best
}

// codingWeight is the weight a coding's parameters give it: the first q
// parameter's value (1 when it is absent or unreadable), at most 1.
func codingWeight(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		// HTTP's weight is OWS ";" OWS "q=" qvalue: no space between the
		// name and "=", so "q =0" is some other parameter, not a weight.
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimLeft(k, " \t"), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(q) {
			return 1
		}
		return min(q, 1)
	}
	return 1
}
