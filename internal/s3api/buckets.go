package s3api

import (
	"encoding/xml"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/objstore"
)

// A bucket is a folder of Root (objstore.Dir's); its creation time is kept
// in Root/.kura-s3/buckets/BUCKET (a folder made by hand has its own
// modification time instead).

// isoFormat is the time format of S3's XML documents.
const isoFormat = "2006-01-02T15:04:05.000Z"

type owner struct {
	ID          string
	DisplayName string
}

// theOwner is the one owner of every bucket.
var theOwner = owner{ID: "kura", DisplayName: "kura"}

func (h *Handler) bucketStamp(bucket string) string {
	return filepath.Join(h.store.Root, stateDir, "buckets", bucket)
}

// created is a bucket's creation time.
func (h *Handler) created(bucket string) time.Time {
	if st, err := os.Stat(h.bucketStamp(bucket)); err == nil {
		return st.ModTime()
	}
	if st, err := os.Stat(filepath.Join(h.store.Root, bucket)); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

func (h *Handler) listBuckets(w http.ResponseWriter) *Error {
	entries, err := os.ReadDir(h.store.Root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // no folder yet: no buckets
		return h.internal(err)
	}
	type bucket struct {
		Name         string
		CreationDate string
	}
	doc := struct {
		XMLName xml.Name `xml:"ListAllMyBucketsResult"`
		NS      string   `xml:"xmlns,attr"`
		Owner   owner
		Buckets []bucket `xml:"Buckets>Bucket"`
	}{NS: xmlNS, Owner: theOwner}
	for _, e := range entries {
		if e.IsDir() && objstore.ValidBucket(e.Name()) {
			doc.Buckets = append(doc.Buckets, bucket{e.Name(), h.created(e.Name()).UTC().Format(isoFormat)})
		}
	}
	h.writeXML(w, http.StatusOK, doc)
	return nil
}

// createBucket makes the bucket's folder. Re-creating a bucket is
// BucketAlreadyOwnedByYou except in us-east-1, where S3 answers 200 for
// legacy compatibility (the Amazon S3 API Reference, CreateBucket, and the
// BucketAlreadyOwnedByYou error's description).
func (h *Handler) createBucket(w http.ResponseWriter, r *http.Request, bucket string, pl payload) *Error {
	if !objstore.ValidBucket(bucket) || strings.Contains(bucket, "..") {
		return errInvalidBucketName(bucket)
	}
	if r.ContentLength != 0 {
		var conf struct {
			LocationConstraint string
		}
		if e := decodeXML(r, pl, 64<<10, &conf); e != nil {
			return e
		}
		if e := h.checkLocation(conf.LocationConstraint); e != nil {
			return e
		}
	}
	if err := os.MkdirAll(h.store.Root, 0o755); err != nil {
		return h.internal(err)
	}
	dir := filepath.Join(h.store.Root, bucket)
	err := os.Mkdir(dir, 0o755)
	switch {
	case errors.Is(err, fs.ErrExist):
		if h.region != "us-east-1" {
			return errBucketOwned(bucket)
		}
	case err != nil:
		return h.internal(err)
	default:
		os.RemoveAll(filepath.Join(h.store.Root, stateDir, "meta", bucket)) // a deleted namesake's
		stamp := h.bucketStamp(bucket)
		if os.MkdirAll(filepath.Dir(stamp), 0o755) == nil {
			_ = os.WriteFile(stamp, nil, 0o644)
		}
	}
	w.Header().Set("Location", "/"+bucket)
	w.WriteHeader(http.StatusOK)
	return nil
}

// checkLocation refuses a LocationConstraint other than the server's
// region (S3 answers a regional endpoint so; us-east-1 is given as no
// constraint at all).
func (h *Handler) checkLocation(loc string) *Error {
	if loc == "" && h.region == "us-east-1" || loc == h.region && loc != "us-east-1" {
		return nil
	}
	if loc == "us-east-1" || loc == "" {
		return newErr("InvalidLocationConstraint", http.StatusBadRequest, "The specified location-constraint is not valid").
			with("LocationConstraint", loc)
	}
	return newErr("IllegalLocationConstraintException", http.StatusBadRequest,
		"The "+loc+" location constraint is incompatible for the region specific endpoint this request was sent to.")
}

func (h *Handler) deleteBucket(w http.ResponseWriter, bucket string) *Error {
	dir, e := h.bucketDir(bucket)
	if e != nil {
		return e
	}
	objs, err := h.store.List(bg, bucket, "")
	if err != nil {
		return h.internal(err)
	}
	if len(objs) > 0 {
		return errBucketNotEmpty(bucket)
	}
	if err := os.RemoveAll(dir); err != nil {
		return h.internal(err)
	}
	os.RemoveAll(filepath.Join(h.store.Root, stateDir, "meta", bucket))
	os.Remove(h.bucketStamp(bucket))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// bucketDir is the folder of an existing bucket, or NoSuchBucket.
func (h *Handler) bucketDir(bucket string) (string, *Error) {
	dir, err := h.store.BucketDir(bucket)
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket), errors.Is(err, objstore.ErrInvalidKey):
		return "", errNoSuchBucket(bucket)
	case err != nil:
		return "", h.internal(err)
	}
	return dir, nil
}

func (h *Handler) headBucket(w http.ResponseWriter, bucket string) *Error {
	if _, e := h.bucketDir(bucket); e != nil {
		return e
	}
	w.Header().Set("X-Amz-Bucket-Region", h.region)
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBucketLocation answers the region, empty for us-east-1 (S3's
// LocationConstraint of a bucket there).
func (h *Handler) getBucketLocation(w http.ResponseWriter, bucket string) *Error {
	if _, e := h.bucketDir(bucket); e != nil {
		return e
	}
	doc := struct {
		XMLName xml.Name `xml:"LocationConstraint"`
		NS      string   `xml:"xmlns,attr"`
		Region  string   `xml:",chardata"`
	}{NS: xmlNS}
	if h.region != "us-east-1" {
		doc.Region = h.region
	}
	h.writeXML(w, http.StatusOK, doc)
	return nil
}
