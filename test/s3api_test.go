package test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/objstore/objstoretest"
)

// The S3 REST API Kura serves over its folder store (--s3-dir) on its own
// endpoint (internal/s3api), driven by the AWS SDK for Go v2's S3 client.

// s3Kura starts Kura with a fresh --s3-dir and returns it and the folder.
func s3Kura(t *testing.T, args ...string) (*kura, string) {
	t.Helper()
	dir := t.TempDir()
	return startKura(t, append([]string{"--in-memory", "--s3-dir", dir}, args...)...), dir
}

// s3Of is an S3 client of k's endpoint, path-style, retries off.
func s3Of(k *kura, key, secret string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(k.endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
		Retryer:      aws.NopRetryer{},
	})
}

// wantS3Error checks err is S3's error code with message msg ("" for a
// HEAD's error, which has no body: the code is then the SDK's from the
// status).
func wantS3Error(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s, got %v", code, err)
	}
	if ae.ErrorCode() != code || msg != "" && ae.ErrorMessage() != msg {
		t.Fatalf("want %s %q, got %s %q", code, msg, ae.ErrorCode(), ae.ErrorMessage())
	}
}

func mkBucket(t *testing.T, c *s3.Client) string {
	t.Helper()
	name := objstoretest.BucketName()
	if _, err := c.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	return name
}

func putS3(t *testing.T, c *s3.Client, bucket, key, body string) *s3.PutObjectOutput {
	t.Helper()
	out, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)})
	if err != nil {
		t.Fatalf("PutObject %s: %v", key, err)
	}
	return out
}

func getS3(t *testing.T, c *s3.Client, in *s3.GetObjectInput) (string, *s3.GetObjectOutput) {
	t.Helper()
	out, err := c.GetObject(bg, in)
	if err != nil {
		t.Fatalf("GetObject %s: %v", aws.ToString(in.Key), err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), out
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Kura's own S3 store (objstore.S3, as --s3-endpoint uses it) passes the
// objstore conformance suite against Kura's S3 API: what one Kura writes
// to S3, another serves as S3 correctly, multipart uploads included.
func TestS3APIConformance(t *testing.T) {
	k, _ := s3Kura(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	st, err := objstore.NewS3(bg, objstore.S3Config{Endpoint: k.endpoint, PathStyle: true, Region: "us-east-1", PartSize: 5 << 20, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := s3Of(k, "AKIDTEST", "secret")
	objstoretest.Run(t, objstoretest.Harness{Store: st, NewBucket: func(t *testing.T) string { return mkBucket(t, c) }, Large: 11<<20 + 123})
}

// Buckets: create, list, head, delete, and their errors as S3 words them.
func TestS3APIBuckets(t *testing.T) {
	k, dir := s3Kura(t)
	c := s3Of(k, "AKIDTEST", "secret")
	b := mkBucket(t, c)
	if st, err := os.Stat(filepath.Join(dir, b)); err != nil || !st.IsDir() {
		t.Fatalf("the bucket's folder: %v", err)
	}
	// us-east-1 answers a bucket created again 200 (legacy), as S3 does.
	if _, err := c.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatalf("CreateBucket again in us-east-1: %v", err)
	}
	list, err := c.ListBuckets(bg, &s3.ListBucketsInput{})
	if err != nil || len(list.Buckets) != 1 || aws.ToString(list.Buckets[0].Name) != b || list.Buckets[0].CreationDate == nil {
		t.Fatalf("ListBuckets: %+v %v", list, err)
	}
	if _, err := c.HeadBucket(bg, &s3.HeadBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.HeadBucket(bg, &s3.HeadBucketInput{Bucket: aws.String("kura-no-such-bucket")})
	wantS3Error(t, err, "NotFound", "")
	_, err = c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String("kura-no-such-bucket")})
	wantS3Error(t, err, "NoSuchBucket", "The specified bucket does not exist")
	_, err = c.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("Not_A_Bucket")})
	wantS3Error(t, err, "InvalidBucketName", "The specified bucket is not valid.")
	putS3(t, c, b, "k", "x")
	_, err = c.DeleteBucket(bg, &s3.DeleteBucketInput{Bucket: aws.String(b)})
	wantS3Error(t, err, "BucketNotEmpty", "The bucket you tried to delete is not empty")
	if _, err := c.DeleteObject(bg, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(bg, &s3.DeleteBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteBucket(bg, &s3.DeleteBucketInput{Bucket: aws.String(b)})
	wantS3Error(t, err, "NoSuchBucket", "The specified bucket does not exist")

	// Elsewhere than us-east-1 a bucket created again is BucketAlreadyOwnedByYou.
	k2, _ := s3Kura(t, "--region", "eu-west-1")
	c2 := s3.New(s3.Options{Region: "eu-west-1", BaseEndpoint: aws.String(k2.endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""), Retryer: aws.NopRetryer{}})
	conf := &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraintEuWest1}
	if _, err := c2.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("eu-bucket"), CreateBucketConfiguration: conf}); err != nil {
		t.Fatal(err)
	}
	_, err = c2.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("eu-bucket"), CreateBucketConfiguration: conf})
	wantS3Error(t, err, "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.")
	loc, err := c2.GetBucketLocation(bg, &s3.GetBucketLocationInput{Bucket: aws.String("eu-bucket")})
	if err != nil || loc.LocationConstraint != types.BucketLocationConstraintEuWest1 {
		t.Fatalf("GetBucketLocation: %+v %v", loc, err)
	}
}

