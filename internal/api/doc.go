// Package api is Kura's HTTP front end: it speaks DynamoDB's JSON 1.0
// protocol. A request is routed by its X-Amz-Target header to one operation
// handler (op_<name>.go), which decodes the body into the operation's wire
// input, checks member constraints (the "N validation errors detected: ..."
// layer DynamoDB runs before any semantic check), calls the Backend and
// encodes the wire output.
//
// Every response carries x-amzn-RequestId and X-Amz-Crc32 (CRC32 IEEE of the
// body bytes as sent, i.e. of the gzip stream when the response is gzipped,
// which is what the AWS SDKs verify) and is gzipped when the client accepts
// it. Errors are encoded from *ddberr.Error as {"__type": ..., "message": ...}
// ("Message" where DynamoDB writes it so, ddberr.MessageKey; a body
// over the size limit gets a bare 413).
//
// HTTPServer (httpserver.go) serves the connections: it reads the plain
// "POST /" requests the SDKs send itself and hands a connection that sends
// anything else to net/http, which serves the same Server (ServeHTTP).
// Both read bodies through httpbody.go: as bytes arrive, charged to one
// memory budget (the only state it keeps: the bytes held now and the
// peak since the last spike, both counters that start at zero), under
// body deadlines; with authentication on, the head is checked before the
// body is read. origin.go and cors.go decide which browser origins and
// Host names are served.
//
// Beside the operations, ServeHTTP serves the web console's files
// (Options.Console, internal/console), the operator endpoints (admin.go,
// admin_checkpoint.go), and the health check; observe.go feeds the
// metrics and the request log. RequireAdmin guards the --metrics
// listener's handler (served by internal/server) with the operator
// endpoints' kura:Admin check, taking HTTP basic authorization too.
package api
