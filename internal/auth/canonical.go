package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"
)

// canonicalRequest appends SigV4's canonical form of r for the signed
// headers (lower-case names, as the Authorization header lists them) to b.
func canonicalRequest(b []byte, r *Request, signed []string) []byte {
	b = append(b, r.Method...)
	b = append(b, '\n')
	b = append(b, canonicalURI(r.Path)...)
	b = append(b, '\n')
	b = append(b, canonicalQuery(r.Query)...)
	b = append(b, '\n')
	b = canonicalHeaders(b, r, signed)
	sum := sha256.Sum256(r.Body)
	return hex.AppendEncode(b, sum[:])
}

// canonicalHeaders appends the signed headers' canonical lines, the empty
// line after them and the list of their names, each line ending in a
// newline.
func canonicalHeaders(b []byte, r *Request, signed []string) []byte {
	for _, name := range signed {
		b = append(b, name...)
		b = append(b, ':')
		n := 0
		for _, f := range r.Fields {
			if strings.EqualFold(f.Name, name) {
				if n > 0 {
					b = append(b, ',')
				}
				b = appendCollapsed(b, f.Value)
				n++
			}
		}
		b = append(b, '\n')
	}
	b = append(b, '\n')
	for i, name := range signed {
		if i > 0 {
			b = append(b, ';')
		}
		b = append(b, name...)
	}
	return append(b, '\n')
}

// appendCollapsed appends v trimmed, each run of spaces and tabs as one
// space (SigV4's canonical header value).
func appendCollapsed(b []byte, v string) []byte {
	v = strings.TrimSpace(v)
	space := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' || c == '\t' {
			if !space {
				b = append(b, ' ')
				space = true
			}
			continue
		}
		b = append(b, c)
		space = false
	}
	return b
}

// canonicalURI escapes the path as sent once more, as SigV4 does for every
// service but S3.
func canonicalURI(path string) string {
	if path == "" || path == "/" {
		return "/"
	}
	return escape(path, false)
}

// canonicalQuery sorts the query's parameters by name, then value, each
// decoded and escaped again.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var pairs [][2]string
	for _, kv := range strings.Split(raw, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		pairs = append(pairs, [2]string{escape(k, true), escape(v, true)})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p[0] + "=" + p[1]
	}
	return strings.Join(out, "&")
}

// escape percent-encodes every byte but the unreserved ones (and '/'
// unless slash is set).
func escape(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' && !slash {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
