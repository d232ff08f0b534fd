package s3api

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/objstore"
)

func TestParseRoute(t *testing.T) {
	for _, c := range []struct {
		method, path, query string
		op                  op
		code                string
	}{
		{"GET", "/", "", opListBuckets, ""},
		{"PUT", "/", "", "", "MethodNotAllowed"},
		{"PUT", "/b", "", opCreateBucket, ""},
		{"GET", "/b", "list-type=2&prefix=x", opListObjectsV2, ""},
		{"GET", "/b", "", opListObjects, ""},
		{"GET", "/b", "location", opGetBucketLocation, ""},
		{"GET", "/b", "versioning", "", "NotImplemented"},
		{"GET", "/b", "uploads", "", "NotImplemented"},
		{"POST", "/b", "delete", opDeleteObjects, ""},
		{"POST", "/b", "", "", "MethodNotAllowed"},
		{"HEAD", "/b", "", opHeadBucket, ""},
		{"DELETE", "/b", "", opDeleteBucket, ""},
		{"PUT", "/b/k/e/y", "", opPutObject, ""},
		{"PUT", "/b/k", "partNumber=1&uploadId=u", opUploadPart, ""},
		{"PUT", "/b/k", "uploadId=u", "", "MethodNotAllowed"},
		{"PUT", "/b/k", "tagging", "", "NotImplemented"},
		{"GET", "/b/k", "uploadId=u", opListParts, ""},
		{"GET", "/b/k", "response-content-type=x", opGetObject, ""},
		{"HEAD", "/b/k", "", opHeadObject, ""},
		{"DELETE", "/b/k", "", opDeleteObject, ""},
		{"DELETE", "/b/k", "uploadId=u", opAbortMultipart, ""},
		{"POST", "/b/k", "uploads", opCreateMultipart, ""},
		{"POST", "/b/k", "uploadId=u", opCompleteMultipart, ""},
		{"PATCH", "/b/k", "", "", "MethodNotAllowed"},
		{"PUT", "/b/" + strings.Repeat("k", 1025), "", "", "KeyTooLongError"},
		{"GET", "/b", "a=%zz", "", "InvalidArgument"},
	} {
		rt, e := parseRoute(c.method, c.path, c.query)
		code := ""
		if e != nil {
			code = e.Code
		}
		if rt.op != c.op && c.code == "" || code != c.code {
			t.Errorf("%s %s?%s: %q %q, want %q %q", c.method, c.path, c.query, rt.op, code, c.op, c.code)
		}
	}
}

func TestClaims(t *testing.T) {
	for _, c := range []struct {
		method, url, authz string
		want               bool
	}{
		{"GET", "/", "AWS4-HMAC-SHA256 Credential=AK/20261201/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00", true},
		{"GET", "/", "AWS4-HMAC-SHA256 Credential=AK/20261201/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00", false},
		{"GET", "/", "", false}, // the health check
		{"GET", "/?X-Amz-Credential=AK%2F20261201%2Fus-east-1%2Fs3%2Faws4_request", "", true},
		{"POST", "/", "AWS4-HMAC-SHA256 Credential=AK/20261201/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00", false},
	} {
		r, _ := http.NewRequest(c.method, "http://kura"+c.url, nil)
		if c.authz != "" {
			r.Header.Set("Authorization", c.authz)
		}
		if got := Claims(r); got != c.want {
			t.Errorf("%s %s %q: %v", c.method, c.url, c.authz, got)
		}
	}
}

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		spec            string
		start, length   int64
		ok, satisfiable bool
	}{
		{"bytes=0-0", 0, 1, true, true},
		{"bytes=2-5", 2, 4, true, true},
		{"bytes=8-100", 8, 2, true, true},
		{"bytes=-3", 7, 3, true, true},
		{"bytes=-30", 0, 10, true, true},
		{"bytes=10-", 0, 0, true, false},
		{"bytes=-0", 0, 0, true, false},
		{"bytes=5-2", 0, 0, false, false},
		{"bytes=0-1,3-4", 0, 0, false, false},
		{"items=0-1", 0, 0, false, false},
	} {
		s, n, ok, sat := parseRange(c.spec, 10)
		if s != c.start || n != c.length || ok != c.ok || sat != c.satisfiable {
			t.Errorf("%s: %d %d %v %v", c.spec, s, n, ok, sat)
		}
	}
}

func TestList(t *testing.T) {
	keys := []listed{{"a/1", 1}, {"a/2", 1}, {"b", 1}, {"c/d/e", 1}}
	l := list(keys, "", "/", "", false, 2)
	if len(l.prefixes) != 1 || l.prefixes[0] != "a/" || len(l.contents) != 1 || l.contents[0].key != "b" || !l.truncated || l.next != "b" {
		t.Fatalf("first page: %+v", l)
	}
	l = list(keys, "", "/", "a/", true, 5)
	if len(l.prefixes) != 1 || l.prefixes[0] != "c/" || len(l.contents) != 1 || l.truncated {
		t.Fatalf("after the prefix a/: %+v", l)
	}
	if l := list(keys, "a/", "", "", false, 0); len(l.contents) != 0 || l.truncated {
		t.Fatalf("max-keys 0: %+v", l)
	}
}

// docs/compatibility.md's "S3 API" table marks supported exactly the
// operations this package routes.
func TestCompatibilityPage(t *testing.T) {
	doc, err := os.ReadFile("../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## S3 API\n")
	if !ok {
		t.Fatal("no S3 API section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[op]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.TrimSpace(cells[2]) != "supported" {
			continue
		}
		for _, name := range strings.Split(cells[1], ",") {
			listed[op(strings.TrimSpace(name))] = true
		}
	}
	for o := range actions {
		if !listed[o] {
			t.Errorf("%s is routed but not marked supported", o)
		}
		delete(listed, o)
	}
	for o := range listed {
		t.Errorf("%s is marked supported but not routed", o)
	}
}

// A --s3-dir folder that does not exist yet has no buckets, and the first
// CreateBucket makes it.
func TestMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "not-yet")
	h := New(Config{Store: objstore.Dir{Root: root}})
	for _, c := range []struct {
		method, target string
		status         int
	}{{"GET", "/", 200}, {"PUT", "/first", 200}, {"HEAD", "/first", 200}} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(c.method, "http://kura"+c.target, nil)
		if c.target == "/" {
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AK/20261201/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00")
		}
		h.ServeHTTP(w, r)
		if w.Code != c.status {
			t.Fatalf("%s %s: %d %s", c.method, c.target, w.Code, w.Body)
		}
	}
}