// Objects: metadata, ETags, Range, conditions, copies, deletes.
func TestS3APIObjects(t *testing.T) {
	k, dir := s3Kura(t)
	c := s3Of(k, "AKIDTEST", "secret")
	b := mkBucket(t, c)
	const body = "0123456789abcdef"
	put, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("dir/obj.txt"), Body: strings.NewReader(body),
		ContentType: aws.String("text/plain"), CacheControl: aws.String("max-age=60"), Metadata: map[string]string{"color": "blue"}})
	if err != nil || strings.Trim(aws.ToString(put.ETag), `"`) != md5hex(body) {
		t.Fatalf("PutObject: %+v %v", put, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, b, "dir", "obj.txt")); err != nil || string(got) != body {
		t.Fatalf("the object's file: %q %v", got, err)
	}
	head, err := c.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String(b), Key: aws.String("dir/obj.txt")})
	if err != nil || aws.ToInt64(head.ContentLength) != 16 || aws.ToString(head.ContentType) != "text/plain" ||
		aws.ToString(head.CacheControl) != "max-age=60" || head.Metadata["color"] != "blue" ||
		aws.ToString(head.ETag) != `"`+md5hex(body)+`"` || head.LastModified == nil || time.Since(*head.LastModified) > time.Minute {
		t.Fatalf("HeadObject: %+v %v", head, err)
	}
	for spec, want := range map[string]string{"bytes=2-5": "2345", "bytes=-3": "def", "bytes=14-": "ef", "bytes=10-99": "abcdef"} {
		got, out := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("dir/obj.txt"), Range: aws.String(spec)})
		if got != want || !strings.HasSuffix(aws.ToString(out.ContentRange), "/16") {
			t.Errorf("Range %s: %q, Content-Range %q", spec, got, aws.ToString(out.ContentRange))
		}
	}
	_, err = c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("dir/obj.txt"), Range: aws.String("bytes=16-")})
	wantS3Error(t, err, "InvalidRange", "The requested range is not satisfiable")
	_, err = c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("dir/obj.txt"), IfMatch: aws.String(`"nope"`)})
	wantS3Error(t, err, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
	_, err = c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("nothing")})
	wantS3Error(t, err, "NoSuchKey", "The specified key does not exist.")
	_, err = c.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String(b), Key: aws.String("nothing")})
	wantS3Error(t, err, "NotFound", "")
	_, err = c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String("kura-no-such-bucket"), Key: aws.String("k")})
	wantS3Error(t, err, "NoSuchBucket", "The specified bucket does not exist")
	_, err = c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String("kura-no-such-bucket"), Key: aws.String("k"), Body: strings.NewReader("x")})
	wantS3Error(t, err, "NoSuchBucket", "The specified bucket does not exist")

	// Content-MD5 is checked: a mismatch stores nothing.
	wrong := md5.Sum([]byte("other"))
	_, err = c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("md5"), Body: strings.NewReader("body"),
		ContentMD5: aws.String(base64.StdEncoding.EncodeToString(wrong[:]))})
	wantS3Error(t, err, "BadDigest", "The Content-MD5 you specified did not match what we received.")
	if _, err := os.Stat(filepath.Join(dir, b, "md5")); err == nil {
		t.Fatal("an object whose Content-MD5 did not match was stored")
	}
	// Every checksum algorithm the SDK offers is checked and given back.
	for _, alg := range []types.ChecksumAlgorithm{types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c, types.ChecksumAlgorithmCrc64nvme,
		types.ChecksumAlgorithmSha1, types.ChecksumAlgorithmSha256, types.ChecksumAlgorithmSha512} {
		key := "sum-" + string(alg)
		if _, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String(key), Body: strings.NewReader(body + key),
			ChecksumAlgorithm: alg}); err != nil {
			t.Fatalf("PutObject with %s: %v", alg, err)
		}
		if _, out := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled}); out.ChecksumCRC32 == nil &&
			out.ChecksumCRC32C == nil && out.ChecksumCRC64NVME == nil && out.ChecksumSHA1 == nil && out.ChecksumSHA256 == nil && out.ChecksumSHA512 == nil && out.ChecksumMD5 == nil {
			t.Fatalf("GetObject of an object put with %s: no checksum", alg)
		}
	}
	_, err = c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("bad-sum"), Body: strings.NewReader(body),
		ChecksumCRC32: aws.String("AAAAAA==")})
	wantS3Error(t, err, "BadDigest", "The CRC32 you specified did not match the calculated checksum.")
	// x-amz-checksum-md5 (which the SDK does not compute) is checked too;
	// a checksum Kura cannot compute is refused, not taken unchecked.
	sum := md5.Sum([]byte("md5 body"))
	req, _ := http.NewRequest(http.MethodPut, k.endpoint+"/"+b+"/md5sum", strings.NewReader("md5 body"))
	req.Header.Set("X-Amz-Checksum-Md5", base64.StdEncoding.EncodeToString(sum[:]))
	if status, text := do(t, req); status != http.StatusOK {
		t.Fatalf("PUT with x-amz-checksum-md5: %d %s", status, text)
	}
	req, _ = http.NewRequest(http.MethodPut, k.endpoint+"/"+b+"/md5sum", strings.NewReader("other body"))
	req.Header.Set("X-Amz-Checksum-Md5", base64.StdEncoding.EncodeToString(sum[:]))
	if status, text := do(t, req); status != http.StatusBadRequest || !strings.Contains(text, "<Message>The MD5 you specified did not match the calculated checksum.</Message>") {
		t.Fatalf("PUT with a wrong x-amz-checksum-md5: %d %s", status, text)
	}
	req, _ = http.NewRequest(http.MethodPut, k.endpoint+"/"+b+"/xx", strings.NewReader("body"))
	req.Header.Set("X-Amz-Checksum-Xxhash3", "AAAAAAAAAAA=")
	if status, text := do(t, req); status != http.StatusNotImplemented || !strings.Contains(text, "<Code>NotImplemented</Code>") {
		t.Fatalf("PUT with x-amz-checksum-xxhash3: %d %s", status, text)
	}
	// A conditional write: If-None-Match * on an existing key.
	_, err = c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("dir/obj.txt"), Body: strings.NewReader("new"), IfNoneMatch: aws.String("*")})
	wantS3Error(t, err, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")

	// CopyObject keeps the metadata (COPY) or takes the request's (REPLACE).
	cp, err := c.CopyObject(bg, &s3.CopyObjectInput{Bucket: aws.String(b), Key: aws.String("copy"), CopySource: aws.String(b + "/dir/obj.txt")})
	if err != nil || strings.Trim(aws.ToString(cp.CopyObjectResult.ETag), `"`) != md5hex(body) {
		t.Fatalf("CopyObject: %+v %v", cp, err)
	}
	got, out := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("copy")})
	if got != body || out.Metadata["color"] != "blue" || aws.ToString(out.ContentType) != "text/plain" {
		t.Fatalf("the copy: %q %+v", got, out.Metadata)
	}
	if _, err := c.CopyObject(bg, &s3.CopyObjectInput{Bucket: aws.String(b), Key: aws.String("copy"), CopySource: aws.String(b + "/copy"),
		MetadataDirective: types.MetadataDirectiveReplace, Metadata: map[string]string{"color": "red"}}); err != nil {
		t.Fatal(err)
	}
	if h, err := c.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String(b), Key: aws.String("copy")}); err != nil || h.Metadata["color"] != "red" ||
		aws.ToString(h.ContentType) != "binary/octet-stream" {
		t.Fatalf("the copy with REPLACE: %+v %v", h, err)
	}
	_, err = c.CopyObject(bg, &s3.CopyObjectInput{Bucket: aws.String(b), Key: aws.String("copy"), CopySource: aws.String(b + "/copy")})
	wantS3Error(t, err, "InvalidRequest", "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
	_, err = c.CopyObject(bg, &s3.CopyObjectInput{Bucket: aws.String(b), Key: aws.String("c2"), CopySource: aws.String(b + "/nothing")})
	wantS3Error(t, err, "NoSuchKey", "The specified key does not exist.")

	// DeleteObject, and DeleteObjects of several keys (one missing, which
	// S3 reports deleted too); the emptied "folder" goes with its keys.
	if _, err := c.DeleteObject(bg, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("copy")}); err != nil {
		t.Fatal(err)
	}
	putS3(t, c, b, "dir/two", "2")
	del, err := c.DeleteObjects(bg, &s3.DeleteObjectsInput{Bucket: aws.String(b), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("dir/obj.txt")}, {Key: aws.String("dir/two")}, {Key: aws.String("never")}}}})
	if err != nil || len(del.Deleted) != 3 || len(del.Errors) != 0 {
		t.Fatalf("DeleteObjects: %+v %v", del, err)
	}
	if _, err := os.Stat(filepath.Join(dir, b, "dir")); err == nil {
		t.Fatal("the emptied folder is still there")
	}
	if l, err := c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(b), Prefix: aws.String("dir/")}); err != nil || len(l.Contents) != 0 {
		t.Fatalf("after the deletes: %+v %v", l, err)
	}
}

