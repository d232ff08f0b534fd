package test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The S3 API with authentication on (--credentials): SigV4 for service s3
// from the SDK's signer, presigned URLs, and S3's answers to what is
// wrong with a signature.
func TestS3APIAuth(t *testing.T) {
	k, _ := s3Kura(t, "--credentials", "AKS3:s3secret")
	c := s3Of(k, "AKS3", "s3secret")
	b := mkBucket(t, c)
	putS3(t, c, b, "k", "signed body")
	big := bytes.Repeat([]byte("y"), 1<<20)
	if _, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("big"), Body: bytes.NewReader(big)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("k")}); got != "signed body" {
		t.Fatalf("GetObject: %q", got)
	}

	_, err := s3Of(k, "AKS3", "wrong").GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("k")})
	wantS3Error(t, err, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.")
	_, err = s3Of(k, "AKS3", "wrong").PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("k2"), Body: strings.NewReader("x")})
	wantS3Error(t, err, "SignatureDoesNotMatch", "")
	_, err = s3Of(k, "NOBODY", "s3secret").ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(b)})
	wantS3Error(t, err, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")

	status, text := httpDo(t, http.MethodGet, k.endpoint+"/"+b+"/k", nil)
	if status != http.StatusForbidden || !strings.Contains(text, "<Code>AccessDenied</Code><Message>Access Denied</Message>") {
		t.Fatalf("an unsigned GET: %d %s", status, text)
	}
	// The health check is still DynamoDB's, and so is DynamoDB.
	if status, text := httpDo(t, http.MethodGet, k.endpoint+"/", nil); status != http.StatusOK || !strings.HasPrefix(text, "healthy: ") {
		t.Fatalf("GET /: %d %s", status, text)
	}
	ddbc := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(k.endpoint), Credentials: c.Options().Credentials, Retryer: aws.NopRetryer{}})
	if _, err := ddbc.ListTables(bg, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("DynamoDB beside S3: %v", err)
	}
	// A request signed for DynamoDB is not one for S3.
	creds, _ := c.Options().Credentials.Retrieve(bg)
	req, _ := http.NewRequest(http.MethodGet, k.endpoint+"/"+b+"/k", nil)
	req.Header.Set("X-Amz-Content-Sha256", emptyHash)
	if err := v4.NewSigner().SignHTTP(bg, creds, req, emptyHash, "dynamodb", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if status, text := do(t, req); status != http.StatusBadRequest || !strings.Contains(xmlText(t, text),
		`<Message>The authorization header is malformed; incorrect service "dynamodb". This endpoint belongs to "s3".</Message>`) {
		t.Fatalf("signed for dynamodb: %d %s", status, text)
	}

	// Presigned URLs: a GET and a PUT work; a changed signature and an
	// expired URL do not.
	pc := s3.NewPresignClient(c)
	get, err := pc.PresignGetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	if status, text := httpDo(t, http.MethodGet, get.URL, nil); status != http.StatusOK || text != "signed body" {
		t.Fatalf("presigned GET: %d %s", status, text)
	}
	tampered := strings.Replace(get.URL, "X-Amz-Signature=", "X-Amz-Signature=0", 1)
	if status, text := httpDo(t, http.MethodGet, tampered, nil); status != http.StatusForbidden || !strings.Contains(text, "<Code>SignatureDoesNotMatch</Code>") {
		t.Fatalf("a changed presigned URL: %d %s", status, text)
	}
	put, err := pc.PresignPutObject(bg, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("uploaded")})
	if err != nil {
		t.Fatal(err)
	}
	if status, text := httpDo(t, http.MethodPut, put.URL, strings.NewReader("through a URL")); status != http.StatusOK {
		t.Fatalf("presigned PUT: %d %s", status, text)
	}
	if got, _ := getS3(t, c, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("uploaded")}); got != "through a URL" {
		t.Fatalf("the presigned PUT's object: %q", got)
	}
	old, _ := http.NewRequest(http.MethodGet, k.endpoint+"/"+b+"/k?X-Amz-Expires=60", nil)
	signed, _, err := v4.NewSigner().PresignHTTP(bg, creds, old, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if status, text := httpDo(t, http.MethodGet, signed, nil); status != http.StatusForbidden ||
		!strings.Contains(text, "<Code>AccessDenied</Code><Message>Request has expired</Message>") {
		t.Fatalf("an expired presigned URL: %d %s", status, text)
	}
}

