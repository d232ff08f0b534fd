// Package ddberr is Kura's one error catalogue: every error a client can see
// is an *Error carrying DynamoDB's __type, message text and HTTP status.
// Constructors here are the only place message texts are written; the rest
// of the server calls them, and tests assert the exact type and text.
package ddberr
