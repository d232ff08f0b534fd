package api

import (
	"bytes"
	"strconv"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// fastEncode writes the hottest outputs without encoding/json's reflection
// (and without its second pass that re-validates every Item's
// MarshalJSON). The bytes are exactly those encodeJSON writes: members in
// struct order, the same omitempty/omitzero rules, items through
// attr.AppendItemJSON; members that are rare on the hot path
// (ConsumedCapacity, ItemCollectionMetrics) are written by encodeJSON
// itself. It reports false for other types, leaving buf untouched.
func fastEncode(buf *bytes.Buffer, out any) (bool, error) {
	b := buf.AvailableBuffer()
	var err error
	switch v := out.(type) {
	case *wire.GetItemOutput:
		b, err = appendGetItem(b, v)
	case *wire.PutItemOutput:
		b, err = appendWriteOutput(b, v.Attributes, v.ConsumedCapacity, v.ItemCollectionMetrics)
	case *wire.UpdateItemOutput:
		b, err = appendWriteOutput(b, v.Attributes, v.ConsumedCapacity, v.ItemCollectionMetrics)
	case *wire.DeleteItemOutput:
		b, err = appendWriteOutput(b, v.Attributes, v.ConsumedCapacity, v.ItemCollectionMetrics)
	case *wire.QueryOutput:
		b, err = appendItems(b, v.ConsumedCapacity, v.Count, v.Items, v.LastEvaluatedKey, v.ScannedCount)
	case *pageResult:
		b, err = appendPageResult(b, v)
	case *wire.ScanOutput:
		b, err = appendItems(b, v.ConsumedCapacity, v.Count, v.Items, v.LastEvaluatedKey, v.ScannedCount)
	case *wire.BatchWriteItemOutput:
		if len(v.ConsumedCapacity) > 0 || len(v.ItemCollectionMetrics) > 0 || len(v.UnprocessedItems) > 0 {
			return false, nil
		}
		if v.UnprocessedItems == nil {
			b = append(b, "{}"...)
		} else {
			b = append(b, `{"UnprocessedItems":{}}`...)
		}
	default:
		return false, nil
	}
	if err != nil {
		return false, err
	}
	buf.Write(b)
	return true, nil
}

// member appends a member name, preceded by a comma unless it is the
// first member of the object that starts at b[start].
func member(b []byte, start int, name string) []byte {
	if len(b) > start+1 {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// appendJSONValue appends v as encodeJSON writes it.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	var tmp bytes.Buffer
	if err := encodeJSON(&tmp, v); err != nil {
		return b, err
	}
	return append(b, tmp.Bytes()...), nil
}

func appendGetItem(b []byte, v *wire.GetItemOutput) ([]byte, error) {
	start := len(b)
	b = append(b, '{')
	if v.ConsumedCapacity != nil {
		var err error
		b = member(b, start, "ConsumedCapacity")
		if b, err = appendJSONValue(b, v.ConsumedCapacity); err != nil {
			return b, err
		}
	}
	if v.Item != nil {
		b = member(b, start, "Item")
		b = attr.AppendItemJSON(b, v.Item)
	}
	return append(b, '}'), nil
}

// appendWriteOutput writes PutItem's, UpdateItem's and DeleteItem's output.
func appendWriteOutput(b []byte, attrs attr.Item, cc *wire.ConsumedCapacity, icm *wire.ItemCollectionMetrics) ([]byte, error) {
	start := len(b)
	b = append(b, '{')
	if len(attrs) > 0 {
		b = member(b, start, "Attributes")
		b = attr.AppendItemJSON(b, attrs)
	}
	var err error
	if cc != nil {
		b = member(b, start, "ConsumedCapacity")
		if b, err = appendJSONValue(b, cc); err != nil {
			return b, err
		}
	}
	if icm != nil {
		b = member(b, start, "ItemCollectionMetrics")
		if b, err = appendJSONValue(b, icm); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendItems writes Query's and Scan's output.
func appendItems(b []byte, cc *wire.ConsumedCapacity, count *int32, items []attr.Item, lek attr.Item, scanned *int32) ([]byte, error) {
	if items == nil {
		return appendItemsWith(b, cc, count, nil, lek, scanned)
	}
	return appendItemsWith(b, cc, count, func(b []byte) []byte {
		b = append(b, '[')
		for i, it := range items {
			if i > 0 {
				b = append(b, ',')
			}
			b = attr.AppendItemJSON(b, it)
		}
		return append(b, ']')
	}, lek, scanned)
}

// appendItemsWith writes Query's and Scan's output; items, when not nil,
// writes the Items array.
func appendItemsWith(b []byte, cc *wire.ConsumedCapacity, count *int32, items func([]byte) []byte, lek attr.Item, scanned *int32) ([]byte, error) {
	start := len(b)
	b = append(b, '{')
	if cc != nil {
		var err error
		b = member(b, start, "ConsumedCapacity")
		if b, err = appendJSONValue(b, cc); err != nil {
			return b, err
		}
	}
	if count != nil {
		b = member(b, start, "Count")
		b = strconv.AppendInt(b, int64(*count), 10)
	}
	if items != nil {
		b = member(b, start, "Items")
		b = items(b)
	}
	if len(lek) > 0 {
		b = member(b, start, "LastEvaluatedKey")
		b = attr.AppendItemJSON(b, lek)
	}
	if scanned != nil {
		b = member(b, start, "ScannedCount")
		b = strconv.AppendInt(b, int64(*scanned), 10)
	}
	return append(b, '}'), nil
}

// encodeOutput writes an operation's output: the hot outputs by hand, the
// rest with encodeJSON.
func encodeOutput(buf *bytes.Buffer, out any) error {
	if _, ok := out.(noBody); ok {
		return nil
	}
	if ok, err := fastEncode(buf, out); ok || err != nil {
		return err
	}
	return encodeJSON(buf, out)
}
