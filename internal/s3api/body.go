package s3api

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxObject is S3's largest single PUT (and part): 5 GiB.
const maxObject = 5 << 30

// checksums are the x-amz-checksum-* algorithms S3 checks a body
// against (the Amazon S3 User Guide, "Checking object integrity"; the
// SDK's ChecksumAlgorithm enum), by the lower-case name the header ends in,
// and the name S3's BadDigest message gives each. The XXHASH ones are not
// among them: a request carrying one is NotImplemented.
var checksums = map[string]struct {
	name string
	new  func() hash.Hash
}{
	"crc32":     {"CRC32", func() hash.Hash { return crc32.NewIEEE() }},
	"crc32c":    {"CRC32C", func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) }},
	"crc64nvme": {"CRC64NVME", func() hash.Hash { return crc64.New(crc64NVME) }},
	"sha1":      {"SHA1", sha1.New},
	"sha256":    {"SHA256", sha256.New},
	"sha512":    {"SHA512", sha512.New},
	"md5":       {"MD5", md5.New},
}

// checksumHeaders are the x-amz-checksum-* headers that are not a value
// to check.
var checksumHeaders = map[string]bool{"mode": true, "algorithm": true, "type": true}

// crc64NVME is CRC-64/NVME's polynomial, bit-reversed as hash/crc64 takes
// it.
var crc64NVME = crc64.MakeTable(0x9a6c9329ac4bc9b5)

// body is a request body being read into an object: it counts, hashes
// (MD5 for the ETag, and whatever the request asks to be checked) and, once
// read to its end, checks what the request said of it.
type body struct {
	r       io.Reader
	chunked *chunkedReader
	want    int64 // the length the body must have; -1 unknown
	n       int64
	md5     hash.Hash
	md5Want []byte
	sha     hash.Hash
	shaWant string
	sums    map[string]hash.Hash // by algorithm (lower case)
	sumWant map[string]string    // base64 values from headers
}

// openBody prepares to read r's body as an object's content.
func openBody(r *http.Request, pl payload) (*body, *Error) {
	b := &body{r: r.Body, want: r.ContentLength, md5: md5.New(), sums: map[string]hash.Hash{}, sumWant: map[string]string{}}
	if v := r.Header.Get("Content-Md5"); v != "" {
		sum, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(sum) != md5.Size {
			return nil, errInvalidDigest.with("Content-MD5", v)
		}
		b.md5Want = sum
	}
	if pl.sha256 != "" {
		b.sha, b.shaWant = sha256.New(), pl.sha256
	}
	for name, vals := range r.Header {
		alg, ok := strings.CutPrefix(strings.ToLower(name), "x-amz-checksum-")
		if !ok || checksumHeaders[alg] || len(vals) == 0 {
			continue
		}
		if _, known := checksums[alg]; !known {
			return nil, errNotImplemented.with("Header", name) // a checksum Kura cannot check is not taken unchecked
		}
		b.sumWant[alg] = vals[0]
		b.sums[alg] = checksums[alg].new()
	}
	if pl.chunked {
		b.chunked = newChunkedReader(r.Body, pl)
		b.r = b.chunked
		b.want = -1
		if v := r.Header.Get("X-Amz-Decoded-Content-Length"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, errMissingLength
			}
			b.want = n
		}
		for _, name := range strings.Split(r.Header.Get("X-Amz-Trailer"), ",") {
			alg, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(name)), "x-amz-checksum-")
			if _, known := checksums[alg]; ok && known {
				b.sums[alg] = checksums[alg].new()
			}
		}
	} else if r.ContentLength < 0 {
		return nil, errMissingLength
	}
	if b.want > maxObject {
		return nil, errEntityTooLarge
	}
	return b, nil
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	b.md5.Write(p[:n])
	if b.sha != nil {
		b.sha.Write(p[:n])
	}
	for _, h := range b.sums {
		h.Write(p[:n])
	}
	if b.n > maxObject {
		return n, errEntityTooLarge
	}
	return n, err
}

// finish checks the body, read to its end: its length, Content-MD5,
// x-amz-content-sha256 and checksums. It returns the hex MD5 (the ETag).
func (b *body) finish() (string, *Error) {
	if b.want >= 0 && b.n != b.want {
		return "", errIncompleteBody
	}
	sum := b.md5.Sum(nil)
	if b.md5Want != nil && string(sum) != string(b.md5Want) {
		return "", errBadDigest.with("ExpectedDigest", hex.EncodeToString(b.md5Want)).with("CalculatedDigest", base64.StdEncoding.EncodeToString(sum))
	}
	if b.sha != nil && hex.EncodeToString(b.sha.Sum(nil)) != b.shaWant {
		return "", errSHA256Mismatch.with("ClientComputedContentSHA256", b.shaWant).
			with("S3ComputedContentSHA256", hex.EncodeToString(b.sha.Sum(nil)))
	}
	if b.chunked != nil {
		for name, v := range b.chunked.trailers {
			if alg, ok := strings.CutPrefix(name, "x-amz-checksum-"); ok {
				b.sumWant[alg] = v
			}
		}
	}
	for alg, h := range b.sums {
		want, ok := b.sumWant[alg]
		if !ok {
			return "", errInvalidRequest("The x-amz-checksum-" + alg + " trailer was declared but not sent")
		}
		if base64.StdEncoding.EncodeToString(h.Sum(nil)) != want {
			return "", errChecksum(checksums[alg].name)
		}
	}
	return hex.EncodeToString(sum), nil
}

// checksumValues are the checks the body passed, as S3 echoes them
// (x-amz-checksum-ALG: base64).
func (b *body) checksumValues() map[string]string {
	if len(b.sums) == 0 {
		return nil
	}
	out := map[string]string{}
	for alg, h := range b.sums {
		out[alg] = base64.StdEncoding.EncodeToString(h.Sum(nil))
	}
	return out
}
