package s3api

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A multipart upload is the folder Root/.kura-s3/uploads/ID: upload.json
// (its bucket, key, metadata and start) and, for each part uploaded,
// part-NNNNN (its bytes) and part-NNNNN.json (its ETag and size), each
// written whole through a temporary file. CompleteMultipartUpload streams
// the parts, in order, into the object; completing or aborting removes the
// folder. Uploads survive a restart.

// minPart is the smallest part but the last (5 MiB).
const minPart = 5 << 20

type upload struct {
	Bucket    string    `json:"bucket"`
	Key       string    `json:"key"`
	Meta      meta      `json:"meta"`
	Initiated time.Time `json:"initiated"`
}

type part struct {
	ETag      string            `json:"etag"`
	Size      int64             `json:"size"`
	Modified  time.Time         `json:"modified"`
	Checksums map[string]string `json:"checksums,omitempty"`
}

var uploadID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (h *Handler) uploadDir(id string) string {
	return filepath.Join(h.store.Root, stateDir, "uploads", id)
}

func partName(n int) string { return fmt.Sprintf("part-%05d", n) }

// openUpload reads an upload of bucket/key, or NoSuchUpload.
func (h *Handler) openUpload(rt route) (string, *upload, *Error) {
	id := rt.query.Get("uploadId")
	if !uploadID.MatchString(id) {
		return "", nil, errNoSuchUpload(id)
	}
	dir := h.uploadDir(id)
	b, err := os.ReadFile(filepath.Join(dir, "upload.json"))
	var u upload
	if err != nil || json.Unmarshal(b, &u) != nil || u.Bucket != rt.bucket || u.Key != rt.key {
		return "", nil, errNoSuchUpload(id)
	}
	return dir, &u, nil
}

func (h *Handler) createMultipart(w http.ResponseWriter, r *http.Request, rt route) *Error {
	if _, e := h.file(rt.bucket, rt.key); e != nil {
		return e
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	dir := h.uploadDir(id)
	u := upload{Bucket: rt.bucket, Key: rt.key, Meta: metaFromRequest(r), Initiated: time.Now().UTC()}
	doc, _ := json.Marshal(u)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return h.internal(err)
	}
	if err := writeFileAtomic(filepath.Join(dir, "upload.json"), doc); err != nil {
		return h.internal(err)
	}
	h.writeXML(w, http.StatusOK, struct {
		XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
		NS       string   `xml:"xmlns,attr"`
		Bucket   string
		Key      string
		UploadID string `xml:"UploadId"`
	}{NS: xmlNS, Bucket: rt.bucket, Key: rt.key, UploadID: id})
	return nil
}

// partOf is the part number and upload folder of an UploadPart.
func (h *Handler) partOf(rt route) (int, string, *Error) {
	n, err := strconv.Atoi(rt.query.Get("partNumber"))
	if err != nil || n < 1 || n > 10000 {
		return 0, "", errInvalidArgument("Part number must be an integer between 1 and 10000, inclusive", "partNumber", rt.query.Get("partNumber"))
	}
	dir, _, e := h.openUpload(rt)
	return n, dir, e
}

func (h *Handler) uploadPart(w http.ResponseWriter, r *http.Request, rt route, pl payload) *Error {
	n, dir, e := h.partOf(rt)
	if e != nil {
		return e
	}
	b, e := openBody(r, pl)
	if e != nil {
		return e
	}
	p, e := h.storePart(dir, n, b)
	if e != nil {
		return e
	}
	w.Header().Set("ETag", quote(p.ETag))
	setChecksums(w, p.Checksums)
	w.WriteHeader(http.StatusOK)
	return nil
}

