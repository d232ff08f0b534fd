package s3api

import (
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// listing is one page of a bucket's keys: ListObjectsV2's (and
// ListObjects's) prefix, delimiter, start and page size applied to the
// bucket's keys in order.
type listing struct {
	contents     []listed
	prefixes     []string
	truncated    bool
	next         string // the last key or common prefix of the page
	nextIsPrefix bool
}

type listed struct {
	key  string
	size int64
}

// list pages through keys (sorted), after the marker "after"
// (exclusive); when skipUnder, the marker is a common prefix the last page
// ended with, and every key under it is skipped.
func list(keys []listed, prefix, delimiter, after string, skipUnder bool, max int) listing {
	var l listing
	i := sort.Search(len(keys), func(i int) bool { return keys[i].key > after })
	for ; i < len(keys); i++ {
		k := keys[i].key
		if !strings.HasPrefix(k, prefix) {
			if k > prefix {
				break
			}
			continue
		}
		if skipUnder && strings.HasPrefix(k, after) {
			continue
		}
		entry := k
		isPrefix := false
		if delimiter != "" {
			if j := strings.Index(k[len(prefix):], delimiter); j >= 0 {
				entry, isPrefix = k[:len(prefix)+j+len(delimiter)], true
				if n := len(l.prefixes); n > 0 && l.prefixes[n-1] == entry {
					continue
				}
			}
		}
		if len(l.contents)+len(l.prefixes) >= max {
			l.truncated = max > 0 // max-keys=0 asks for no keys, not for pages of none
			break
		}
		if isPrefix {
			l.prefixes = append(l.prefixes, entry)
		} else {
			l.contents = append(l.contents, keys[i])
		}
		l.next, l.nextIsPrefix = entry, isPrefix
	}
	return l
}

type listContent struct {
	Key          string
	LastModified string
	ETag         string
	Size         int64
	StorageClass string
	Owner        *owner `xml:",omitempty"`
}

type commonPrefix struct{ Prefix string }

// listObjects answers ListObjectsV2 (list-type=2: continuation-token,
// start-after, fetch-owner) and ListObjects (marker).
func (h *Handler) listObjects(w http.ResponseWriter, rt route) *Error {
	q := rt.query
	v2 := rt.op == opListObjectsV2
	max := 1000
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errInvalidArgument("Provided max-keys not an integer or within integer range", "max-keys", v)
		}
		max = min(n, 1000)
	}
	enc := q.Get("encoding-type")
	if enc != "" && enc != "url" {
		return errInvalidArgument("Invalid Encoding Method specified in Request", "encoding-type", enc)
	}
	prefix, delimiter := q.Get("prefix"), q.Get("delimiter")
	after, skipUnder := q.Get("marker"), false
	if v2 {
		after = q.Get("start-after")
		if q.Has("continuation-token") {
			var ok bool
			if after, skipUnder, ok = parseToken(q.Get("continuation-token")); !ok {
				return errInvalidArgument("The continuation token provided is incorrect", "continuation-token", q.Get("continuation-token"))
			}
		}
	} else if delimiter != "" && strings.HasSuffix(after, delimiter) {
		skipUnder = true // a NextMarker that was a common prefix
	}
	if _, e := h.bucketDir(rt.bucket); e != nil {
		return e
	}
	objs, err := h.store.List(bg, rt.bucket, prefix)
	if err != nil {
		return h.storeError(rt.bucket, "", err)
	}
	keys := make([]listed, len(objs))
	for i, o := range objs {
		keys[i] = listed{o.Key, o.Size}
	}
	l := list(keys, prefix, delimiter, after, skipUnder, max)
	code := func(s string) string {
		if enc == "url" {
			return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/")
		}
		return s
	}
	doc := listResult{NS: xmlNS, Name: rt.bucket, Prefix: code(prefix), MaxKeys: max, Delimiter: code(delimiter),
		IsTruncated: l.truncated, EncodingType: enc}
	for _, c := range l.contents {
		o, e := h.lookup(rt.bucket, c.key)
		if e != nil {
			continue // deleted since listed
		}
		lc := listContent{Key: code(c.key), LastModified: o.mod.UTC().Format(isoFormat), ETag: quote(o.meta.ETag), Size: o.size, StorageClass: "STANDARD"}
		if !v2 || q.Get("fetch-owner") == "true" {
			lc.Owner = &theOwner
		}
		doc.Contents = append(doc.Contents, lc)
	}
	for _, p := range l.prefixes {
		doc.CommonPrefixes = append(doc.CommonPrefixes, commonPrefix{code(p)})
	}
	if v2 {
		n := len(doc.Contents) + len(doc.CommonPrefixes)
		doc.KeyCount = &n
		if q.Has("continuation-token") {
			t := q.Get("continuation-token")
			doc.ContinuationToken = &t
		}
		if sa := q.Get("start-after"); sa != "" {
			sa = code(sa)
			doc.StartAfter = &sa
		}
		if l.truncated {
			t := makeToken(l.next, l.nextIsPrefix)
			doc.NextContinuationToken = &t
		}
	} else {
		m := code(q.Get("marker"))
		doc.Marker = &m
		if l.truncated && delimiter != "" {
			nm := code(l.next)
			doc.NextMarker = &nm
		}
	}
	h.writeXML(w, http.StatusOK, doc)
	return nil
}

type listResult struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	NS                    string   `xml:"xmlns,attr"`
	Name                  string
	Prefix                string
	Marker                *string `xml:",omitempty"`
	NextMarker            *string `xml:",omitempty"`
	ContinuationToken     *string `xml:",omitempty"`
	NextContinuationToken *string `xml:",omitempty"`
	StartAfter            *string `xml:",omitempty"`
	KeyCount              *int    `xml:",omitempty"`
	MaxKeys               int
	Delimiter             string `xml:",omitempty"`
	EncodingType          string `xml:",omitempty"`
	IsTruncated           bool
	Contents              []listContent
	CommonPrefixes        []commonPrefix
}

// A continuation token is the page's last key ("K" before it) or common
// prefix ("P"), base64url-encoded.
func makeToken(next string, isPrefix bool) string {
	return base64.RawURLEncoding.EncodeToString([]byte(pick(isPrefix, "P", "K") + next))
}

func parseToken(tok string) (after string, skipUnder, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) == 0 || b[0] != 'P' && b[0] != 'K' {
		return "", false, false
	}
	return string(b[1:]), b[0] == 'P', true
}
