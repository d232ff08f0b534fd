package api

import (
	"context"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/iam"
	"github.com/kura-db/kura/internal/partiql"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// Each operation's IAM actions and resources, as DynamoDB's service
// authorization reference ("Actions, resources, and condition keys for
// Amazon DynamoDB") lists them: one check per action and resource;
// BatchGetItem and BatchWriteItem once per table, TransactGetItems and
// TransactWriteItems once per item action (as GetItem, PutItem,
// UpdateItem, DeleteItem, ConditionCheckItem, with
// dynamodb:EnclosingOperation), PartiQL statements as
// dynamodb:PartiQLSelect/Insert/Update/Delete.

// check is one action on one resource, with its condition keys.
type check struct {
	action, resource string
	// policyARN is the resource whose resource-based policy applies (the
	// table, for the table and its indexes; the stream), tagsARN the one
	// whose tags aws:ResourceTag/ reads; "" for none.
	policyARN, tagsARN string
	keys               iam.MapContext
	// leading works out dynamodb:LeadingKeys (nil: the request has none),
	// attrs dynamodb:Attributes (nil, or nil names: none), each only when
	// a policy asks.
	leading func(context.Context, Backend) ([]string, bool)
	attrs   func() []string
}

// arns builds the ARNs of one region and account.
type arns struct{ region, account string }

func (c *caller) arns() arns { return arns{c.region, c.az.Account} }

// table is a table's ARN; a TableName that is already an ARN is kept.
func (a arns) table(name *string) string {
	n := str(name)
	if strings.HasPrefix(n, "arn:") {
		return n
	}
	return "arn:aws:dynamodb:" + a.region + ":" + a.account + ":table/" + n
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// on is a check of action on table (and index, when set).
func (a arns) on(action string, table, index *string) check {
	t := a.table(table)
	ch := check{action: "dynamodb:" + action, resource: t, policyARN: t, tagsARN: t}
	if str(index) != "" {
		ch.resource = t + "/index/" + *index
	}
	return ch
}

// arnOf is a check on a resource named by its ARN (a backup, export or
// import under its table, a stream): the table's policy and tags apply.
func (a arns) arnOf(action, arn string) check {
	t := arn
	if i := strings.Index(arn, ":table/"); i >= 0 {
		rest := arn[i+len(":table/"):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			t = arn[:i+len(":table/")+j]
		}
	}
	policy := t
	if strings.Contains(arn, "/stream/") {
		policy = arn
	}
	return check{action: "dynamodb:" + action, resource: arn, policyARN: policy, tagsARN: t}
}

// anywhere is a check of an action that takes no resource ("*").
func anywhere(action string) check {
	return check{action: "dynamodb:" + action, resource: "*"}
}

func (ch check) with(key string, vals ...string) check {
	if len(vals) > 0 && vals[0] != "" {
		if ch.keys == nil {
			ch.keys = iam.MapContext{}
		}
		ch.keys[key] = vals
	}
	return ch
}

// checksFor lists the checks of request in.
func checksFor(in any, a arns) []check {
	switch in := in.(type) {
	case *wire.GetItemInput:
		ch := a.on("GetItem", in.TableName, nil).with("dynamodb:returnconsumedcapacity", in.ReturnConsumedCapacity)
		return []check{withAttrs(withKeys(ch, in.TableName, nil, in.Key), func() []string {
			return projected(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames)
		})}
	case *wire.PutItemInput:
		ch := a.on("PutItem", in.TableName, nil).with("dynamodb:returnvalues", in.ReturnValues).with("dynamodb:returnconsumedcapacity", in.ReturnConsumedCapacity)
		return []check{withAttrs(withKeys(ch, in.TableName, nil, in.Item), func() []string { return itemNames(in.Item) })}
	case *wire.UpdateItemInput:
		ch := a.on("UpdateItem", in.TableName, nil).with("dynamodb:returnvalues", in.ReturnValues).with("dynamodb:returnconsumedcapacity", in.ReturnConsumedCapacity)
		return []check{withAttrs(withKeys(ch, in.TableName, nil, in.Key), func() []string { return updated(in) })}
	case *wire.DeleteItemInput:
		ch := a.on("DeleteItem", in.TableName, nil).with("dynamodb:returnvalues", in.ReturnValues).with("dynamodb:returnconsumedcapacity", in.ReturnConsumedCapacity)
		return []check{withKeys(ch, in.TableName, nil, in.Key)}
	case *wire.QueryInput:
		ch := a.on("Query", in.TableName, in.IndexName).with("dynamodb:select", in.Select).with("dynamodb:returnconsumedcapacity", in.ReturnConsumedCapacity)
		ch.leading = func(ctx context.Context, b Backend) ([]string, bool) { return queryLeadingKey(ctx, b, in) }
		return []check{withAttrs(ch, func() []string {
			return projected(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames)
		})}
	case *wire.ScanInput:
		ch := a.on("Scan", in.TableName, in.IndexName).with("dynamodb:select", in.Select).with("dynamodb:returnconsumedcapacity", in.ReturnConsumedCapacity)
		return []check{withAttrs(ch, func() []string {
			return projected(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames)
		})}
	case *wire.BatchGetItemInput:
		var out []check
		for _, t := range sortedKeys(in.RequestItems) {
			ka := in.RequestItems[t]
			ch := withKeys(a.on("BatchGetItem", &t, nil), &t, nil, ka.Keys...)
			out = append(out, withAttrs(ch, func() []string {
				return projected(ka.ProjectionExpression, ka.AttributesToGet, ka.ExpressionAttributeNames)
			}))
		}
		return out
	case *wire.BatchWriteItemInput:
		var out []check
		for _, t := range sortedKeys(in.RequestItems) {
			var keys []attr.Item
			var names []string
			for _, w := range in.RequestItems[t] {
				if w.PutRequest != nil {
					keys = append(keys, w.PutRequest.Item)
					names = append(names, itemNames(w.PutRequest.Item)...)
				}
				if w.DeleteRequest != nil {
					keys = append(keys, w.DeleteRequest.Key)
				}
			}
			out = append(out, withAttrs(withKeys(a.on("BatchWriteItem", &t, nil), &t, nil, keys...), func() []string { return names }))
		}
		return out
	case *wire.TransactWriteItemsInput:
		return transactWriteChecks(in, a)
	case *wire.TransactGetItemsInput:
		var out []check
		for _, it := range in.TransactItems {
			if g := it.Get; g != nil {
				ch := a.on("GetItem", g.TableName, nil).with("dynamodb:enclosingoperation", "TransactGetItems")
				out = append(out, withAttrs(withKeys(ch, g.TableName, nil, g.Key), func() []string { return projected(g.ProjectionExpression, nil, g.ExpressionAttributeNames) }))
			}
		}
		return out
	case *wire.ExecuteStatementInput:
		return partiqlChecks(a, in.Statement)
	case *wire.BatchExecuteStatementInput:
		var out []check
		for _, s := range in.Statements {
			out = append(out, partiqlChecks(a, s.Statement)...)
		}
		return out
	case *wire.ExecuteTransactionInput:
		var out []check
		for _, s := range in.TransactStatements {
			out = append(out, partiqlChecks(a, s.Statement)...)
		}
		return out
	case *wire.SearchVectorsInput:
		return []check{a.on("SearchVectors", in.TableName, in.IndexName)}
	}
	return controlChecks(in, a)
}

func transactWriteChecks(in *wire.TransactWriteItemsInput, a arns) []check {
	var out []check
	enc := func(ch check) check { return ch.with("dynamodb:enclosingoperation", "TransactWriteItems") }
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil:
			ch := enc(a.on("PutItem", it.Put.TableName, nil))
			out = append(out, withAttrs(withKeys(ch, it.Put.TableName, nil, it.Put.Item), func() []string { return itemNames(it.Put.Item) }))
		case it.Update != nil:
			ch := enc(a.on("UpdateItem", it.Update.TableName, nil))
			out = append(out, withKeys(ch, it.Update.TableName, nil, it.Update.Key))
		case it.Delete != nil:
			out = append(out, withKeys(enc(a.on("DeleteItem", it.Delete.TableName, nil)), it.Delete.TableName, nil, it.Delete.Key))
		case it.ConditionCheck != nil:
			cc := it.ConditionCheck
			out = append(out, withKeys(enc(a.on("ConditionCheckItem", cc.TableName, nil)), cc.TableName, nil, cc.Key))
		}
	}
	return out
}

