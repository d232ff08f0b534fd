package api

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// Member decoders of the fast path (see fast_decode.go). Each decodes the
// members it knows once and declines every other member, among them the
// legacy conditional members (Expected, KeyConditions, QueryFilter,
// AttributeUpdates), which keep the encoding/json path.

type (
	getIn        wire.GetItemInput
	putIn        wire.PutItemInput
	deleteIn     wire.DeleteItemInput
	updateIn     wire.UpdateItemInput
	queryIn      wire.QueryInput
	scanIn       wire.ScanInput
	batchWriteIn wire.BatchWriteItemInput
)

func (in *getIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "TableName":
		return d.once(0) && d.strPtr(&in.TableName)
	case "Key":
		return d.once(1) && d.item(&in.Key)
	case "ConsistentRead":
		return d.once(2) && d.boolPtr(&in.ConsistentRead)
	case "ProjectionExpression":
		return d.once(3) && d.strPtr(&in.ProjectionExpression)
	case "ExpressionAttributeNames":
		return d.once(4) && d.names(&in.ExpressionAttributeNames)
	case "ReturnConsumedCapacity":
		return d.once(5) && d.str(&in.ReturnConsumedCapacity)
	case "AttributesToGet":
		return d.once(6) && d.strList(&in.AttributesToGet)
	}
	return false
}

func (in *putIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "TableName":
		return d.once(0) && d.strPtr(&in.TableName)
	case "Item":
		return d.once(1) && d.item(&in.Item)
	case "ConditionExpression":
		return d.once(2) && d.strPtr(&in.ConditionExpression)
	case "ExpressionAttributeNames":
		return d.once(3) && d.names(&in.ExpressionAttributeNames)
	case "ExpressionAttributeValues":
		return d.once(4) && d.values(&in.ExpressionAttributeValues)
	case "ReturnValues":
		return d.once(5) && d.str(&in.ReturnValues)
	}
	return d.writeEnum(key, &in.ConditionalOperator, &in.ReturnConsumedCapacity,
		&in.ReturnItemCollectionMetrics, &in.ReturnValuesOnConditionCheckFailure)
}

func (in *deleteIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "TableName":
		return d.once(0) && d.strPtr(&in.TableName)
	case "Key":
		return d.once(1) && d.item(&in.Key)
	case "ConditionExpression":
		return d.once(2) && d.strPtr(&in.ConditionExpression)
	case "ExpressionAttributeNames":
		return d.once(3) && d.names(&in.ExpressionAttributeNames)
	case "ExpressionAttributeValues":
		return d.once(4) && d.values(&in.ExpressionAttributeValues)
	case "ReturnValues":
		return d.once(5) && d.str(&in.ReturnValues)
	}
	return d.writeEnum(key, &in.ConditionalOperator, &in.ReturnConsumedCapacity,
		&in.ReturnItemCollectionMetrics, &in.ReturnValuesOnConditionCheckFailure)
}

func (in *updateIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "TableName":
		return d.once(0) && d.strPtr(&in.TableName)
	case "Key":
		return d.once(1) && d.item(&in.Key)
	case "ConditionExpression":
		return d.once(2) && d.strPtr(&in.ConditionExpression)
	case "ExpressionAttributeNames":
		return d.once(3) && d.names(&in.ExpressionAttributeNames)
	case "ExpressionAttributeValues":
		return d.once(4) && d.values(&in.ExpressionAttributeValues)
	case "ReturnValues":
		return d.once(5) && d.str(&in.ReturnValues)
	case "UpdateExpression":
		return d.once(6) && d.strPtr(&in.UpdateExpression)
	}
	return d.writeEnum(key, &in.ConditionalOperator, &in.ReturnConsumedCapacity,
		&in.ReturnItemCollectionMetrics, &in.ReturnValuesOnConditionCheckFailure)
}

// writeEnum decodes the enum members shared by the single-item writes
// (member bits 16..19).
func (d *fdec) writeEnum(key []byte, condOp, rcc, ricm, rvccf *string) bool {
	switch string(key) {
	case "ConditionalOperator":
		return d.once(16) && d.str(condOp)
	case "ReturnConsumedCapacity":
		return d.once(17) && d.str(rcc)
	case "ReturnItemCollectionMetrics":
		return d.once(18) && d.str(ricm)
	case "ReturnValuesOnConditionCheckFailure":
		return d.once(19) && d.str(rvccf)
	}
	return false
}

