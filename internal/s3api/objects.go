package s3api

import (
	"context"
	"crypto/md5"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kura-db/kura/internal/objstore"
)

var bg = context.Background()

func quote(etag string) string { return `"` + etag + `"` }

func (h *Handler) putObject(w http.ResponseWriter, r *http.Request, rt route, pl payload) *Error {
	if _, e := h.file(rt.bucket, rt.key); e != nil {
		return e
	}
	if e := h.checkWriteConditions(r, rt); e != nil {
		return e
	}
	b, e := openBody(r, pl)
	if e != nil {
		return e
	}
	m := metaFromRequest(r)
	o, e := h.writeObject(rt.bucket, rt.key, b, func() (string, *Error) {
		etag, e := b.finish()
		m.Checksums = b.checksumValues()
		return etag, e
	}, &m)
	if e != nil {
		return e
	}
	w.Header().Set("ETag", quote(o.meta.ETag))
	setChecksums(w, o.meta.Checksums)
	w.WriteHeader(http.StatusOK)
	return nil
}

// checkWriteConditions applies a PUT's If-None-Match: * (write only if
// there is no such object) and If-Match (only if there is one with this
// ETag), S3's conditional writes.
func (h *Handler) checkWriteConditions(r *http.Request, rt route) *Error {
	inm, im := r.Header.Get("If-None-Match"), r.Header.Get("If-Match")
	if inm == "" && im == "" {
		return nil
	}
	o, e := h.lookup(rt.bucket, rt.key)
	if e != nil && e.Code != "NoSuchKey" {
		return e
	}
	switch {
	case inm != "" && inm != "*":
		return errNotImplemented.with("Header", "If-None-Match")
	case inm == "*" && o != nil:
		return errPrecondition.with("Condition", "If-None-Match")
	case im != "" && o == nil:
		return errNoSuchKey(rt.key)
	case im != "" && !etagMatches(im, o.meta.ETag):
		return errPrecondition.with("Condition", "If-Match")
	}
	return nil
}

// writeObject streams src into bucket/key; check, called once src is read
// to its end, says whether the object may exist and its ETag. The object
// appears whole or not at all (objstore.Dir writes a temporary file and
// renames it), with its sidecar m.
func (h *Handler) writeObject(bucket, key string, src io.Reader, check func() (string, *Error), m *meta) (*object, *Error) {
	wr, err := h.store.Create(bg, bucket, key)
	if err != nil {
		return nil, h.storeError(bucket, key, err)
	}
	if _, err := io.Copy(wr, src); err != nil {
		wr.Abort()
		return nil, asError(err, errIncompleteBody)
	}
	etag, e := check()
	if e != nil {
		wr.Abort()
		return nil, e
	}
	if err := wr.Close(); err != nil {
		return nil, h.storeError(bucket, key, err)
	}
	m.ETag = etag
	o := &object{meta: *m}
	o.path, _ = h.store.File(bucket, key)
	h.saveMeta(bucket, key, o)
	return o, nil
}

// storeError is S3's answer to what the folder store refused.
func (h *Handler) storeError(bucket, key string, err error) *Error {
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket):
		return errNoSuchBucket(bucket)
	case errors.Is(err, objstore.ErrInvalidKey), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR),
		errors.Is(err, syscall.EEXIST), errors.Is(err, syscall.ENOTEMPTY):
		return errUnstorable(key)
	}
	return h.internal(err)
}

func setChecksums(w http.ResponseWriter, sums map[string]string) {
	for alg, v := range sums {
		w.Header().Set("X-Amz-Checksum-"+alg, v)
	}
}