// partiqlChecks is the check of one PartiQL statement: its kind's action
// on its table (or index). A statement that does not parse gets no check
// here; the operation refuses it.
func partiqlChecks(a arns, stmt *string) []check {
	st, err := partiql.Parse(str(stmt))
	if err != nil {
		return nil
	}
	action := map[partiql.Kind]string{partiql.Select: "PartiQLSelect", partiql.Insert: "PartiQLInsert",
		partiql.Update: "PartiQLUpdate", partiql.Delete: "PartiQLDelete"}[st.Kind]
	if action == "" {
		return nil
	}
	var index *string
	if st.Index != "" {
		index = &st.Index
	}
	return []check{a.on(action, &st.Table, index)}
}

// withKeys sets dynamodb:LeadingKeys to the partition-key values of
// items (keys or whole items) of table.
func withKeys(ch check, table, index *string, items ...attr.Item) check {
	ch.leading = func(ctx context.Context, b Backend) ([]string, bool) {
		hash, ok := hashKeyOf(ctx, b, table, index)
		if !ok {
			return nil, false
		}
		var vals []string
		for _, it := range items {
			if v, ok := it[hash]; ok {
				vals = append(vals, keyString(v))
			}
		}
		return vals, len(vals) > 0
	}
	return ch
}

// withAttrs sets how dynamodb:Attributes is worked out (names giving nil:
// the request names none).
func withAttrs(ch check, names func() []string) check {
	ch.attrs = names
	return ch
}

