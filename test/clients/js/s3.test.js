// Kura's S3 API (the --s3-dir folder store on Kura's own endpoint) through
// @aws-sdk/client-s3. Run by test/clients_test.go (TestJavaScriptSDK), which
// starts Kura with --s3-dir and passes its endpoint in KURA_ENDPOINT.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  S3Client, CreateBucketCommand, ListBucketsCommand, HeadBucketCommand, DeleteBucketCommand,
  PutObjectCommand, GetObjectCommand, HeadObjectCommand, DeleteObjectCommand, DeleteObjectsCommand,
  ListObjectsV2Command, CopyObjectCommand, CreateMultipartUploadCommand, UploadPartCommand,
  CompleteMultipartUploadCommand, AbortMultipartUploadCommand, ListPartsCommand,
} from "@aws-sdk/client-s3";

const endpoint = process.env.KURA_ENDPOINT ?? "http://127.0.0.1:8000";
const s3 = (secret = "local") => new S3Client({
  endpoint, region: "us-east-1", forcePathStyle: true, maxAttempts: 1,
  credentials: { accessKeyId: "local", secretAccessKey: secret },
});
const unique = (p) => `${p}-${Math.random().toString(16).slice(2, 10)}`;
const md5 = (b) => createHash("md5").update(b).digest("hex");

async function errorOf(promise) {
  try {
    await promise;
  } catch (e) {
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  assert.fail("no error");
}

test("buckets and objects", async () => {
  const c = s3();
  const Bucket = unique("js-bucket");
  await c.send(new CreateBucketCommand({ Bucket }));
  const { Buckets } = await c.send(new ListBucketsCommand({}));
  assert.ok(Buckets.some((b) => b.Name === Bucket));
  await c.send(new HeadBucketCommand({ Bucket }));

  const put = await c.send(new PutObjectCommand({ Bucket, Key: "a/b.txt", Body: "hello", ContentType: "text/plain", Metadata: { who: "js" } }));
  assert.equal(put.ETag, `"${md5("hello")}"`);
  const got = await c.send(new GetObjectCommand({ Bucket, Key: "a/b.txt" }));
  assert.equal(await got.Body.transformToString(), "hello");
  assert.equal(got.ContentType, "text/plain");
  assert.deepEqual(got.Metadata, { who: "js" });
  const part = await c.send(new GetObjectCommand({ Bucket, Key: "a/b.txt", Range: "bytes=1-3" }));
  assert.equal(await part.Body.transformToString(), "ell");
  assert.equal(part.ContentRange, "bytes 1-3/5");
  const head = await c.send(new HeadObjectCommand({ Bucket, Key: "a/b.txt" }));
  assert.equal(head.ContentLength, 5);

  await c.send(new CopyObjectCommand({ Bucket, Key: "copy.txt", CopySource: `${Bucket}/a/b.txt` }));
  const list = await c.send(new ListObjectsV2Command({ Bucket, Delimiter: "/" }));
  assert.deepEqual(list.CommonPrefixes.map((p) => p.Prefix), ["a/"]);
  assert.deepEqual(list.Contents.map((o) => o.Key), ["copy.txt"]);

  const missing = await errorOf(c.send(new GetObjectCommand({ Bucket, Key: "nothing" })));
  assert.deepEqual(missing, { name: "NoSuchKey", message: "The specified key does not exist.", status: 404 });
  const notEmpty = await errorOf(c.send(new DeleteBucketCommand({ Bucket })));
  assert.deepEqual(notEmpty, { name: "BucketNotEmpty", message: "The bucket you tried to delete is not empty", status: 409 });
  const wrong = await errorOf(s3("wrong").send(new GetObjectCommand({ Bucket, Key: "a/b.txt" })));
  assert.equal(wrong.name, "SignatureDoesNotMatch");
  assert.equal(wrong.status, 403);

  const del = await c.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: "a/b.txt" }, { Key: "copy.txt" }] } }));
  assert.equal(del.Deleted.length, 2);
  await c.send(new DeleteObjectCommand({ Bucket, Key: "never-there" }));
  await c.send(new DeleteBucketCommand({ Bucket }));
  const gone = await errorOf(c.send(new HeadBucketCommand({ Bucket })));
  assert.equal(gone.status, 404);
});

test("multipart upload", async () => {
  const c = s3();
  const Bucket = unique("js-multipart");
  const Key = "big.bin";
  await c.send(new CreateBucketCommand({ Bucket }));
  const parts = [Buffer.alloc(5 * 1024 * 1024, 1), Buffer.from("end")];
  const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  const done = [];
  for (const [i, Body] of parts.entries()) {
    const { ETag } = await c.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: i + 1, Body }));
    done.push({ PartNumber: i + 1, ETag });
  }
  const listed = await c.send(new ListPartsCommand({ Bucket, Key, UploadId }));
  assert.deepEqual(listed.Parts.map((p) => p.Size), [5 * 1024 * 1024, 3]);
  const complete = await c.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }));
  assert.match(complete.ETag, /^"[0-9a-f]{32}-2"$/);
  const got = await c.send(new GetObjectCommand({ Bucket, Key }));
  const body = Buffer.from(await got.Body.transformToByteArray());
  assert.equal(md5(body), md5(Buffer.concat(parts)));

  const other = await c.send(new CreateMultipartUploadCommand({ Bucket, Key: "aborted" }));
  await c.send(new AbortMultipartUploadCommand({ Bucket, Key: "aborted", UploadId: other.UploadId }));
  const aborted = await errorOf(c.send(new ListPartsCommand({ Bucket, Key: "aborted", UploadId: other.UploadId })));
  assert.equal(aborted.name, "NoSuchUpload");
});