// ListObjectsV2: prefix, delimiter, max-keys with continuation, start-after.
func TestS3APIList(t *testing.T) {
	k, _ := s3Kura(t)
	c := s3Of(k, "AKIDTEST", "secret")
	b := mkBucket(t, c)
	keys := []string{"a/1", "a/2", "a/x/3", "b/1", "c", "d e+f"}
	for _, key := range keys {
		putS3(t, c, b, key, key)
	}
	l, err := c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(b), Delimiter: aws.String("/")})
	var prefixes, contents []string
	for _, p := range l.CommonPrefixes {
		prefixes = append(prefixes, aws.ToString(p.Prefix))
	}
	for _, o := range l.Contents {
		contents = append(contents, aws.ToString(o.Key))
	}
	if err != nil || !slices.Equal(prefixes, []string{"a/", "b/"}) || !slices.Equal(contents, []string{"c", "d e+f"}) || aws.ToInt32(l.KeyCount) != 4 {
		t.Fatalf("delimiter: %v %v %v", prefixes, contents, err)
	}
	if l.Contents[0].Size == nil || *l.Contents[0].Size != 1 || aws.ToString(l.Contents[0].ETag) != `"`+md5hex("c")+`"` {
		t.Fatalf("a listed object: %+v", l.Contents[0])
	}
	l, err = c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(b), Prefix: aws.String("a/"), Delimiter: aws.String("/")})
	if err != nil || len(l.Contents) != 2 || len(l.CommonPrefixes) != 1 || aws.ToString(l.CommonPrefixes[0].Prefix) != "a/x/" {
		t.Fatalf("prefix a/: %+v %v", l, err)
	}
	// One key a page, through the paginator's continuation tokens; with a
	// delimiter, pages of common prefixes do not repeat a prefix.
	if all := listAll(t, c, &s3.ListObjectsV2Input{Bucket: aws.String(b), MaxKeys: aws.Int32(1)}); !slices.Equal(all, keys) {
		t.Fatalf("paged: %v", all)
	}
	if seen := listAll(t, c, &s3.ListObjectsV2Input{Bucket: aws.String(b), MaxKeys: aws.Int32(1), Delimiter: aws.String("/")}); !slices.Equal(seen, []string{"a/", "b/", "c", "d e+f"}) {
		t.Fatalf("paged with a delimiter: %v", seen)
	}
	l, err = c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(b), StartAfter: aws.String("a/x/3")})
	if err != nil || len(l.Contents) != 3 || aws.ToString(l.Contents[0].Key) != "b/1" {
		t.Fatalf("start-after: %+v %v", l, err)
	}
	_, err = c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(b), ContinuationToken: aws.String("not a token")})
	wantS3Error(t, err, "InvalidArgument", "The continuation token provided is incorrect")
	v1, err := c.ListObjects(bg, &s3.ListObjectsInput{Bucket: aws.String(b), Marker: aws.String("b/1")})
	if err != nil || len(v1.Contents) != 2 || aws.ToString(v1.Contents[0].Key) != "c" {
		t.Fatalf("ListObjects with a marker: %+v %v", v1, err)
	}
}

