package s3api

import (
	"net/http"
	"net/url"
	"strings"
)

// op names an S3 operation.
type op string

const (
	opListBuckets       op = "ListBuckets"
	opCreateBucket      op = "CreateBucket"
	opDeleteBucket      op = "DeleteBucket"
	opHeadBucket        op = "HeadBucket"
	opGetBucketLocation op = "GetBucketLocation"
	opListObjects       op = "ListObjects"
	opListObjectsV2     op = "ListObjectsV2"
	opDeleteObjects     op = "DeleteObjects"
	opPutObject         op = "PutObject"
	opCopyObject        op = "CopyObject"
	opGetObject         op = "GetObject"
	opHeadObject        op = "HeadObject"
	opDeleteObject      op = "DeleteObject"
	opCreateMultipart   op = "CreateMultipartUpload"
	opUploadPart        op = "UploadPart"
	opUploadPartCopy    op = "UploadPartCopy"
	opCompleteMultipart op = "CompleteMultipartUpload"
	opAbortMultipart    op = "AbortMultipartUpload"
	opListParts         op = "ListParts"
)

// route is what a request asks for: the operation, its bucket and key
// (decoded), and its query.
type route struct {
	op     op
	bucket string
	key    string
	query  url.Values
	// caller decides, per key, what DeleteObjects may delete (nil:
	// authorization is off; authorize.go).
	caller *caller
}

// subresources are the query parameters that name a sub-resource of a
// bucket or object (?acl, ?tagging ...) Kura does not serve: a request
// with one is refused NotImplemented rather than taken for a plain
// GET or PUT of the object, which it is not.
var subresources = []string{"accelerate", "acl", "analytics", "attributes", "cors", "encryption", "intelligent-tiering",
	"inventory", "legal-hold", "lifecycle", "logging", "metadataConfiguration", "metrics", "notification", "object-lock",
	"ownershipControls", "policy", "policyStatus", "publicAccessBlock", "replication", "requestPayment", "restore",
	"retention", "select", "session", "tagging", "torrent", "versioning", "versions", "website"}

// parseRoute decides the operation of a path-style request: the first
// path segment is the bucket, the rest the key.
func parseRoute(method, path, rawQuery string) (route, *Error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return route{}, errInvalidArgument("The query string is not valid", "query", rawQuery)
	}
	path = strings.TrimPrefix(path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	rt := route{bucket: bucket, key: key, query: q}
	for _, s := range subresources {
		if q.Has(s) {
			return rt, errNotImplemented
		}
	}
	switch {
	case bucket == "":
		if method == http.MethodGet {
			rt.op = opListBuckets
			return rt, nil
		}
		return rt, errMethodNotAllowed
	case key == "":
		return bucketRoute(method, rt)
	}
	if len(key) > 1024 {
		return rt, errKeyTooLong
	}
	return objectRoute(method, rt)
}

func bucketRoute(method string, rt route) (route, *Error) {
	q := rt.query
	switch method {
	case http.MethodGet:
		switch {
		case q.Has("location"):
			rt.op = opGetBucketLocation
		case q.Has("uploads"):
			return rt, errNotImplemented // ListMultipartUploads
		case q.Get("list-type") == "2":
			rt.op = opListObjectsV2
		default:
			rt.op = opListObjects
		}
	case http.MethodHead:
		rt.op = opHeadBucket
	case http.MethodPut:
		rt.op = opCreateBucket
	case http.MethodDelete:
		rt.op = opDeleteBucket
	case http.MethodPost:
		if !q.Has("delete") {
			return rt, errMethodNotAllowed
		}
		rt.op = opDeleteObjects
	default:
		return rt, errMethodNotAllowed
	}
	return rt, nil
}

func objectRoute(method string, rt route) (route, *Error) {
	q := rt.query
	upload := q.Has("uploadId")
	switch method {
	case http.MethodGet:
		rt.op = pick(upload, opListParts, opGetObject)
	case http.MethodHead:
		rt.op = opHeadObject
	case http.MethodPut:
		switch {
		case upload && q.Has("partNumber"):
			rt.op = opUploadPart
		case upload:
			return rt, errMethodNotAllowed
		default:
			rt.op = opPutObject
		}
	case http.MethodDelete:
		rt.op = pick(upload, opAbortMultipart, opDeleteObject)
	case http.MethodPost:
		switch {
		case q.Has("uploads"):
			rt.op = opCreateMultipart
		case upload:
			rt.op = opCompleteMultipart
		default:
			return rt, errMethodNotAllowed
		}
	default:
		return rt, errMethodNotAllowed
	}
	return rt, nil
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// Claims reports whether a request to the root path ("/") is S3's
// ListBuckets rather than DynamoDB's health check: a GET signed (in its
// Authorization header or a presigned URL's X-Amz-Credential) for service
// s3. Every other path is S3's once the DynamoDB server has taken its own
// (the console, /admin/, the checkpoint path).
func Claims(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	scope := credentialOf(r.Header.Get("Authorization"))
	if scope == "" {
		scope = r.URL.Query().Get("X-Amz-Credential")
	}
	parts := strings.Split(scope, "/")
	return len(parts) == 5 && parts[3] == "s3"
}

// credentialOf is the Credential= part of a SigV4 Authorization header.
func credentialOf(authorization string) string {
	_, rest, ok := strings.Cut(authorization, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ := strings.Cut(rest, ",")
	return strings.TrimSpace(cred)
}
