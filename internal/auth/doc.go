// Package auth checks AWS Signature Version 4 on requests when Kura is
// started with credentials (--credentials, --credentials-file): a request
// must be signed, for this server's region and the dynamodb service, with
// the secret of a known access key, within 15 minutes of the server's
// clock. It answers DynamoDB's errors, in DynamoDB's order and words
// (MissingAuthenticationTokenException, IncompleteSignatureException,
// InvalidSignatureException, UnrecognizedClientException; all HTTP 400).
//
// The package knows nothing of HTTP servers: api hands it the method, path,
// query, header fields and body as received (Request).
package auth