func keyString(v attr.Value) string {
	if v.T == attr.B {
		return string(v.Bin)
	}
	return v.Str
}

// partitionKeyer is a Backend that looks a partition key up without
// building a table description (*engine.Engine).
type partitionKeyer interface {
	PartitionKeyOf(table, index string) (string, bool)
}

// hashKeyOf is the partition-key attribute of a table (or its index).
func hashKeyOf(ctx context.Context, b Backend, table, index *string) (string, bool) {
	if pk, ok := b.(partitionKeyer); ok {
		return pk.PartitionKeyOf(str(table), str(index))
	}
	out, err := b.DescribeTable(ctx, &wire.DescribeTableInput{TableName: table})
	if err != nil || out.Table == nil {
		return "", false
	}
	schema := out.Table.KeySchema
	if name := str(index); name != "" {
		schema = nil
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if str(g.IndexName) == name {
				schema = g.KeySchema
			}
		}
		for _, l := range out.Table.LocalSecondaryIndexes {
			if str(l.IndexName) == name {
				schema = l.KeySchema
			}
		}
	}
	for _, k := range schema {
		if k.KeyType == "HASH" {
			return str(k.AttributeName), true
		}
	}
	return "", false
}

// queryLeadingKey is the partition-key value a Query names.
func queryLeadingKey(ctx context.Context, b Backend, in *wire.QueryInput) ([]string, bool) {
	hash, ok := hashKeyOf(ctx, b, in.TableName, in.IndexName)
	if !ok {
		return nil, false
	}
	if c, ok := in.KeyConditions[hash]; ok && len(c.AttributeValueList) == 1 {
		return []string{keyString(c.AttributeValueList[0])}, true
	}
	if in.KeyConditionExpression == nil {
		return nil, false
	}
	cond, err := expr.ParseCondition(expr.KindKeyCondition, *in.KeyConditionExpression)
	if err != nil || expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues).ResolveCondition(cond) != nil {
		return nil, false
	}
	parts, err := expr.CheckKeyCondition(cond)
	if err != nil {
		return nil, false
	}
	for _, p := range parts {
		if p.Name == hash && p.Op == expr.OpEQ && len(p.Values) == 1 {
			return []string{keyString(p.Values[0])}, true
		}
	}
	return nil, false
}

// projected is the top-level attributes a read asks for (nil: all).
func projected(projection *string, toGet []string, names map[string]string) []string {
	if toGet != nil {
		return toGet
	}
	if projection == nil {
		return nil
	}
	p, err := expr.ParseProjection(*projection)
	if err != nil || expr.NewParams(names, nil).ResolveProjection(p) != nil {
		return nil
	}
	out := []string{}
	for _, path := range p.Paths {
		out = append(out, path[0].Name)
	}
	return out
}

func itemNames(it attr.Item) []string {
	return sortedKeys(it) // a new slice: callers append to it
}

