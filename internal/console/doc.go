// Package console serves Kura's web console: a page at /console/ for
// creating and looking at tables, querying, editing, importing and
// exporting items, and running PartiQL, in a browser pointed at the server.
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
//	assets/console.js   its entry: sign-in and sign-out, the table list,
//	                    a table's summary and tabs, the keyboard
//	assets/items.js     the items tab: Scan/Query builder, pages, the grid,
//	                    batch delete, purge, export, import
//	assets/editor.js    the item editor (DynamoDB JSON or document view)
//	assets/tabs.js      description, vector search, stream, PartiQL, settings
//	assets/page.js      what the scripts share: the session's state,
//	                    element helpers, errors
//	assets/dynamodb.js  a small DynamoDB JSON client and the request builders
//	assets/document.js  items as plain JSON with exact numbers; CSV
//	                    (dynamodb.js and document.js have no DOM: also run
//	                    by test/clients/js against a real Kura)
//	assets/sigv4.js     Signature Version 4 with the browser's WebCrypto
//	assets/console.css  the page's one stylesheet (light and dark)
//	assets/favicon.svg  its icon
//
// The page keeps its session (the key, the table shown, the page of items
// and the keys of the pages before it) in page.js's state, in the tab's
// memory; the key alone is also in session storage, so a reload signs in
// again. Sign-out puts the state back to fresh and empties every pane.
package console
