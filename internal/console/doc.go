// Package console serves Kura's web console: a page at /console/ for
// looking at tables, browsing and editing items, and running PartiQL, in a
// browser pointed at the server.
//
// The console is static files (assets/, embedded in the binary) and one
// settings document; everything it shows it reads through Kura's own
// DynamoDB API from the browser, as any client does. With authentication
// on, the browser signs those requests (Signature Version 4, assets/
// sigv4.js) with an access key the user enters, so the console opens no
// way in that the API does not: without a key it shows nothing.
//
// Files:
//
//	console.go          the handler: assets, settings.json, security headers
//	assets/index.html   the page
//	assets/console.js   the page's behaviour (tables, items, editor, PartiQL)
//	assets/dynamodb.js  a small DynamoDB JSON client and the value formatting
//	                    (also run by test/clients/js against a real Kura)
//	assets/sigv4.js     Signature Version 4 with the browser's WebCrypto
//	assets/console.css  the page's style
package console
