package s3api

import (
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/kura-db/kura/internal/iam"
)

// Authorization (--iam-file): an authenticated request's access key acts
// as its IAM principal (internal/iam, the policies DynamoDB's requests
// are held to), and each operation needs the S3 action the Amazon S3 User
// Guide's "Actions, resources, and condition keys for Amazon S3" names for
// it, on the bucket's ARN (arn:aws:s3:::BUCKET) or the object's
// (arn:aws:s3:::BUCKET/KEY). A refusal is S3's AccessDenied.

// caller is an authorized request's principal and its condition keys.
type caller struct {
	iam *iam.Authorizer
	p   *iam.Principal
	ctx iam.MapContext
}

// allowed reports whether the caller may do action on resource.
func (c *caller) allowed(action, resource string) bool {
	return c.iam.Decide(&iam.Request{Principal: c.p, Action: action, Resource: resource, Context: c.ctx}, nil).Allowed
}

func bucketARN(bucket string) string      { return "arn:aws:s3:::" + bucket }
func objectARN(bucket, key string) string { return "arn:aws:s3:::" + bucket + "/" + key }

// actions are the IAM actions of an operation on its own bucket or object.
var actions = map[op]string{
	opListBuckets:       "s3:ListAllMyBuckets",
	opCreateBucket:      "s3:CreateBucket",
	opDeleteBucket:      "s3:DeleteBucket",
	opHeadBucket:        "s3:ListBucket",
	opGetBucketLocation: "s3:GetBucketLocation",
	opListObjects:       "s3:ListBucket",
	opListObjectsV2:     "s3:ListBucket",
	opDeleteObjects:     "", // each key's s3:DeleteObject, in deleteObjects
	opPutObject:         "s3:PutObject",
	opCopyObject:        "s3:PutObject", // and s3:GetObject on the source, in authorize
	opGetObject:         "s3:GetObject",
	opHeadObject:        "s3:GetObject",
	opDeleteObject:      "s3:DeleteObject",
	opCreateMultipart:   "s3:PutObject",
	opUploadPart:        "s3:PutObject",
	opUploadPartCopy:    "s3:PutObject", // and s3:GetObject on the source
	opCompleteMultipart: "s3:PutObject",
	opAbortMultipart:    "s3:AbortMultipartUpload",
	opListParts:         "s3:ListMultipartUploadParts",
}

// authorize checks the request's actions, when authorization is on, and
// leaves the caller in rt for the checks an operation makes itself.
func (h *Handler) authorize(r *http.Request, rt *route, accessKey string) *Error {
	if h.iam == nil || h.auth == nil {
		return nil
	}
	p, err := h.iam.Principal(accessKey)
	if err != nil {
		return errAccessDenied
	}
	now := h.auth.Now().UTC()
	c := &caller{iam: h.iam, p: p, ctx: iam.MapContext{
		"aws:currenttime":     {now.Format(time.RFC3339)},
		"aws:epochtime":       {strconv.FormatInt(now.Unix(), 10)},
		"aws:securetransport": {strconv.FormatBool(r.TLS != nil)},
		"aws:requestedregion": {h.region},
	}}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		c.ctx["aws:sourceip"] = []string{host}
	}
	rt.caller = c
	resource := "*"
	switch {
	case rt.key != "":
		resource = objectARN(rt.bucket, rt.key)
	case rt.bucket != "":
		resource = bucketARN(rt.bucket)
	}
	if a := actions[rt.op]; a != "" && !c.allowed(a, resource) {
		return errAccessDenied
	}
	if rt.op == opCopyObject || rt.op == opUploadPartCopy {
		if b, k, e := parseCopySource(r.Header.Get("X-Amz-Copy-Source")); e == nil && !c.allowed("s3:GetObject", objectARN(b, k)) {
			return errAccessDenied
		}
	}
	return nil
}