// xmlText is an XML document with its character references (&#34; ...)
// replaced by the characters.
func xmlText(t *testing.T, doc string) string {
	t.Helper()
	var b strings.Builder
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			b.WriteString("<" + tok.Name.Local + ">")
		case xml.EndElement:
			b.WriteString("</" + tok.Name.Local + ">")
		case xml.CharData:
			b.Write(tok)
		}
	}
	return b.String()
}

const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func httpDo(t *testing.T, method, u string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

// An export to the folder store is listable and downloadable through the
// S3 API (the manifests' ETags are the API's), and objects uploaded
// through it are what an ImportTable reads.
func TestS3APIExportImport(t *testing.T) {
	k, _ := s3Kura(t)
	c := k.client()
	env := s3Env{endpoint: k.endpoint, client: s3Of(k, "AKIDTEST", "secret")}
	env.bucket = mkBucket(t, env.client)
	name := pitrTable(t, c)
	for _, pk := range []string{"a", "b", "c"} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]ddbtypes.AttributeValue{"pk": S(pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + name), S3Bucket: aws.String(env.bucket), S3Prefix: aws.String("nightly")})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExportDone(t, c, aws.ToString(out.ExportDescription.ExportArn))
	file, _ := env.dataFile(t, d, 3)
	if keys := exportedKeys(t, bytes.NewReader(env.get(t, file.DataFileS3Key))); !slices.Equal(keys, []string{"a", "b", "c"}) {
		t.Fatalf("exported keys %v", keys)
	}
	l, err := env.client.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(env.bucket), Prefix: aws.String("nightly/AWSDynamoDB/")})
	var names []string
	for _, o := range l.Contents {
		names = append(names, path.Base(aws.ToString(o.Key)))
	}
	if err != nil || !slices.Contains(names, "manifest-summary.json") || !slices.Contains(names, "manifest-files.json") || !slices.Contains(names, path.Base(file.DataFileS3Key)) {
		t.Fatalf("the export's files listed: %v %v", names, err)
	}

	env.put(t, "in/1.json", `{"Item":{"pk":{"S":"x"}}}`+"\n"+`{"Item":{"pk":{"S":"y"}}}`+"\n")
	env.put(t, "in/2.json", `{"Item":{"pk":{"S":"z"}}}`+"\n")
	imported, arn := importFrom(t, c, env.bucket, "in/", ddbtypes.InputCompressionTypeNone)
	if id := waitImportDone(t, c, arn); id.ImportStatus != ddbtypes.ImportStatusCompleted || id.ImportedItemCount != 3 {
		t.Fatalf("import: %s %s", id.ImportStatus, aws.ToString(id.FailureMessage))
	}
	if scan, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(imported)}); err != nil || scan.Count != 3 {
		t.Fatalf("the imported table: %+v %v", scan, err)
	}
}

