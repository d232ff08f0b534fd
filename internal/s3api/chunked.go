package s3api

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/auth"
)

// chunkedReader decodes an aws-chunked body (Content-Encoding:
// aws-chunked, as the SDKs send a streamed upload): chunks of
// "HEXSIZE[;chunk-signature=SIG]\r\nDATA\r\n", ending with a chunk of size
// 0, then, with x-amz-trailer, trailing header lines and their signature.
// With signed chunks each chunk's signature chains from the previous one
// (the first from the request's); a wrong one fails the read, so the
// object being written from it is discarded (the Amazon S3 API Reference,
// "Signature Calculations for the Authorization Header: Transferring
// Payload in Multiple Chunks").
type chunkedReader struct {
	r        *bufio.Reader
	p        payload
	prev     string    // the last signature checked
	left     int64     // bytes of the current chunk not yet read
	sig      string    // the current chunk's signature
	sum      hash.Hash // the current chunk's SHA-256
	done     bool
	trailers map[string]string
}

// maxChunkLine bounds a chunk's header line (and a trailer's).
const maxChunkLine = 4096

func newChunkedReader(body io.Reader, p payload) *chunkedReader {
	return &chunkedReader{r: bufio.NewReaderSize(body, 64<<10), p: p, prev: p.seed, sum: sha256.New(), left: -1}
}

func (c *chunkedReader) Read(b []byte) (int, error) {
	for c.left <= 0 {
		if c.done {
			return 0, io.EOF
		}
		if c.left == 0 {
			if err := c.endChunk(); err != nil {
				return 0, err
			}
		}
		if err := c.startChunk(); err != nil {
			return 0, err
		}
	}
	n, err := c.r.Read(b[:min(int64(len(b)), c.left)])
	c.left -= int64(n)
	if c.p.signed {
		c.sum.Write(b[:n])
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// line reads one CRLF-ended line, without the CRLF.
func (c *chunkedReader) line() (string, error) {
	var b []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxChunkLine {
			return "", errIncompleteBody
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", io.ErrUnexpectedEOF
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
	}
}

// startChunk reads a chunk's header line; a chunk of size 0 ends the
// body (its trailers are read and its signature checked).
func (c *chunkedReader) startChunk() error {
	l, err := c.line()
	if err != nil {
		return err
	}
	size, ext, _ := strings.Cut(l, ";")
	n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
	if err != nil || n < 0 {
		return errIncompleteBody
	}
	c.sig = ""
	if v, ok := strings.CutPrefix(ext, "chunk-signature="); ok {
		c.sig = v
	}
	if c.p.signed && c.sig == "" {
		return errSignature
	}
	c.sum.Reset()
	c.left = n
	if n > 0 {
		return nil
	}
	if err := c.checkChunk(); err != nil {
		return err
	}
	c.done = true
	return c.readTrailers()
}

// endChunk reads the CRLF after a chunk's data and checks its signature.
func (c *chunkedReader) endChunk() error {
	l, err := c.line()
	if err != nil || l != "" {
		return errIncompleteBody
	}
	c.left = -1
	return c.checkChunk()
}

// emptySHA256 is the hex SHA-256 of no bytes.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func (c *chunkedReader) checkChunk() error {
	if !c.p.signed {
		return nil
	}
	sts := "AWS4-HMAC-SHA256-PAYLOAD\n" + c.p.stamp + "\n" + c.p.scope + "\n" + c.prev + "\n" + emptySHA256 + "\n" +
		hex.EncodeToString(c.sum.Sum(nil))
	return c.check(sts, c.sig)
}

func (c *chunkedReader) check(sts, sig string) error {
	got, err := hex.DecodeString(sig)
	if err != nil || !hmac.Equal(got, auth.HMAC(c.p.key, []byte(sts))) {
		return errSignature
	}
	c.prev = sig
	return nil
}

// readTrailers reads the trailing header lines up to the empty line
// (only with x-amz-trailer), checking their signature when signed.
func (c *chunkedReader) readTrailers() error {
	if !c.p.trailer {
		l, err := c.line()
		if err != nil || l != "" {
			return errIncompleteBody
		}
		return nil
	}
	c.trailers = map[string]string{}
	var signed bytes.Buffer
	var sig string
	for {
		l, err := c.line()
		if err != nil {
			return err
		}
		if l == "" {
			break
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			return errIncompleteBody
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "x-amz-trailer-signature" {
			sig = strings.TrimSpace(value)
			continue
		}
		c.trailers[name] = strings.TrimSpace(value)
		signed.WriteString(name + ":" + strings.TrimSpace(value) + "\n")
	}
	if !c.p.signed {
		return nil
	}
	sum := sha256.Sum256(signed.Bytes())
	sts := "AWS4-HMAC-SHA256-TRAILER\n" + c.p.stamp + "\n" + c.p.scope + "\n" + c.prev + "\n" + hex.EncodeToString(sum[:])
	return c.check(sts, sig)
}
