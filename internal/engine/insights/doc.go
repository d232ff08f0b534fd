// Package insights owns the state machine of CloudWatch Contributor
// Insights for DynamoDB: a table's or GSI's Record (on or off, the mode,
// the stamp in its rule names, the last change), what an
// UpdateContributorInsights does to it (Update: the next Record and the
// transition to answer, ENABLING or DISABLING, or nothing to do), the
// names of the rules DynamoDB creates (Rules), and
// ListContributorInsights' NextToken. The metrics themselves live in
// CloudWatch, which Kura does not have.
//
// The core keeps each table's Records in its table record (catalog.go:
// tableRecord.Insights, by index name, "" for the table) and resolves
// which table or GSI a request names; the package never imports
// internal/engine.
//
// State in memory: none of its own. The Records are part of the catalog,
// read at Open with the table records and replaced with them; another
// node reads them from the store the same way.
package insights
