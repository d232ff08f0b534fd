package api

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/auth"
)

// The connection server (httpserver.go) reads the requests the AWS SDKs
// send itself: "POST / HTTP/1.1", a Host, a Content-Length body, no
// Transfer-Encoding, Expect or Upgrade, header lines ending in CRLF. Any
// other request — or anything the parser here is unsure of — goes to
// net/http unread, so odd and malformed requests get exactly net/http's
// answer.

// requestHead is what the connection server needs from a request's head.
type requestHead struct {
	contentLength  int64 // 0 without a Content-Length
	host           []byte
	target         []byte
	contentType    []byte
	acceptEncoding []byte
	authorization  []byte
	close          bool // Connection: close
}

// parseHead parses the request head at the start of buf. It returns the
// head's length in bytes (through the empty line), or 0 when buf does not
// hold a whole head yet, or -1 when the request is not one this parser
// serves (net/http must read it). The slices in h point into buf.
func parseHead(buf []byte, h *requestHead) int {
	*h = requestHead{}
	const requestLine = "POST / HTTP/1.1\r\n"
	if len(buf) < len(requestLine) {
		if !bytes.HasPrefix([]byte(requestLine), buf) {
			return -1
		}
		return 0
	}
	if string(buf[:len(requestLine)]) != requestLine {
		return -1
	}
	pos := len(requestLine)
	var sawHost, sawLength bool
	for {
		nl := bytes.IndexByte(buf[pos:], '\n')
		if nl < 0 {
			return 0
		}
		line := buf[pos : pos+nl+1]
		pos += nl + 1
		if len(line) < 2 || line[len(line)-2] != '\r' {
			return -1 // a bare LF line ending
		}
		line = line[:len(line)-2]
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return -1 // includes obsolete line folding (leading space)
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		if !validFieldValue(value) {
			return -1
		}
		switch {
		case bytes.EqualFold(name, []byte("Host")):
			if sawHost || !validHost(value) {
				return -1
			}
			sawHost, h.host = true, value
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseContentLength(value)
			if !ok || sawLength {
				return -1
			}
			sawLength, h.contentLength = true, n
		case bytes.EqualFold(name, []byte("X-Amz-Target")):
			keepFirst(&h.target, value)
		case bytes.EqualFold(name, []byte("Content-Type")):
			keepFirst(&h.contentType, value)
		case bytes.EqualFold(name, []byte("Accept-Encoding")):
			keepFirst(&h.acceptEncoding, value)
		case bytes.EqualFold(name, []byte("Authorization")):
			keepFirst(&h.authorization, value)
		case bytes.EqualFold(name, []byte("Connection")):
			for tok := range bytes.SplitSeq(value, []byte(",")) {
				tok = trimOWS(tok)
				if bytes.EqualFold(tok, []byte("close")) {
					h.close = true
				} else if !bytes.EqualFold(tok, []byte("keep-alive")) {
					return -1 // upgrade and the like
				}
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")),
			bytes.EqualFold(name, []byte("Expect")),
			bytes.EqualFold(name, []byte("Upgrade")),
			bytes.EqualFold(name, []byte("Origin")),           // a browser's request: CORS headers (cors.go)
			bytes.EqualFold(name, []byte("Content-Encoding")): // a compressed body (server.go)
			return -1
		}
	}
	if !sawHost {
		return -1
	}
	return pos
}

// headFields appends the header fields of a head parseHead accepted (for
// checking its signature: auth.Request). The head is copied once; the
// fields' names and values are slices of that copy.
func headFields(head []byte, dst []auth.Field) []auth.Field {
	_, rest, _ := strings.Cut(string(head), "\r\n") // the request line
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\r\n")
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		dst = append(dst, auth.Field{Name: name, Value: strings.Trim(value, " \t")})
	}
	return dst
}

// keepFirst sets *dst to v unless an earlier header set it (net/http's
// Header.Get returns the first value too).
func keepFirst(dst *[]byte, v []byte) {
	if *dst == nil {
		*dst = v
	}
}

// parseContentLength accepts only plain decimal digits, as net/http does,
// and at most 18 of them.
func parseContentLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// isToken reports whether b is an RFC 9110 token (a valid field name).
func isToken(b []byte) bool { return allIn(b, &tokenChar) }

// validHost reports whether a Host value has only the bytes net/http
// accepts in one (it answers 400 to any other).
func validHost(v []byte) bool { return allIn(v, &hostChar) }

var (
	tokenChar = alnumAnd("!#$%&'*+-.^_`|~")
	hostChar  = alnumAnd("!$%&'()*+,-.:;=[]_~")
)

// allIn reports whether every byte of b is ASCII and set in table.
func allIn(b []byte, table *[128]bool) bool {
	for _, c := range b {
		if c >= 0x80 || !table[c] {
			return false
		}
	}
	return true
}

// alnumAnd is a table of the ASCII letters and digits and the bytes of
// extra.
func alnumAnd(extra string) (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range extra {
		t[c] = true
	}
	return t
}

// validFieldValue reports whether a field value has no control bytes other
// than horizontal tab.
func validFieldValue(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// appendResponseHead appends a response's status line and DynamoDB's
// headers for a body of n bytes in content coding enc with checksum crc (no
// body when bare).
func appendResponseHead(b []byte, status int, bare bool, enc string, crc uint32, n int, date string, close bool) []byte {
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(status)...)
	if !bare {
		b = append(b, "\r\nContent-Type: application/x-amz-json-1.0"...)
		if enc != "" {
			b = append(b, "\r\nContent-Encoding: "...)
			b = append(b, enc...)
		}
	}
	b = append(b, "\r\nServer: Server\r\nX-Amzn-Requestid: "...)
	b = appendRequestID(b)
	if !bare {
		b = append(b, "\r\nX-Amz-Crc32: "...)
		b = strconv.AppendUint(b, uint64(crc), 10)
	}
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, "\r\nDate: "...)
	b = append(b, date...)
	if close {
		b = append(b, "\r\nConnection: close"...)
	}
	return append(b, "\r\n\r\n"...)
}
