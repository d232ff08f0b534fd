package s3api

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/iam"
	"github.com/kura-db/kura/internal/objstore"
)

// Config configures a Handler.
type Config struct {
	// Store is the folder store (--s3-dir) the API serves.
	Store objstore.Dir
	// Auth, when set, checks every request's SigV4 signature for service
	// s3 (the DynamoDB server's Verifier: the same credentials, region
	// and clock).
	Auth *auth.Verifier
	// IAM, when set (--iam-file), authorizes every authenticated request:
	// the S3 action it is (s3:GetObject ...) on its bucket or object ARN
	// must be allowed to the access key's principal (authorize.go).
	IAM *iam.Authorizer
	// Region is the region buckets are in (GetBucketLocation,
	// x-amz-bucket-region, CreateBucket's LocationConstraint).
	Region string
	// Logger receives internal errors; nil discards.
	Logger *slog.Logger
	// LogRequests logs every request at info level (--log-requests): the
	// operation, status, error code, bucket, key, duration, client address
	// and access key.
	LogRequests bool
}

// Handler serves the S3 REST API, path-style, over a folder store.
type Handler struct {
	store  objstore.Dir
	auth   *auth.Verifier
	iam    *iam.Authorizer
	region string
	log    *slog.Logger
	logReq bool
}

// New returns a Handler for cfg.
func New(cfg Config) *Handler {
	h := &Handler{store: cfg.Store, auth: cfg.Auth, iam: cfg.IAM, region: cfg.Region, log: cfg.Logger, logReq: cfg.LogRequests}
	if h.region == "" {
		h.region = "us-east-1"
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h
}

// xmlNS is the namespace of S3's response documents.
const xmlNS = "http://s3.amazonaws.com/doc/2006-03-01/"

// ServeHTTP answers one S3 request: the operation is read from the method,
// path and query, then the signature checked (S3 authenticates before it
// looks at a bucket), then the operation run.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.logReq {
		lw := &loggedWriter{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		defer func() { h.logRequest(r, lw, time.Since(start)) }()
		w = lw
	}
	id := requestID()
	w.Header().Set("X-Amz-Request-Id", id)
	w.Header().Set("X-Amz-Id-2", id)
	w.Header().Set("Server", "Kura")
	if r.Body != nil {
		r.Body = &idleBody{ReadCloser: r.Body, rc: http.NewResponseController(w)}
	}
	rt, e := parseRoute(r.Method, r.URL.Path, r.URL.RawQuery)
	if r.Header.Get("X-Amz-Copy-Source") != "" {
		switch rt.op {
		case opPutObject:
			rt.op = opCopyObject
		case opUploadPart:
			rt.op = opUploadPartCopy
		}
	}
	pl, ae := h.authenticate(r)
	if ae != nil {
		e = ae // a signature problem is answered before the route's
	}
	if lw, ok := w.(*loggedWriter); ok {
		lw.op, lw.bucket, lw.key, lw.accessKey = rt.op, rt.bucket, rt.key, pl.accessKey
	}
	if e != nil {
		h.fail(w, r, e, rt)
		return
	}
	if e := h.authorize(r, &rt, pl.accessKey); e != nil {
		h.fail(w, r, e, rt)
		return
	}
	if e := h.run(w, r, rt, pl); e != nil {
		h.fail(w, r, e, rt)
	}
}

// bodyIdle is how long a request body may send nothing before its read
// fails (and the object being written from it is discarded): a stalled
// upload does not hold a connection for ever.
const bodyIdle = time.Minute

// idleBody moves the connection's read deadline on before each read of
// the body.
type idleBody struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *idleBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(bodyIdle)) // not every ResponseWriter can (a test's recorder)
	return b.ReadCloser.Read(p)
}