func (in *queryIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "KeyConditionExpression":
		return d.once(1) && d.strPtr(&in.KeyConditionExpression)
	case "ScanIndexForward":
		return d.once(9) && d.boolPtr(&in.ScanIndexForward)
	case "AttributesToGet":
		return d.once(13) && d.strList(&in.AttributesToGet)
	case "ConditionalOperator":
		return d.once(14) && d.str(&in.ConditionalOperator)
	}
	return d.readMember(key, readMembers{&in.TableName, &in.IndexName, &in.ExpressionAttributeValues,
		&in.ExpressionAttributeNames, &in.Limit, &in.ExclusiveStartKey, &in.FilterExpression,
		&in.ProjectionExpression, &in.ConsistentRead, &in.Select, &in.ReturnConsumedCapacity})
}

// readMembers are the members Query and Scan share.
type readMembers struct {
	table, index   **string
	values         *attr.Item
	names          *map[string]string
	limit          **int32
	startKey       *attr.Item
	filter, proj   **string
	consistentRead **bool
	sel, rcc       *string
}

// readMember decodes one of the shared members (member bits 0, 2..8 and
// 10..12).
func (d *fdec) readMember(key []byte, m readMembers) bool {
	switch string(key) {
	case "TableName":
		return d.once(0) && d.strPtr(m.table)
	case "ExpressionAttributeValues":
		return d.once(2) && d.values(m.values)
	case "ExpressionAttributeNames":
		return d.once(3) && d.names(m.names)
	case "Limit":
		return d.once(4) && d.int32Ptr(m.limit)
	case "ExclusiveStartKey":
		return d.once(5) && d.item(m.startKey)
	case "IndexName":
		return d.once(6) && d.strPtr(m.index)
	case "FilterExpression":
		return d.once(7) && d.strPtr(m.filter)
	case "ProjectionExpression":
		return d.once(8) && d.strPtr(m.proj)
	case "ConsistentRead":
		return d.once(10) && d.boolPtr(m.consistentRead)
	case "Select":
		return d.once(11) && d.str(m.sel)
	case "ReturnConsumedCapacity":
		return d.once(12) && d.str(m.rcc)
	}
	return false
}

func (in *batchWriteIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "RequestItems":
		return d.once(0) && d.requestItems(&in.RequestItems)
	case "ReturnConsumedCapacity":
		return d.once(1) && d.str(&in.ReturnConsumedCapacity)
	case "ReturnItemCollectionMetrics":
		return d.once(2) && d.str(&in.ReturnItemCollectionMetrics)
	}
	return false
}

// requestItems reads BatchWriteItem's table name → [WriteRequest] map.
func (d *fdec) requestItems(dst *map[string][]wire.WriteRequest) bool {
	m := make(map[string][]wire.WriteRequest)
	ok := d.object(func(table []byte) bool {
		if _, dup := m[string(table)]; dup {
			return false
		}
		if d.peek() != '[' {
			return false
		}
		d.i++
		wrs := []wire.WriteRequest{}
		if d.peek() == ']' {
			d.i++
			m[string(table)] = wrs
			return true
		}
		for {
			var wr wire.WriteRequest
			if !d.writeRequest(&wr) {
				return false
			}
			wrs = append(wrs, wr)
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				m[string(table)] = wrs
				return true
			default:
				return false
			}
		}
	})
	*dst = m
	return ok
}

// writeRequest reads {"PutRequest": {"Item": …}} or {"DeleteRequest":
// {"Key": …}} (both members are kept when both are given, as encoding/json
// does; the engine rejects that).
func (d *fdec) writeRequest(wr *wire.WriteRequest) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "PutRequest":
			if wr.PutRequest != nil {
				return false
			}
			wr.PutRequest = new(wire.PutRequest)
			return d.single("Item", &wr.PutRequest.Item)
		case "DeleteRequest":
			if wr.DeleteRequest != nil {
				return false
			}
			wr.DeleteRequest = new(wire.DeleteRequest)
			return d.single("Key", &wr.DeleteRequest.Key)
		}
		return false
	})
}

// Scan is here for its ExpressionAttributeValues, which the fast path
// bounds as it reads them (values), more than for speed.
func (in *scanIn) member(d *fdec, key []byte) bool {
	switch string(key) {
	case "Segment":
		return d.once(13) && d.int32Ptr(&in.Segment)
	case "TotalSegments":
		return d.once(14) && d.int32Ptr(&in.TotalSegments)
	}
	return d.readMember(key, readMembers{&in.TableName, &in.IndexName, &in.ExpressionAttributeValues,
		&in.ExpressionAttributeNames, &in.Limit, &in.ExclusiveStartKey, &in.FilterExpression,
		&in.ProjectionExpression, &in.ConsistentRead, &in.Select, &in.ReturnConsumedCapacity})
}
