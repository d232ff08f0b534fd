package engine

// PartitionKeyOf is the partition-key attribute of a table (named by name
// or ARN) or of one of its indexes (index "" for the table itself): a
// catalog lookup, for api's authorization, which works out
// dynamodb:LeadingKeys on every request a policy conditions on it
// (internal/api/authorize_actions.go). ok is false when there is no such
// table or index.
func (e *Engine) PartitionKeyOf(table, index string) (string, bool) {
	t, ok := e.lookupTable(table)
	if !ok {
		return "", false
	}
	if index == "" {
		return t.Hash.Name, true
	}
	for _, ix := range append(t.GSIs[:len(t.GSIs):len(t.GSIs)], t.LSIs...) {
		if ix.Name == index {
			return ix.Hash.Name, true
		}
	}
	return "", false
}
