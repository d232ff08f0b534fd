// Package s3api serves the folder store (--s3-dir, objstore.Dir) through
// the Amazon S3 REST API on Kura's own endpoint, path-style
// (http://HOST:PORT/BUCKET/KEY), so that the AWS CLI (aws s3 cp/ls/sync/
// rm), boto3 (its transfer manager included) and the SDKs' S3 clients can
// put the objects an ImportTable or StartBulkPutItems reads and fetch the
// files an export wrote: the same files, read and written through the same
// objstore.Dir.
//
// It owns the S3 protocol: telling the operation from the method, path and
// query (route.go); S3's flavour of SigV4 with the DynamoDB server's
// credentials (sigv4.go: header authentication with a signed or
// UNSIGNED-PAYLOAD body, aws-chunked bodies with signed chunks and
// trailers, chunked.go, and presigned URLs); reading bodies as streams,
// checking Content-MD5, x-amz-content-sha256 and x-amz-checksum-* values
// (body.go); the operations (buckets.go, objects.go, list.go,
// multipart.go); and S3's XML errors in S3's words (errors.go).
//
// State: nothing in memory. On disk, beside the buckets' folders, in
// Root/.kura-s3/ (no bucket can have that name): each object's sidecar
// (ETag, content headers, x-amz-meta-*, checksums; meta.go), buckets'
// creation times, and multipart uploads in progress (their parts,
// multipart.go). Nothing is rebuilt at start: a missing or stale sidecar
// (a file an export wrote, or one changed by hand) is recomputed from the
// file when first read, and uploads in progress survive a restart.
//
// api routes to it (Options.S3): every path but "/" and the DynamoDB
// server's own (console, /admin/, checkpoint), and a GET of "/" signed for
// service s3 (Claims).
package s3api