// listAll is every common prefix and key of the listing, page by page.
func listAll(t *testing.T, c *s3.Client, in *s3.ListObjectsV2Input) []string {
	t.Helper()
	var all []string
	for pages := s3.NewListObjectsV2Paginator(c, in); pages.HasMorePages(); {
		p, err := pages.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range p.CommonPrefixes {
			all = append(all, aws.ToString(o.Prefix))
		}
		for _, o := range p.Contents {
			all = append(all, aws.ToString(o.Key))
		}
	}
	return all
}

// Multipart uploads: parts, ListParts, Complete (S3's multipart ETag),
// Abort, and the errors of each.
func TestS3APIMultipart(t *testing.T) {
	k, _ := s3Kura(t)
	c := s3Of(k, "AKIDTEST", "secret")
	b := mkBucket(t, c)
	key := aws.String("big/file.bin")
	parts := [][]byte{bytes.Repeat([]byte("x"), 5<<20), []byte("tail")}
	start := func() *string {
		t.Helper()
		cr, err := c.CreateMultipartUpload(bg, &s3.CreateMultipartUploadInput{Bucket: aws.String(b), Key: key, ContentType: aws.String("application/x-test")})
		if err != nil {
			t.Fatal(err)
		}
		return cr.UploadId
	}
	upload := func(id *string, n int32, data []byte) string {
		t.Helper()
		out, err := c.UploadPart(bg, &s3.UploadPartInput{Bucket: aws.String(b), Key: key, UploadId: id, PartNumber: aws.Int32(n), Body: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.ETag)
	}
	id := start()
	var done []types.CompletedPart
	sums := md5.New()
	for i, p := range parts {
		etag := upload(id, int32(i+1), p)
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: aws.String(etag)})
		s := md5.Sum(p)
		sums.Write(s[:])
	}
	lp, err := c.ListParts(bg, &s3.ListPartsInput{Bucket: aws.String(b), Key: key, UploadId: id})
	if err != nil || len(lp.Parts) != 2 || aws.ToInt64(lp.Parts[1].Size) != 4 {
		t.Fatalf("ListParts: %+v %v", lp, err)
	}
	_, err = c.CompleteMultipartUpload(bg, &s3.CompleteMultipartUploadInput{Bucket: aws.String(b), Key: key, UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(`"0123"`)}}}})
	wantS3Error(t, err, "InvalidPart", "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.")
	_, err = c.CompleteMultipartUpload(bg, &s3.CompleteMultipartUploadInput{Bucket: aws.String(b), Key: key, UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{done[1], done[0]}}})
	wantS3Error(t, err, "InvalidPartOrder", "The list of parts was not in ascending order. The parts list must be specified in order by part number.")
	comp, err := c.CompleteMultipartUpload(bg, &s3.CompleteMultipartUploadInput{Bucket: aws.String(b), Key: key, UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	want := `"` + hex.EncodeToString(sums.Sum(nil)) + `-2"`
	if err != nil || aws.ToString(comp.ETag) != want {
		t.Fatalf("CompleteMultipartUpload: %+v %v (want ETag %s)", comp, err, want)
	}
	got, out := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: key})
	if got != string(parts[0])+string(parts[1]) || aws.ToString(out.ETag) != want || aws.ToString(out.ContentType) != "application/x-test" {
		t.Fatalf("the completed object: %d bytes, ETag %s, type %s", len(got), aws.ToString(out.ETag), aws.ToString(out.ContentType))
	}
	// UploadPartCopy: the completed object's bytes in two ranges, copied
	// onto itself.
	cid := start()
	var copied []types.CompletedPart
	for i, rng := range []string{"bytes=0-5242879", "bytes=5242880-5242883"} {
		out, err := c.UploadPartCopy(bg, &s3.UploadPartCopyInput{Bucket: aws.String(b), Key: key, UploadId: cid,
			PartNumber: aws.Int32(int32(i + 1)), CopySource: aws.String(b + "/big/file.bin"), CopySourceRange: aws.String(rng)})
		if err != nil {
			t.Fatalf("UploadPartCopy %s: %v", rng, err)
		}
		copied = append(copied, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.CopyPartResult.ETag})
	}
	_, err = c.UploadPartCopy(bg, &s3.UploadPartCopyInput{Bucket: aws.String(b), Key: key, UploadId: cid,
		PartNumber: aws.Int32(3), CopySource: aws.String(b + "/big/file.bin"), CopySourceRange: aws.String("bytes=9999999-")})
	wantS3Error(t, err, "InvalidArgument", "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy")
	if _, err := c.CompleteMultipartUpload(bg, &s3.CompleteMultipartUploadInput{Bucket: aws.String(b), Key: key, UploadId: cid,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: copied}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: key}); got != string(parts[0])+string(parts[1]) {
		t.Fatalf("the object copied by parts: %d bytes", len(got))
	}
	_, err = c.UploadPart(bg, &s3.UploadPartInput{Bucket: aws.String(b), Key: key, UploadId: id, PartNumber: aws.Int32(1), Body: strings.NewReader("x")})
	wantS3Error(t, err, "NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.")

	// A part smaller than 5 MiB that is not the last: EntityTooSmall.
	id = start()
	small := []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(upload(id, 1, []byte("small")))},
		{PartNumber: aws.Int32(2), ETag: aws.String(upload(id, 2, []byte("last")))}}
	_, err = c.CompleteMultipartUpload(bg, &s3.CompleteMultipartUploadInput{Bucket: aws.String(b), Key: aws.String("big/file.bin"), UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: small}})
	wantS3Error(t, err, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.")
	if _, err := c.AbortMultipartUpload(bg, &s3.AbortMultipartUploadInput{Bucket: aws.String(b), Key: key, UploadId: id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ListParts(bg, &s3.ListPartsInput{Bucket: aws.String(b), Key: key, UploadId: id})
	wantS3Error(t, err, "NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.")
	_, err = c.UploadPart(bg, &s3.UploadPartInput{Bucket: aws.String(b), Key: key, UploadId: start(), PartNumber: aws.Int32(10001), Body: strings.NewReader("x")})
	wantS3Error(t, err, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive")
}

// With --s3-dir a DynamoDB request (X-Amz-Target) is DynamoDB's whatever
// its path, as without it; a GET of / unsigned is the health check.
func TestS3APIKeepsDynamoDB(t *testing.T) {
	k, _ := s3Kura(t)
	req, _ := http.NewRequest(http.MethodPost, k.endpoint+"/some/path", strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if status, text := do(t, req); status != http.StatusOK || !strings.Contains(text, `"TableNames"`) {
		t.Fatalf("ListTables on another path: %d %s", status, text)
	}
	if status, text := httpDo(t, http.MethodGet, k.endpoint+"/", nil); status != http.StatusOK || !strings.HasPrefix(text, "healthy: ") {
		t.Fatalf("GET /: %d %s", status, text)
	}
}

// --log-requests logs S3 requests too: operation, status, error code,
// bucket and object key.
func TestS3APIRequestLog(t *testing.T) {
	k, _ := s3Kura(t, "--log-requests", "--log-level", "info")
	c := s3Of(k, "AKIDTEST", "secret")
	b := mkBucket(t, c)
	putS3(t, c, b, "logged", "x")
	_, err := c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("missing")})
	wantS3Error(t, err, "NoSuchKey", "The specified key does not exist.")
	deadline := time.Now().Add(5 * time.Second)
	for _, want := range []string{
		"msg=request api=s3 operation=PutObject status=200 ",
		"bucket=" + b + " objectKey=logged",
		"operation=GetObject status=404 ",
		"error=NoSuchKey bucket=" + b + " objectKey=missing",
	} {
		for !strings.Contains(k.log.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("the log has no %q:\n%s", want, k.log)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
