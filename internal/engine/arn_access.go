package engine

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/arns"
)

// Which answer an ARN gets, in DynamoDB's order (validation, then
// authorization, then the resource lookup), is package arns'; these are
// the core's entry points for the operations that check ARNs.

// arnScope is the region and account this engine answers for.
func (e *Engine) arnScope() arns.Scope {
	return arns.Scope{Region: e.cfg.Region, AccountID: e.cfg.AccountID}
}

// authorizeARN refuses action on an ARN that names another account's
// resource (arns.Scope.Authorize).
func (e *Engine) authorizeARN(action, arn string) *ddberr.Error {
	return e.arnScope().Authorize(action, arn)
}

// parseTableARN checks a table's ARN and returns the table's name.
func (e *Engine) parseTableARN(arn string) (string, *ddberr.Error) {
	return e.arnScope().ParseTable(arn)
}