// updated is the top-level attributes an UpdateItem writes, with its key.
func updated(in *wire.UpdateItemInput) []string {
	names := itemNames(in.Key)
	for k := range in.AttributeUpdates {
		names = append(names, k)
	}
	if in.UpdateExpression != nil {
		u, err := expr.ParseUpdate(*in.UpdateExpression)
		if err == nil && expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues).ResolveUpdate(u) == nil {
			for _, act := range u.Actions {
				names = append(names, act.Path[0].Name)
			}
		}
	}
	return names
}

// controlChecks lists the checks of the control plane and the Streams
// API.
func controlChecks(in any, a arns) []check {
	switch in := in.(type) {
	case *wire.CreateTableInput:
		ch := a.on("CreateTable", in.TableName, nil)
		return []check{withTags(ch, in.Tags)}
	case *wire.DescribeTableInput:
		return []check{a.on("DescribeTable", in.TableName, nil)}
	case *wire.DeleteTableInput:
		return []check{a.on("DeleteTable", in.TableName, nil)}
	case *wire.UpdateTableInput:
		return []check{a.on("UpdateTable", in.TableName, nil)}
	case *wire.DescribeTableReplicaAutoScalingInput:
		return []check{a.on("DescribeTableReplicaAutoScaling", in.TableName, nil)}
	case *wire.UpdateTableReplicaAutoScalingInput:
		return []check{a.on("UpdateTableReplicaAutoScaling", in.TableName, nil)}
	case *wire.ListTablesInput:
		return []check{anywhere("ListTables")}
	case *wire.TagResourceInput:
		return []check{withTags(a.arnOf("TagResource", str(in.ResourceArn)), in.Tags)}
	case *wire.UntagResourceInput:
		return []check{a.arnOf("UntagResource", str(in.ResourceArn)).with("aws:tagkeys", in.TagKeys...)}
	case *wire.ListTagsOfResourceInput:
		return []check{a.arnOf("ListTagsOfResource", str(in.ResourceArn))}
	case *wire.PutResourcePolicyInput:
		return []check{a.arnOf("PutResourcePolicy", str(in.ResourceArn))}
	case *wire.GetResourcePolicyInput:
		return []check{a.arnOf("GetResourcePolicy", str(in.ResourceArn))}
	case *wire.DeleteResourcePolicyInput:
		return []check{a.arnOf("DeleteResourcePolicy", str(in.ResourceArn))}
	case *wire.ExportTableToPointInTimeInput:
		return []check{a.arnOf("ExportTableToPointInTime", str(in.TableArn))}
	case *wire.DescribeExportInput:
		return []check{a.arnOf("DescribeExport", str(in.ExportArn))}
	case *wire.ListExportsInput:
		return []check{anywhere("ListExports")}
	case *wire.ImportTableInput:
		var name *string
		if in.TableCreationParameters != nil {
			name = in.TableCreationParameters.TableName
		}
		return []check{a.on("ImportTable", name, nil)}
	case *wire.DescribeImportInput:
		return []check{a.arnOf("DescribeImport", str(in.ImportArn))}
	case *wire.ListImportsInput:
		return []check{anywhere("ListImports")}
	// Bulk operations: actions named as the operations, on the table and
	// on the operation's ARN, as for imports and exports (the service
	// authorization reference's rows for them were not at hand).
	case *wire.StartBulkPutItemsInput:
		return []check{a.on("StartBulkPutItems", in.TableName, nil)}
	case *wire.DescribeBulkOperationInput:
		return []check{a.arnOf("DescribeBulkOperation", str(in.BulkOperationArn))}
	case *wire.CancelBulkOperationInput:
		return []check{a.arnOf("CancelBulkOperation", str(in.BulkOperationArn))}
	case *wire.ListBulkOperationsInput:
		return []check{anywhere("ListBulkOperations")}
	case *wire.DescribeLimitsInput:
		return []check{anywhere("DescribeLimits")}
	case *wire.DescribeEndpointsInput:
		return []check{anywhere("DescribeEndpoints")}
	case *wire.DescribeContinuousBackupsInput:
		return []check{a.on("DescribeContinuousBackups", in.TableName, nil)}
	case *wire.UpdateContinuousBackupsInput:
		return []check{a.on("UpdateContinuousBackups", in.TableName, nil)}
	case *wire.CreateBackupInput:
		return []check{a.on("CreateBackup", in.TableName, nil)}
	case *wire.DescribeBackupInput:
		return []check{a.arnOf("DescribeBackup", str(in.BackupArn))}
	case *wire.DeleteBackupInput:
		return []check{a.arnOf("DeleteBackup", str(in.BackupArn))}
	case *wire.ListBackupsInput:
		return []check{anywhere("ListBackups")}
	case *wire.RestoreTableFromBackupInput:
		return []check{a.on("RestoreTableFromBackup", in.TargetTableName, nil)}
	case *wire.RestoreTableToPointInTimeInput:
		src := in.SourceTableName
		if in.SourceTableArn != nil {
			src = in.SourceTableArn
		}
		return []check{a.on("RestoreTableToPointInTime", src, nil), a.on("RestoreTableToPointInTime", in.TargetTableName, nil)}
	case *wire.DescribeContributorInsightsInput:
		return []check{a.on("DescribeContributorInsights", in.TableName, in.IndexName)}
	case *wire.UpdateContributorInsightsInput:
		return []check{a.on("UpdateContributorInsights", in.TableName, in.IndexName)}
	case *wire.ListContributorInsightsInput:
		return []check{anywhere("ListContributorInsights")}
	case *wire.DescribeTimeToLiveInput:
		return []check{a.on("DescribeTimeToLive", in.TableName, nil)}
	case *wire.UpdateTimeToLiveInput:
		return []check{a.on("UpdateTimeToLive", in.TableName, nil)}
	case *wire.EnableKinesisStreamingDestinationInput:
		return []check{a.on("EnableKinesisStreamingDestination", in.TableName, nil)}
	case *wire.DisableKinesisStreamingDestinationInput:
		return []check{a.on("DisableKinesisStreamingDestination", in.TableName, nil)}
	case *wire.UpdateKinesisStreamingDestinationInput:
		return []check{a.on("UpdateKinesisStreamingDestination", in.TableName, nil)}
	case *wire.DescribeKinesisStreamingDestinationInput:
		return []check{a.on("DescribeKinesisStreamingDestination", in.TableName, nil)}
	case *sw.ListStreamsInput:
		return []check{anywhere("ListStreams")}
	case *sw.DescribeStreamInput:
		return []check{a.arnOf("DescribeStream", str(in.StreamArn))}
	case *sw.GetShardIteratorInput:
		return []check{a.arnOf("GetShardIterator", str(in.StreamArn))}
	case *sw.GetRecordsInput:
		// An iterator starts with its stream's ARN (engine/stream_api.go).
		arn, _, _ := strings.Cut(str(in.ShardIterator), "|")
		return []check{a.arnOf("GetRecords", arn)}
	}
	return globalTableChecks(in, a)
}

