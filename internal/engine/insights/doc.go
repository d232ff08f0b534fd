// Package insights owns CloudWatch Contributor Insights for DynamoDB: the
// APIs DescribeContributorInsights, UpdateContributorInsights and
// ListContributorInsights (which table or GSI a request names, in
// DynamoDB's words), a table's or GSI's Record (on or off, the mode, the
// stamp in its rule names, the last change), what an
// UpdateContributorInsights does to it (Update: the next Record and the
// transition to answer, ENABLING or DISABLING, or nothing to do), the
// names of the rules DynamoDB creates (Rules), and
// ListContributorInsights' NextToken. The metrics themselves live in
// CloudWatch, which Kura does not have.
//
// The core gives it a Core: the control-plane lock, the clock, its tables
// (status, definition, Records) and the storing of a Record in a table's
// record (catalog.go: tableRecord.Insights, by index name, "" for the
// table; the core implements it in engine/table_meta.go). The package
// never imports internal/engine.
//
// State in memory: none of its own. The Records are part of the catalog,
// read at Open with the table records and replaced with them; another
// node sharing the store reads them from the store the same way, and sees
// a change made on another node when it rechecks the table
// (catalog_nodes.go).
package insights