// getObject answers GetObject and HeadObject: conditions, then Range.
func (h *Handler) getObject(w http.ResponseWriter, r *http.Request, rt route) *Error {
	o, e := h.lookup(rt.bucket, rt.key)
	if e != nil {
		return e
	}
	hd := w.Header()
	hd.Set("ETag", quote(o.meta.ETag))
	hd.Set("Last-Modified", o.mod.UTC().Format(http.TimeFormat))
	if status := conditions(r.Header, "", o); status != 0 {
		if status == http.StatusNotModified {
			w.WriteHeader(status)
			return nil
		}
		return errPrecondition.with("Condition", "If-Match")
	}
	hd.Set("Accept-Ranges", "bytes")
	hd.Set("Content-Type", defaultContentType)
	for name, v := range o.meta.Headers {
		hd.Set(name, v)
	}
	for name, v := range o.meta.User {
		hd["X-Amz-Meta-"+name] = []string{v}
	}
	for _, name := range contentHeaders {
		if v := rt.query.Get("response-" + strings.ToLower(name)); v != "" {
			hd.Set(name, v)
		}
	}
	start, length, status := int64(0), o.size, http.StatusOK
	if spec := r.Header.Get("Range"); spec != "" {
		s, n, ok, satisfiable := parseRange(spec, o.size)
		if ok && !satisfiable {
			return errInvalidRange(spec, o.size)
		}
		if ok {
			start, length, status = s, n, http.StatusPartialContent
			hd.Set("Content-Range", "bytes "+strconv.FormatInt(s, 10)+"-"+strconv.FormatInt(s+n-1, 10)+"/"+strconv.FormatInt(o.size, 10))
		}
	}
	if status == http.StatusOK && strings.EqualFold(r.Header.Get("X-Amz-Checksum-Mode"), "ENABLED") {
		setChecksums(w, o.meta.Checksums)
	}
	hd.Set("Content-Length", strconv.FormatInt(length, 10))
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	f, err := os.Open(o.path)
	if err != nil {
		return errNoSuchKey(rt.key)
	}
	defer f.Close()
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return h.internal(err)
	}
	w.WriteHeader(status)
	if _, err := io.CopyN(w, f, length); err != nil {
		h.log.Debug("s3: sending an object", "bucket", rt.bucket, "key", rt.key, "err", err)
	}
	return nil
}

// conditions applies the If-* headers of a read (prefix "" for GET and
// HEAD, "X-Amz-Copy-Source-" for a copy's source) to o: 0 to go on, 412
// or 304. If-Match decides over If-Unmodified-Since, and If-None-Match over
// If-Modified-Since (the Amazon S3 API Reference, GetObject).
func conditions(hd http.Header, prefix string, o *object) int {
	mod := o.mod.Truncate(time.Second)
	if im := hd.Get(prefix + "If-Match"); im != "" {
		if !etagMatches(im, o.meta.ETag) {
			return http.StatusPreconditionFailed
		}
	} else if t, err := http.ParseTime(hd.Get(prefix + "If-Unmodified-Since")); err == nil && mod.After(t) {
		return http.StatusPreconditionFailed
	}
	if inm := hd.Get(prefix + "If-None-Match"); inm != "" {
		if etagMatches(inm, o.meta.ETag) {
			return http.StatusNotModified
		}
	} else if t, err := http.ParseTime(hd.Get(prefix + "If-Modified-Since")); err == nil && !mod.After(t) {
		return http.StatusNotModified
	}
	return 0
}

// etagMatches reports whether a list of entity tags (or "*") names etag.
func etagMatches(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || strings.Trim(t, `"`) == etag {
			return true
		}
	}
	return false
}

// parseRange reads a Range header of one byte range (bytes=A-B, bytes=A-,
// bytes=-N): ok false for one S3 ignores (malformed, several ranges: the
// whole object is sent), satisfiable false for a range past the end.
func parseRange(spec string, size int64) (start, length int64, ok, satisfiable bool) {
	r, found := strings.CutPrefix(strings.TrimSpace(spec), "bytes=")
	if !found || strings.Contains(r, ",") {
		return 0, 0, false, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(r), "-")
	if !found {
		return 0, 0, false, false
	}
	if a == "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, false, false
		}
		if n == 0 || size == 0 {
			return 0, 0, true, false
		}
		n = min(n, size)
		return size - n, n, true, true
	}
	s, err := strconv.ParseInt(a, 10, 64)
	if err != nil || s < 0 {
		return 0, 0, false, false
	}
	end := size - 1
	if b != "" {
		e, err := strconv.ParseInt(b, 10, 64)
		if err != nil || e < s {
			return 0, 0, false, false
		}
		end = min(e, size-1)
	}
	if s >= size {
		return 0, 0, true, false
	}
	return s, end - s + 1, true, true
}