// run dispatches to the operation.
func (h *Handler) run(w http.ResponseWriter, r *http.Request, rt route, pl payload) *Error {
	switch rt.op {
	case opListBuckets:
		return h.listBuckets(w)
	case opCreateBucket:
		return h.createBucket(w, r, rt.bucket, pl)
	case opDeleteBucket:
		return h.deleteBucket(w, rt.bucket)
	case opHeadBucket:
		return h.headBucket(w, rt.bucket)
	case opGetBucketLocation:
		return h.getBucketLocation(w, rt.bucket)
	case opListObjects, opListObjectsV2:
		return h.listObjects(w, rt)
	case opDeleteObjects:
		return h.deleteObjects(w, r, rt.bucket, pl, rt.caller)
	case opPutObject:
		return h.putObject(w, r, rt, pl)
	case opCopyObject:
		return h.copyObject(w, r, rt)
	case opGetObject, opHeadObject:
		return h.getObject(w, r, rt)
	case opDeleteObject:
		return h.deleteObject(w, rt)
	case opCreateMultipart:
		return h.createMultipart(w, r, rt)
	case opUploadPart:
		return h.uploadPart(w, r, rt, pl)
	case opUploadPartCopy:
		return h.uploadPartCopy(w, r, rt)
	case opCompleteMultipart:
		return h.completeMultipart(w, r, rt, pl)
	case opAbortMultipart:
		return h.abortMultipart(w, rt)
	case opListParts:
		return h.listParts(w, rt)
	}
	return errNotImplemented
}

// loggedWriter notes what the request log says of a request.
type loggedWriter struct {
	http.ResponseWriter
	status                 int
	code                   string // the S3 error code answered
	op                     op
	bucket, key, accessKey string
}

func (w *loggedWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection (idleBody).
func (w *loggedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (h *Handler) logRequest(r *http.Request, w *loggedWriter, d time.Duration) {
	attrs := []any{"api", "s3", "operation", string(w.op), "status", w.status, "duration", d, "remote", r.RemoteAddr}
	if w.code != "" {
		attrs = append(attrs, "error", w.code)
	}
	if w.bucket != "" {
		attrs = append(attrs, "bucket", w.bucket)
	}
	if w.key != "" {
		attrs = append(attrs, "objectKey", w.key)
	}
	if w.accessKey != "" {
		attrs = append(attrs, "key", w.accessKey)
	}
	h.log.Info("request", attrs...)
}

// fail answers an error: S3's XML document, or only the status for a HEAD
// (S3 sends no body with a HEAD's error).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, e *Error, rt route) {
	if r.Body != nil {
		// Drop a little of an unread body so the client sees the answer
		// (net/http closes the connection after a larger one).
		_, _ = io.CopyN(io.Discard, r.Body, 64<<10)
	}
	if lw, ok := w.(*loggedWriter); ok {
		lw.code = e.Code
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(e.Status)
		return
	}
	doc := struct {
		XMLName   xml.Name `xml:"Error"`
		Code      string
		Message   string
		Extra     []xmlElem
		Resource  string `xml:",omitempty"`
		RequestID string `xml:"RequestId"`
	}{Code: e.Code, Message: e.Message, Extra: e.Extra, RequestID: w.Header().Get("X-Amz-Request-Id")}
	if rt.bucket != "" {
		doc.Resource = "/" + rt.bucket
		if rt.key != "" {
			doc.Resource += "/" + rt.key
		}
	}
	h.writeXML(w, e.Status, doc)
}

// writeXML answers a status and an XML document.
func (h *Handler) writeXML(w http.ResponseWriter, status int, doc any) {
	b, err := xml.Marshal(doc)
	if err != nil {
		h.log.Error("s3: encoding an answer", "err", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	io.WriteString(w, xml.Header)
	w.Write(b)
}

// internal logs an unexpected error and is S3's InternalError, or
// AccessDenied for a file Kura may not read or write.
func (h *Handler) internal(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, fs.ErrPermission), errors.Is(err, objstore.ErrAccessDenied):
		return errAccessDenied
	}
	h.log.Error("s3: serving a request", "err", err)
	return errInternal
}

// requestID is a fresh request ID (16 hex digits, as S3's are).
func requestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// decodeXML reads a small XML request document (at most limit bytes),
// checked as any body is (Content-MD5, x-amz-content-sha256, checksums).
func decodeXML(r *http.Request, pl payload, limit int64, v any) *Error {
	b, e := openBody(r, pl)
	if e != nil {
		return e
	}
	doc, err := io.ReadAll(io.LimitReader(b, limit+1))
	if err != nil {
		return asError(err, errIncompleteBody)
	}
	if int64(len(doc)) > limit {
		return errMalformedXML
	}
	if _, e := b.finish(); e != nil {
		return e
	}
	if err := xml.Unmarshal(doc, v); err != nil {
		return errMalformedXML
	}
	return nil
}

// asError is err when it is an S3 error (a chunk's signature ...), else
// def.
func asError(err error, def *Error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return def
}