// uploadPartCopy makes a part of (x-amz-copy-source-range of) another
// object.
func (h *Handler) uploadPartCopy(w http.ResponseWriter, r *http.Request, rt route) *Error {
	n, dir, e := h.partOf(rt)
	if e != nil {
		return e
	}
	src, _, srcKey, e := h.copySource(r)
	if e != nil {
		return e
	}
	start, length := int64(0), src.size
	if v := r.Header.Get("X-Amz-Copy-Source-Range"); v != "" {
		var ok, satisfiable bool
		if start, length, ok, satisfiable = parseRange(v, src.size); !ok || !satisfiable || strings.HasPrefix(v, "bytes=-") {
			return errInvalidArgument("The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy",
				"x-amz-copy-source-range", v)
		}
	}
	f, err := os.Open(src.path)
	if err != nil {
		return errNoSuchKey(srcKey)
	}
	defer f.Close()
	p, e := h.storePart(dir, n, &body{r: io.NewSectionReader(f, start, length), want: length, md5: md5.New()})
	if e != nil {
		return e
	}
	h.writeXML(w, http.StatusOK, struct {
		XMLName      xml.Name `xml:"CopyPartResult"`
		NS           string   `xml:"xmlns,attr"`
		LastModified string
		ETag         string
	}{NS: xmlNS, LastModified: p.Modified.Format(isoFormat), ETag: quote(p.ETag)})
	return nil
}