// The AWS CLI's s3 commands against the endpoint: mb, cp (a file above
// the CLI's 8 MB multipart threshold, up and down), ls, sync, rm, rb.
func TestS3APICLI(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws CLI not available")
	}
	k, _ := s3Kura(t, clientCredentials...)
	work := t.TempDir()
	big := make([]byte, 20<<20+17)
	rand.NewChaCha8([32]byte{7}).Read(big)
	for name, data := range map[string][]byte{"big.bin": big, "tree/a.txt": []byte("a"), "tree/sub/b.txt": []byte("b")} {
		p := filepath.Join(work, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s3cli := func(args ...string) string {
		t.Helper()
		full := append([]string{"s3", "--endpoint-url", k.endpoint, "--region", "us-east-1"}, args...)
		if slices.Contains([]string{"cp", "sync", "rm"}, args[0]) {
			full = append(full, "--only-show-errors")
		}
		ctx, cancel := context.WithTimeout(bg, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "aws", full...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_PAGER=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("aws s3 %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	s3cli("mb", "s3://cli-bucket")
	s3cli("cp", "big.bin", "s3://cli-bucket/files/big.bin")
	s3cli("sync", "tree", "s3://cli-bucket/tree")
	s3cli("cp", "s3://cli-bucket/files/big.bin", "s3://cli-bucket/files/copy.bin") // a multipart copy (UploadPartCopy)
	ls := s3cli("ls", "--recursive", "s3://cli-bucket/")
	for _, want := range []string{"files/big.bin", "tree/a.txt", "tree/sub/b.txt", "20971537 files/copy.bin"} {
		if !strings.Contains(ls, want) {
			t.Fatalf("aws s3 ls has no %s:\n%s", want, ls)
		}
	}
	if out := s3cli("sync", "tree", "s3://cli-bucket/tree", "--dryrun"); out != "" {
		t.Fatalf("a second sync would copy again:\n%s", out)
	}
	s3cli("cp", "s3://cli-bucket/files/big.bin", "back.bin")
	if back, err := os.ReadFile(filepath.Join(work, "back.bin")); err != nil || !bytes.Equal(back, big) {
		t.Fatalf("the file downloaded differs (%d bytes): %v", len(back), err)
	}
	s3cli("sync", "s3://cli-bucket/tree", "down")
	if b, err := os.ReadFile(filepath.Join(work, "down", "sub", "b.txt")); err != nil || string(b) != "b" {
		t.Fatalf("sync down: %q %v", b, err)
	}
	s3cli("rm", "--recursive", "s3://cli-bucket/")
	s3cli("rb", "s3://cli-bucket")
	if out := s3cli("ls"); strings.Contains(out, "cli-bucket") {
		t.Fatalf("the bucket is still listed:\n%s", out)
	}
}

// boto3 (test/clients/python/test_boto3_s3api.py): its transfer manager's
// multipart upload and ranged download, listing, copying, deleting and
// errors; and the export/import flows of test_boto3_s3.py with Kura's own
// S3 API as their S3.
func TestBoto3S3API(t *testing.T) {
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 not available")
	}
	k, _ := s3Kura(t, clientCredentials...)
	c := s3Of(k, "local", "local")
	bucket := mkBucket(t, c)
	for _, mod := range []string{"test_boto3_s3api", "test_boto3_s3"} {
		cmd := exec.Command("python3", "-m", "unittest", "-v", mod)
		cmd.Dir = "clients/python"
		cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "KURA_S3_ENDPOINT="+k.endpoint, "KURA_S3_BUCKET="+bucket,
			"AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s failed: %v\n%s", mod, err, out)
		}
		t.Logf("%s", out)
	}
}

// With --iam-file, S3 requests are authorized by the same policies as
// DynamoDB's: root may do anything, alice (DynamoDB actions only) no S3
// action, carol (everything but dynamodb:Delete*) S3 too; DeleteObjects
// refuses per key.
func TestS3APIIAM(t *testing.T) {
	k, _ := startIAMKura(t, "--s3-dir", t.TempDir())
	root, alice, carol := s3Of(k, "AKIDROOT", "root-secret"), s3Of(k, "AKIDALICE", "s"), s3Of(k, "AKIDCAROL", "s")
	b := mkBucket(t, root)
	putS3(t, root, b, "k", "secret")
	_, err := alice.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("k")})
	wantS3Error(t, err, "AccessDenied", "Access Denied")
	_, err = alice.ListBuckets(bg, &s3.ListBucketsInput{})
	wantS3Error(t, err, "AccessDenied", "Access Denied")
	_, err = alice.CopyObject(bg, &s3.CopyObjectInput{Bucket: aws.String(b), Key: aws.String("mine"), CopySource: aws.String(b + "/k")})
	wantS3Error(t, err, "AccessDenied", "Access Denied")
	del, err := alice.DeleteObjects(bg, &s3.DeleteObjectsInput{Bucket: aws.String(b), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}})
	if err != nil || len(del.Errors) != 1 || aws.ToString(del.Errors[0].Code) != "AccessDenied" || len(del.Deleted) != 0 {
		t.Fatalf("alice's DeleteObjects: %+v %v", del, err)
	}
	if got, _ := getS3(t, carol, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("k")}); got != "secret" {
		t.Fatalf("carol's GetObject: %q", got)
	}
	if _, err := carol.DeleteObject(bg, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
}
