package s3api

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/objstore"
)

// FuzzServe sends requests of any method, path, query, headers and body to
// a Handler over a folder with one bucket and one object: it must not
// panic, must answer a status S3 uses, must answer every error (but a
// HEAD's) as an S3 error document, and must never write outside its
// folder.
func FuzzServe(f *testing.F) {
	for _, seed := range []struct{ method, target, headers, body string }{
		{"GET", "/bkt/k", "", ""},
		{"GET", "/bkt?list-type=2&prefix=a&delimiter=/&max-keys=1&continuation-token=S2s", "", ""},
		{"GET", "/bkt?marker=k&encoding-type=url", "", ""},
		{"PUT", "/bkt/new", "Content-Md5: 1B2M2Y8AsgTpgAmY7PhCfg==", ""},
		{"PUT", "/bkt/copy", "X-Amz-Copy-Source: /bkt/k\nX-Amz-Metadata-Directive: REPLACE", ""},
		{"PUT", "/bkt/chunked", "X-Amz-Content-Sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER\nX-Amz-Trailer: x-amz-checksum-crc32",
			"3\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n"},
		{"POST", "/bkt?delete", "X-Amz-Checksum-Crc32: AAAAAA==", "<Delete><Object><Key>k</Key></Object></Delete>"},
		{"POST", "/bkt/k?uploads", "", ""},
		{"POST", "/bkt/k?uploadId=00000000000000000000000000000000", "", "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>"},
		{"GET", "/bkt/k", "Range: bytes=-0", ""},
		{"PUT", "/bkt/../../etc/x", "", "x"},
		{"PUT", "/nb", "", "<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>"},
		{"DELETE", "/bkt/k?uploadId=zz", "", ""},
	} {
		f.Add(seed.method, seed.target, seed.headers, seed.body)
	}
	// One folder for every input (a fresh one each would make the target
	// slow): the bucket and object are put back before each.
	root := f.TempDir()
	store := filepath.Join(root, "store")
	h := New(Config{Store: objstore.Dir{Root: store}})
	f.Fuzz(func(t *testing.T, method, target, headers, body string) {
		if !strings.HasPrefix(target, "/") {
			return
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		os.MkdirAll(filepath.Join(store, "bkt"), 0o755)
		os.WriteFile(filepath.Join(store, "bkt", "k"), []byte("0123456789"), 0o644)
		r := httptest.NewRequest(http.MethodGet, "http://kura/", strings.NewReader(body))
		r.Method, r.URL, r.RequestURI = method, u, target
		r.ContentLength = int64(len(body))
		for _, line := range strings.Split(headers, "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && name != "" {
				r.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code < 200 || w.Code > 599 {
			t.Fatalf("status %d", w.Code)
		}
		if w.Code >= 400 && method != http.MethodHead {
			var doc struct {
				XMLName xml.Name `xml:"Error"`
				Code    string
			}
			if err := xml.NewDecoder(bytes.NewReader(w.Body.Bytes())).Decode(&doc); err != nil || doc.Code == "" {
				t.Fatalf("status %d without an error document: %v %q", w.Code, err, w.Body)
			}
		}
		entries, _ := os.ReadDir(root)
		if len(entries) != 1 {
			t.Fatalf("wrote beside the folder: %v", entries)
		}
	})
}

// FuzzChunked decodes any body as aws-chunked (unsigned, with and without
// trailers): never a panic, never more bytes than were sent.
func FuzzChunked(f *testing.F) {
	f.Add([]byte("3\r\nabc\r\n0\r\n\r\n"), false)
	f.Add([]byte("3;chunk-signature=00\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n"), true)
	f.Add([]byte("ffffffffffffffff\r\n"), false)
	f.Fuzz(func(t *testing.T, b []byte, trailer bool) {
		r := newChunkedReader(bytes.NewReader(b), payload{chunked: true, trailer: trailer})
		out, _ := io.ReadAll(io.LimitReader(r, int64(len(b))+1))
		if len(out) > len(b) {
			t.Fatalf("decoded %d bytes from %d", len(out), len(b))
		}
	})
}