// storePart writes part n of the upload in dir from b, whole or not at
// all (a temporary file renamed once b has passed its checks).
func (h *Handler) storePart(dir string, n int, b *body) (part, *Error) {
	f, err := os.CreateTemp(dir, ".kura-*")
	if err != nil {
		return part{}, h.internal(err)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	_, err = io.Copy(f, b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return part{}, asError(err, errIncompleteBody)
	}
	etag, e := b.finish()
	if e != nil {
		return part{}, e
	}
	p := part{ETag: etag, Size: b.n, Modified: time.Now().UTC(), Checksums: b.checksumValues()}
	doc, _ := json.Marshal(p)
	if err := os.Rename(f.Name(), filepath.Join(dir, partName(n))); err != nil {
		return part{}, h.internal(err)
	}
	if err := writeFileAtomic(filepath.Join(dir, partName(n)+".json"), doc); err != nil {
		return part{}, h.internal(err)
	}
	return p, nil
}

func readPart(dir string, n int) (part, bool) {
	b, err := os.ReadFile(filepath.Join(dir, partName(n)+".json"))
	var p part
	if err != nil || json.Unmarshal(b, &p) != nil {
		return part{}, false
	}
	return p, true
}

// completeMultipart checks the parts listed (ascending, each uploaded with
// that ETag, every one but the last at least 5 MiB) and streams them into
// the object, whose ETag is S3's multipart one: the MD5 of the parts' MD5s,
// a hyphen and the number of parts.
func (h *Handler) completeMultipart(w http.ResponseWriter, r *http.Request, rt route, pl payload) *Error {
	dir, u, e := h.openUpload(rt)
	if e != nil {
		return e
	}
	var req struct {
		Parts []struct {
			PartNumber int
			ETag       string
		} `xml:"Part"`
	}
	if e := decodeXML(r, pl, 4<<20, &req); e != nil {
		return e
	}
	if len(req.Parts) == 0 {
		return errMalformedXML
	}
	sums := md5.New()
	files := make([]string, len(req.Parts))
	for i := 1; i < len(req.Parts); i++ {
		if req.Parts[i].PartNumber <= req.Parts[i-1].PartNumber {
			return errInvalidPartOrder // the list as a whole, before any part
		}
	}
	for i, rp := range req.Parts {
		p, ok := readPart(dir, rp.PartNumber)
		if !ok || strings.Trim(rp.ETag, `"`) != p.ETag {
			return errInvalidPart.with("UploadId", rt.query.Get("uploadId")).with("PartNumber", strconv.Itoa(rp.PartNumber))
		}
		if i < len(req.Parts)-1 && p.Size < minPart {
			return errEntityTooSmall.with("ProposedSize", strconv.FormatInt(p.Size, 10)).with("MinSizeAllowed", strconv.Itoa(minPart)).
				with("PartNumber", strconv.Itoa(rp.PartNumber)).with("ETag", p.ETag)
		}
		raw, _ := hex.DecodeString(p.ETag)
		sums.Write(raw)
		files[i] = filepath.Join(dir, partName(rp.PartNumber))
	}
	etag := hex.EncodeToString(sums.Sum(nil)) + "-" + strconv.Itoa(len(req.Parts))
	src := &concatReader{files: files}
	defer src.close()
	m := u.Meta
	if _, e := h.writeObject(rt.bucket, rt.key, src, func() (string, *Error) { return etag, nil }, &m); e != nil {
		return e
	}
	os.RemoveAll(dir)
	h.writeXML(w, http.StatusOK, struct {
		XMLName  xml.Name `xml:"CompleteMultipartUploadResult"`
		NS       string   `xml:"xmlns,attr"`
		Location string
		Bucket   string
		Key      string
		ETag     string
	}{NS: xmlNS, Location: "/" + rt.bucket + "/" + rt.key, Bucket: rt.bucket, Key: rt.key, ETag: quote(etag)})
	return nil
}

// concatReader reads files one after the other, opening each in turn.
type concatReader struct {
	files []string
	cur   *os.File
}

func (c *concatReader) Read(p []byte) (int, error) {
	for {
		if c.cur == nil {
			if len(c.files) == 0 {
				return 0, io.EOF
			}
			f, err := os.Open(c.files[0])
			if err != nil {
				return 0, err
			}
			c.cur, c.files = f, c.files[1:]
		}
		n, err := c.cur.Read(p)
		if err == io.EOF {
			c.cur.Close()
			c.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (c *concatReader) close() {
	if c.cur != nil {
		c.cur.Close()
	}
}

func (h *Handler) abortMultipart(w http.ResponseWriter, rt route) *Error {
	dir, _, e := h.openUpload(rt)
	if e != nil {
		return e
	}
	if err := os.RemoveAll(dir); err != nil {
		return h.internal(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listParts lists an upload's parts after part-number-marker, max-parts
// (default and most 1,000) at a time.
func (h *Handler) listParts(w http.ResponseWriter, rt route) *Error {
	dir, _, e := h.openUpload(rt)
	if e != nil {
		return e
	}
	max, marker := 1000, 0
	if v := rt.query.Get("max-parts"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errInvalidArgument("Provided max-parts not an integer or within integer range", "max-parts", v)
		}
		max = min(n, 1000)
	}
	if v := rt.query.Get("part-number-marker"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errInvalidArgument("Provided part-number-marker not an integer or within integer range", "part-number-marker", v)
		}
		marker = n
	}
	type listedPart struct {
		PartNumber   int
		LastModified string
		ETag         string
		Size         int64
	}
	doc := struct {
		XMLName              xml.Name `xml:"ListPartsResult"`
		NS                   string   `xml:"xmlns,attr"`
		Bucket               string
		Key                  string
		UploadID             string `xml:"UploadId"`
		PartNumberMarker     int
		NextPartNumberMarker int
		MaxParts             int
		IsTruncated          bool
		StorageClass         string
		Parts                []listedPart `xml:"Part"`
	}{NS: xmlNS, Bucket: rt.bucket, Key: rt.key, UploadID: rt.query.Get("uploadId"), PartNumberMarker: marker, MaxParts: max, StorageClass: "STANDARD"}
	for n := marker + 1; n <= 10000; n++ {
		p, ok := readPart(dir, n)
		if !ok {
			continue
		}
		if len(doc.Parts) == max {
			doc.IsTruncated = true
			break
		}
		doc.Parts = append(doc.Parts, listedPart{n, p.Modified.Format(isoFormat), quote(p.ETag), p.Size})
		doc.NextPartNumberMarker = n
	}
	h.writeXML(w, http.StatusOK, doc)
	return nil
}
