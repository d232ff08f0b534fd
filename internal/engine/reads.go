package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/reads"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// Query and Scan are package reads' (Open builds e.reads over readCore).

// Query reads the items of one partition in sort-key order (reads.Query).
func (e *Engine) Query(ctx context.Context, in *wire.QueryInput) (*wire.QueryOutput, error) {
	return e.reads.Query(ctx, in)
}

// QueryEncoded is Query with the page's items, when they all go out
// whole, appended to dst[:0] as DynamoDB JSON (reads.QueryEncoded).
func (e *Engine) QueryEncoded(ctx context.Context, in *wire.QueryInput, dst []byte) (*wire.QueryOutput, []byte, bool, error) {
	return e.reads.QueryEncoded(ctx, in, dst)
}

// Scan reads a whole table, or one segment of it, in storage (hash) order
// (reads.Scan).
func (e *Engine) Scan(ctx context.Context, in *wire.ScanInput) (*wire.ScanOutput, error) {
	return e.reads.Scan(ctx, in)
}

// ScanEncoded is Scan with QueryEncoded's pre-encoded items
// (reads.ScanEncoded).
func (e *Engine) ScanEncoded(ctx context.Context, in *wire.ScanInput, dst []byte) (*wire.ScanOutput, []byte, bool, error) {
	return e.reads.ScanEncoded(ctx, in, dst)
}

// readCore is the reads' Core.
type readCore struct{ e *Engine }

func (c readCore) ReadTable(name, index *string) (reads.Table, error) {
	t, err := c.e.activeTable(name)
	if err != nil {
		return nil, err
	}
	return c.e.freshForIndex(t, index), nil
}

// A table version as the reads see it (reads.Table; VectorIndexes:
// vectors.go).

// CheckKeyPaths applies checkScalarKeyPaths to a read's filter and
// projection.
func (t *Table) CheckKeyPaths(filter *expr.Condition, proj *expr.Projection) error {
	return t.checkScalarKeyPaths(filter, proj, nil)
}
