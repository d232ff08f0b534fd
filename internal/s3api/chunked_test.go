package s3api

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/objstore"
)

// The Amazon S3 API Reference's example of a signed streaming upload
// ("Signature Calculations for the Authorization Header: Transferring
// Payload in Multiple Chunks"): 66560 bytes of "a" in chunks of 65536, 1024
// and 0 bytes, with the seed and chunk signatures the page gives. A pass
// means the header's canonical request and the chunks' chaining are S3's.
const (
	exampleSeed = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"
	exampleKey  = "AKIAIOSFODNN7EXAMPLE"
)

var exampleChunkSigs = []string{
	"ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
	"0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
	"b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
}

func exampleBody(corrupt bool) []byte {
	var b bytes.Buffer
	for i, size := range []int{65536, 1024, 0} {
		b.WriteString(strconv.FormatInt(int64(size), 16) + ";chunk-signature=" + exampleChunkSigs[i] + "\r\n")
		data := bytes.Repeat([]byte("a"), size)
		if corrupt && i == 1 {
			data[10] = 'b'
		}
		b.Write(data)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

func exampleHandler(t *testing.T) (*Handler, string) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "examplebucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	v := auth.NewVerifier("us-east-1", []auth.Credential{{AccessKeyID: exampleKey, Secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}}, func() time.Time { return at })
	return New(Config{Store: objstore.Dir{Root: root}, Auth: v}), root
}

func exampleRequest(body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPut, "http://s3.amazonaws.com/examplebucket/chunkObject.txt", bytes.NewReader(body))
	r.Host = "s3.amazonaws.com"
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Storage-Class", "REDUCED_REDUNDANCY")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+exampleKey+"/20130524/us-east-1/s3/aws4_request,"+
		"SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,"+
		"Signature="+exampleSeed)
	r.Header.Set("X-Amz-Content-Sha256", streamSigned)
	r.Header.Set("Content-Encoding", "aws-chunked")
	r.Header.Set("X-Amz-Decoded-Content-Length", "66560")
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.ContentLength = int64(len(body))
	return r
}

func TestSignedChunksExample(t *testing.T) {
	h, root := exampleHandler(t)
	body := exampleBody(false)
	if len(body) != 66824 { // the example's Content-Length
		t.Fatalf("body of %d bytes", len(body))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, exampleRequest(body))
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	got, err := os.ReadFile(filepath.Join(root, "examplebucket", "chunkObject.txt"))
	if err != nil || !bytes.Equal(got, bytes.Repeat([]byte("a"), 66560)) {
		t.Fatalf("stored %d bytes, %v", len(got), err)
	}
}

// A chunk whose bytes differ from those signed fails the upload with
// SignatureDoesNotMatch, and no object is left.
func TestSignedChunksCorrupt(t *testing.T) {
	h, root := exampleHandler(t)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, exampleRequest(exampleBody(true)))
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "<Code>SignatureDoesNotMatch</Code>") {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if _, err := os.Stat(filepath.Join(root, "examplebucket", "chunkObject.txt")); err == nil {
		t.Fatal("the object was stored")
	}
}

// An aws-chunked body with an unsigned trailing checksum
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER, as the SDKs send a streamed upload
// over HTTPS): stored when the trailer's CRC32 is the body's, refused
// BadDigest (nothing stored) when not.
func TestUnsignedTrailer(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "bkt"), 0o755)
	h := New(Config{Store: objstore.Dir{Root: root}})
	sum := crc32.ChecksumIEEE([]byte("hello world"))
	good := base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, sum))
	for key, trailer := range map[string]string{"good": good, "bad": "AAAAAA=="} {
		body := "6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:" + trailer + "\r\n\r\n"
		r := httptest.NewRequest(http.MethodPut, "http://kura/bkt/"+key, strings.NewReader(body))
		r.Header.Set("X-Amz-Content-Sha256", streamUnsignTr)
		r.Header.Set("Content-Encoding", "aws-chunked")
		r.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
		r.Header.Set("X-Amz-Decoded-Content-Length", "11")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		got, err := os.ReadFile(filepath.Join(root, "bkt", key))
		switch key {
		case "good":
			if w.Code != http.StatusOK || string(got) != "hello world" || w.Header().Get("X-Amz-Checksum-Crc32") != good {
				t.Fatalf("good trailer: %d %s, stored %q %v", w.Code, w.Body, got, err)
			}
		case "bad":
			if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "The CRC32 you specified did not match the calculated checksum.") || err == nil {
				t.Fatalf("bad trailer: %d %s, stored: %v", w.Code, w.Body, err == nil)
			}
		}
	}
}