func (h *Handler) deleteObject(w http.ResponseWriter, rt route) *Error {
	if _, e := h.bucketDir(rt.bucket); e != nil {
		return e
	}
	if err := h.removeObject(rt.bucket, rt.key); err != nil {
		return h.internal(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// copyObject copies the object x-amz-copy-source names, with its
// metadata (x-amz-metadata-directive COPY) or the request's (REPLACE).
func (h *Handler) copyObject(w http.ResponseWriter, r *http.Request, rt route) *Error {
	if _, e := h.file(rt.bucket, rt.key); e != nil {
		return e
	}
	src, srcBucket, srcKey, e := h.copySource(r)
	if e != nil {
		return e
	}
	m := meta{Headers: src.meta.Headers, User: src.meta.User}
	switch d := r.Header.Get("X-Amz-Metadata-Directive"); d {
	case "", "COPY":
		if srcBucket == rt.bucket && srcKey == rt.key {
			return errCopyToSelf
		}
	case "REPLACE":
		m = metaFromRequest(r)
	default:
		return errInvalidArgument("Unknown metadata directive.", "x-amz-metadata-directive", d)
	}
	f, err := os.Open(src.path)
	if err != nil {
		return errNoSuchKey(srcKey)
	}
	defer f.Close()
	b := &body{r: f, want: src.size, md5: md5.New()}
	o, e := h.writeObject(rt.bucket, rt.key, b, b.finish, &m)
	if e != nil {
		return e
	}
	h.writeXML(w, http.StatusOK, struct {
		XMLName      xml.Name `xml:"CopyObjectResult"`
		NS           string   `xml:"xmlns,attr"`
		LastModified string
		ETag         string
	}{NS: xmlNS, LastModified: o.mod.UTC().Format(isoFormat), ETag: quote(o.meta.ETag)})
	return nil
}

// copySource is the object x-amz-copy-source names, if the
// x-amz-copy-source-if-* conditions hold.
func (h *Handler) copySource(r *http.Request) (*object, string, string, *Error) {
	bucket, key, e := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if e != nil {
		return nil, "", "", e
	}
	src, e := h.lookup(bucket, key)
	if e != nil {
		return nil, "", "", e
	}
	if conditions(r.Header, "X-Amz-Copy-Source-", src) != 0 {
		return nil, "", "", errPrecondition.with("Condition", "x-amz-copy-source-If-Match")
	}
	return src, bucket, key, nil
}

// parseCopySource reads x-amz-copy-source: [/]BUCKET/KEY, URL-encoded,
// with an optional ?versionId (only "null": the folder store keeps no
// versions).
func parseCopySource(v string) (string, string, *Error) {
	path, version, _ := strings.Cut(v, "?")
	dec, err := url.PathUnescape(path)
	bucket, key, ok := strings.Cut(strings.TrimPrefix(dec, "/"), "/")
	if err != nil || !ok || bucket == "" || key == "" {
		return "", "", errInvalidArgument("Copy Source must mention the source bucket and key: sourcebucket/sourcekey", "x-amz-copy-source", v)
	}
	if version != "" && version != "versionId=null" {
		return "", "", errInvalidArgument("Invalid version id specified", "x-amz-copy-source", v)
	}
	return bucket, key, nil
}

// deleteObjects deletes up to 1,000 keys (S3 requires Content-MD5 or an
// x-amz-checksum-* header with it).
func (h *Handler) deleteObjects(w http.ResponseWriter, r *http.Request, bucket string, pl payload, caller *caller) *Error {
	if r.Header.Get("Content-Md5") == "" && !hasChecksumHeader(r) {
		return errInvalidRequest("Missing required header for this request: Content-MD5")
	}
	var req struct {
		Quiet   bool
		Objects []struct {
			Key       string
			VersionID string `xml:"VersionId"`
		} `xml:"Object"`
	}
	if e := decodeXML(r, pl, 2<<20, &req); e != nil {
		return e
	}
	if len(req.Objects) == 0 || len(req.Objects) > 1000 {
		return errMalformedXML
	}
	if _, e := h.bucketDir(bucket); e != nil {
		return e
	}
	type deleted struct{ Key string }
	type failed struct{ Key, Code, Message string }
	doc := struct {
		XMLName xml.Name  `xml:"DeleteResult"`
		NS      string    `xml:"xmlns,attr"`
		Deleted []deleted `xml:"Deleted"`
		Errors  []failed  `xml:"Error"`
	}{NS: xmlNS}
	for _, o := range req.Objects {
		if caller != nil && !caller.allowed("s3:DeleteObject", objectARN(bucket, o.Key)) {
			doc.Errors = append(doc.Errors, failed{o.Key, errAccessDenied.Code, errAccessDenied.Message})
			continue
		}
		if err := h.removeObject(bucket, o.Key); err != nil {
			e := h.internal(err)
			doc.Errors = append(doc.Errors, failed{o.Key, e.Code, e.Message})
		} else if !req.Quiet {
			doc.Deleted = append(doc.Deleted, deleted{o.Key})
		}
	}
	h.writeXML(w, http.StatusOK, doc)
	return nil
}

func hasChecksumHeader(r *http.Request) bool {
	for alg := range checksums {
		if r.Header.Get("X-Amz-Checksum-"+alg) != "" {
			return true
		}
	}
	return false
}
