package tables

import (
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/arns"
	"github.com/kura-db/kura/internal/wire"
)

// ValidName reports whether s satisfies DynamoDB's table name rules: 3 to
// 255 characters of [a-zA-Z0-9_.-] (the rule is package arns', which
// checks the names in ARNs).
func ValidName(s string) bool { return arns.ValidTableName(s) }

// CreateName is the name CreateTable gives a table named by raw: a table
// ARN stands for the name in it, which must then be a valid name; any
// other ARN fails the name pattern (the request layer only checked an
// ARN's length).
func CreateName(raw string) (string, error) {
	if !strings.HasPrefix(raw, "arn:") {
		return raw, nil
	}
	name := NameOf(raw)
	if name == raw || !ValidName(name) {
		return "", ddberr.Constraints([]ddberr.Constraint{{Value: "'" + raw + "'", Member: "tableName",
			Text: "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"}})
	}
	return name, nil
}

// MaxListTables is ListTables' page size limit (and default).
const MaxListTables = 100

// ListPage is ListTables' answer over the names of every table: those
// after ExclusiveStartTableName in ascending order, at most Limit of them
// (MaxListTables when Limit is absent or larger), and the last one as
// LastEvaluatedTableName when more remain.
func ListPage(names []string, in *wire.ListTablesInput) *wire.ListTablesOutput {
	limit := MaxListTables
	if in.Limit != nil && *in.Limit > 0 && int(*in.Limit) < limit {
		limit = int(*in.Limit)
	}
	start := wire.Deref(in.ExclusiveStartTableName)
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n <= start })
	slices.Sort(names)
	out := &wire.ListTablesOutput{TableNames: []string{}}
	if len(names) > limit {
		names = names[:limit]
		out.LastEvaluatedTableName = wire.Ptr(names[limit-1])
	}
	out.TableNames = append(out.TableNames, names...)
	return out
}

// accountMaxCapacityUnits is the account capacity quota DynamoDB reports
// (MaxTableCapacity the table's).
const accountMaxCapacityUnits = 80000

// Limits is DescribeLimits' answer: DynamoDB's default capacity quotas.
func Limits() *wire.DescribeLimitsOutput {
	return &wire.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits:  wire.Ptr[int64](accountMaxCapacityUnits),
		AccountMaxWriteCapacityUnits: wire.Ptr[int64](accountMaxCapacityUnits),
		TableMaxReadCapacityUnits:    wire.Ptr[int64](MaxTableCapacity),
		TableMaxWriteCapacityUnits:   wire.Ptr[int64](MaxTableCapacity),
	}
}

// Endpoints is DescribeEndpoints' answer as DynamoDB gives it: its
// regional endpoint, cached for a day.
func (a Account) Endpoints() *wire.DescribeEndpointsOutput {
	return &wire.DescribeEndpointsOutput{Endpoints: []wire.Endpoint{{
		Address:              wire.Ptr("dynamodb." + a.Region + ".amazonaws.com"),
		CachePeriodInMinutes: wire.Ptr[int64](1440),
	}}}
}
