package s3api

import (
	"encoding/xml"
	"fmt"
	"net/http"
)

// Error is an S3 error answer: its code, message and HTTP status as
// Amazon S3 words them (the Amazon S3 API Reference, "Error responses",
// List of error codes), and the extra elements S3 adds for some codes
// (BucketName, Key, RangeRequested ...).
type Error struct {
	Code    string
	Message string
	Status  int
	Extra   []xmlElem
}

// xmlElem is one extra element of an error document.
type xmlElem struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// with adds an element to a copy of e.
func (e *Error) with(name, value string) *Error {
	c := *e
	c.Extra = append(append([]xmlElem(nil), e.Extra...), xmlElem{XMLName: xml.Name{Local: name}, Value: value})
	return &c
}

func newErr(code string, status int, msg string) *Error {
	return &Error{Code: code, Message: msg, Status: status}
}

// The catalogue. Texts are those of the S3 API Reference's list of error
// codes, and, where that list gives only a description, those S3 answers
// (as the AWS SDKs' and public S3 emulators' tests against S3 show them).
func errNoSuchBucket(bucket string) *Error {
	return newErr("NoSuchBucket", http.StatusNotFound, "The specified bucket does not exist").with("BucketName", bucket)
}

func errNoSuchKey(key string) *Error {
	return newErr("NoSuchKey", http.StatusNotFound, "The specified key does not exist.").with("Key", key)
}

func errBucketNotEmpty(bucket string) *Error {
	return newErr("BucketNotEmpty", http.StatusConflict, "The bucket you tried to delete is not empty").with("BucketName", bucket)
}

func errBucketOwned(bucket string) *Error {
	return newErr("BucketAlreadyOwnedByYou", http.StatusConflict,
		"Your previous request to create the named bucket succeeded and you already own it.").with("BucketName", bucket)
}

func errInvalidBucketName(bucket string) *Error {
	return newErr("InvalidBucketName", http.StatusBadRequest, "The specified bucket is not valid.").with("BucketName", bucket)
}

func errInvalidRange(requested string, size int64) *Error {
	return newErr("InvalidRange", http.StatusRequestedRangeNotSatisfiable, "The requested range is not satisfiable").
		with("RangeRequested", requested).with("ActualObjectSize", fmt.Sprint(size))
}

func errNoSuchUpload(id string) *Error {
	return newErr("NoSuchUpload", http.StatusNotFound,
		"The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.").with("UploadId", id)
}

var (
	errInvalidPart = newErr("InvalidPart", http.StatusBadRequest,
		"One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.")
	errInvalidPartOrder = newErr("InvalidPartOrder", http.StatusBadRequest,
		"The list of parts was not in ascending order. The parts list must be specified in order by part number.")
	errEntityTooSmall   = newErr("EntityTooSmall", http.StatusBadRequest, "Your proposed upload is smaller than the minimum allowed object size.")
	errEntityTooLarge   = newErr("EntityTooLarge", http.StatusBadRequest, "Your proposed upload exceeds the maximum allowed size")
	errBadDigest        = newErr("BadDigest", http.StatusBadRequest, "The Content-MD5 you specified did not match what we received.")
	errInvalidDigest    = newErr("InvalidDigest", http.StatusBadRequest, "The Content-MD5 you specified is not valid.")
	errMalformedXML     = newErr("MalformedXML", http.StatusBadRequest, "The XML you provided was not well-formed or did not validate against our published schema")
	errMethodNotAllowed = newErr("MethodNotAllowed", http.StatusMethodNotAllowed, "The specified method is not allowed against this resource.")
	errNotImplemented   = newErr("NotImplemented", http.StatusNotImplemented, "A header you provided implies functionality that is not implemented")
	errKeyTooLong       = newErr("KeyTooLongError", http.StatusBadRequest, "Your key is too long")
	errPrecondition     = newErr("PreconditionFailed", http.StatusPreconditionFailed, "At least one of the pre-conditions you specified did not hold")
	errMissingLength    = newErr("MissingContentLength", http.StatusLengthRequired, "You must provide the Content-Length HTTP header.")
	errIncompleteBody   = newErr("IncompleteBody", http.StatusBadRequest, "You did not provide the number of bytes specified by the Content-Length HTTP header")
	errSHA256Mismatch   = newErr("XAmzContentSHA256Mismatch", http.StatusBadRequest, "The provided 'x-amz-content-sha256' header does not match what was computed.")
	errAccessDenied     = newErr("AccessDenied", http.StatusForbidden, "Access Denied")
	errExpired          = newErr("AccessDenied", http.StatusForbidden, "Request has expired")
	errSignature        = newErr("SignatureDoesNotMatch", http.StatusForbidden,
		"The request signature we calculated does not match the signature you provided. Check your key and signing method.")
	errUnknownKey = newErr("InvalidAccessKeyId", http.StatusForbidden, "The AWS Access Key Id you provided does not exist in our records.")
	errBadToken   = newErr("InvalidToken", http.StatusBadRequest, "The provided token is malformed or otherwise invalid.")
	errSkewed     = newErr("RequestTimeTooSkewed", http.StatusForbidden, "The difference between the request time and the current time is too large.")
	errInternal   = newErr("InternalError", http.StatusInternalServerError, "We encountered an internal error. Please try again.")
	errCopyToSelf = newErr("InvalidRequest", http.StatusBadRequest,
		"This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
)

func errInvalidArgument(msg, name, value string) *Error {
	return newErr("InvalidArgument", http.StatusBadRequest, msg).with("ArgumentName", name).with("ArgumentValue", value)
}

func errInvalidRequest(msg string) *Error {
	return newErr("InvalidRequest", http.StatusBadRequest, msg)
}

func errMalformedAuth(msg string) *Error {
	return newErr("AuthorizationHeaderMalformed", http.StatusBadRequest, "The authorization header is malformed; "+msg)
}

func errQueryAuth(msg string) *Error {
	return newErr("AuthorizationQueryParametersError", http.StatusBadRequest, msg)
}

// errChecksum is S3's answer to an x-amz-checksum-* value the body does
// not have ("The CRC32 you specified did not match the calculated
// checksum.").
func errChecksum(algorithm string) *Error {
	return newErr("BadDigest", http.StatusBadRequest, "The "+algorithm+" you specified did not match the calculated checksum.")
}

// errUnstorable is a key the folder store cannot hold as a file (an empty
// path segment, ".", "..", a name starting ".kura-", or a key that is the
// folder of other keys): S3 itself takes such keys, so there is no S3 text;
// the answer is S3's InvalidArgument with the reason.
func errUnstorable(key string) *Error {
	return errInvalidArgument("Kura's folder store (--s3-dir) cannot hold this key as a file", "key", key)
}