// globalTableChecks covers the legacy global-table operations
// (global-table/NAME resources, which have no region).
func globalTableChecks(in any, a arns) []check {
	gt := func(action string, name *string) []check {
		return []check{{action: "dynamodb:" + action, resource: "arn:aws:dynamodb::" + a.account + ":global-table/" + str(name)}}
	}
	switch in := in.(type) {
	case *wire.CreateGlobalTableInput:
		return gt("CreateGlobalTable", in.GlobalTableName)
	case *wire.UpdateGlobalTableInput:
		return gt("UpdateGlobalTable", in.GlobalTableName)
	case *wire.DescribeGlobalTableInput:
		return gt("DescribeGlobalTable", in.GlobalTableName)
	case *wire.DescribeGlobalTableSettingsInput:
		return gt("DescribeGlobalTableSettings", in.GlobalTableName)
	case *wire.UpdateGlobalTableSettingsInput:
		return gt("UpdateGlobalTableSettings", in.GlobalTableName)
	case *wire.ListGlobalTablesInput:
		return []check{anywhere("ListGlobalTables")}
	}
	// Every routed operation is listed above (authorize_test.go checks);
	// one that is not is refused rather than let through.
	return []check{anywhere("Unknown")}
}

// withTags sets aws:RequestTag/ and aws:TagKeys from a request's tags.
func withTags(ch check, tags []wire.Tag) check {
	var keys []string
	for _, t := range tags {
		k := str(t.Key)
		keys = append(keys, k)
		if ch.keys == nil {
			ch.keys = iam.MapContext{}
		}
		ch.keys["aws:requesttag/"+strings.ToLower(k)] = []string{str(t.Value)} // "" too
	}
	return ch.with("aws:tagkeys", keys...)
}
