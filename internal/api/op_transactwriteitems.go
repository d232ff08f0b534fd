package api

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var transactWriteItems = actionsInOrder(op(Backend.TransactWriteItems, validateTransactWrite))

// TransactActionChecker is implemented by a Backend that can run the
// request-phase checks of one TransactWriteItems action (its expressions
// and placeholders) without touching a table.
type TransactActionChecker interface {
	CheckTransactWriteItem(it wire.TransactWriteItem) error
	// CheckTransactWriteExpressions parses the action's expressions only.
	CheckTransactWriteExpressions(it wire.TransactWriteItem) error
}

// actionsInOrder makes TransactWriteItems report its first faulty action:
// DynamoDB checks the actions one at a time in request order, so an
// attribute value refused while the body is read (nesting, numbers, sets,
// names) must not beat an earlier action's expression error, nor a value
// error in a later action beat an earlier one's (us-east-1 and eu-west-2,
// 2026-10-09, in a public conformance suite). The body is read again, action
// by action, only when a value check failed.
func actionsInOrder(h handler) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		out, err := h(ctx, b, body)
		if !bodyValueFault(err, body, new(wire.TransactWriteItemsInput)) {
			return out, err
		}
		var raw struct{ TransactItems []json.RawMessage }
		if json.Unmarshal(body, &raw) != nil {
			return nil, err
		}
		checker, _ := b.(TransactActionChecker)
		older := jsonDepth(body) > olderLayerDepth
		for _, r := range raw.TransactItems {
			var it wire.TransactWriteItem
			if derr := decode(r, &it); derr != nil {
				if older {
					if ferr := olderActionFault(r, checker); ferr != nil {
						return nil, ferr
					}
				}
				return nil, placeholderValueFault(r, derr)
			}
			if checker != nil {
				if cerr := checker.CheckTransactWriteItem(it); cerr != nil {
					return nil, cerr
				}
			}
		}
		return nil, err
	}
}

// placeholderValueFault words a value fault of one action that lies in its
// ExpressionAttributeValues as DynamoDB's older value layer does, naming
// the placeholder: "ExpressionAttributeValues contains invalid value:
// <the older text> for key :v" (TransactWriteItems, us-east-1, 2026-10-09,
// in a public conformance suite). A fault elsewhere in the action is derr.
func placeholderValueFault(action json.RawMessage, derr error) error {
	var kinds map[string]map[string]json.RawMessage
	if json.Unmarshal(action, &kinds) != nil {
		return derr
	}
	for kind, members := range kinds {
		values, ok := members["ExpressionAttributeValues"]
		if !ok {
			continue
		}
		delete(members, "ExpressionAttributeValues")
		rest, err := json.Marshal(map[string]any{kind: members})
		if err != nil || decode(rest, new(wire.TransactWriteItem)) != nil {
			return derr
		}
		key, verr := firstFaultyValue(values)
		de, ok := ddberr.Unenveloped(ddberr.OlderLayer(verr)).(*ddberr.Error)
		if !ok || de.Type != "ValidationException" {
			return derr
		}
		return ddberr.Validation("ExpressionAttributeValues contains invalid value: " + de.Message + " for key " + key)
	}
	return derr
}

// firstFaultyValue reads an ExpressionAttributeValues object and returns
// the first placeholder, in request order, whose value is refused.
func firstFaultyValue(values json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(values))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", nil
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		var raw json.RawMessage
		if err != nil || !ok || dec.Decode(&raw) != nil {
			return "", nil
		}
		if _, verr := attr.DecodeJSON(raw); verr != nil {
			return key, verr
		}
	}
	return "", nil
}

// bodyValueFault reports whether err is an attribute value check that
// failed while body was read into in (a request check, Enveloped), rather
// than a refusal from the backend after a clean read.
func bodyValueFault(err error, body []byte, in any) bool {
	de, ok := err.(*ddberr.Error)
	return ok && de.Enveloped && decode(body, in) != nil
}

func validateTransactWrite(in *wire.TransactWriteItemsInput) error {
	var v validator
	// The token comes first (us-east-1 and eu-west-2, 2026-10-09, in a
	// public conformance suite: '2 validation errors detected: Value
	// '<token>' at 'clientRequestToken' ...; Value 'BOGUS' at
	// 'returnConsumedCapacity' ...').
	if t := in.ClientRequestToken; t != nil {
		v.minLen("clientRequestToken", quote(*t), len(*t), 1)
		v.maxLen("clientRequestToken", quote(*t), len(*t), 36)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection)
	v.transactItems(in.TransactItems == nil, len(in.TransactItems), func() string { return echoTransactWriteItems(in.TransactItems) })
	for i, it := range in.TransactItems {
		p := "transactItems." + strconv.Itoa(i+1) + ".member."
		switch {
		case it.Put != nil:
			v.transactAction(p+"put.", it.Put.TableName, it.Put.ReturnValuesOnConditionCheckFailure)
			v.notNull(p+"put.item", it.Put.Item == nil)
		case it.Update != nil:
			v.transactAction(p+"update.", it.Update.TableName, it.Update.ReturnValuesOnConditionCheckFailure)
			v.notNull(p+"update.key", it.Update.Key == nil)
			v.notNull(p+"update.updateExpression", it.Update.UpdateExpression == nil)
		case it.Delete != nil:
			v.transactAction(p+"delete.", it.Delete.TableName, it.Delete.ReturnValuesOnConditionCheckFailure)
			v.notNull(p+"delete.key", it.Delete.Key == nil)
		case it.ConditionCheck != nil:
			c := it.ConditionCheck
			v.transactAction(p+"conditionCheck.", c.TableName, c.ReturnValuesOnConditionCheckFailure)
			v.notNull(p+"conditionCheck.key", c.Key == nil)
			v.notNull(p+"conditionCheck.conditionExpression", c.ConditionExpression == nil)
		}
	}
	return v.err()
}

var transactGetItems = op(Backend.TransactGetItems, func(in *wire.TransactGetItemsInput) error {
	var v validator
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.transactItems(in.TransactItems == nil, len(in.TransactItems), func() string { return echoTransactGetItems(in.TransactItems) })
	for i, it := range in.TransactItems {
		p := "transactItems." + strconv.Itoa(i+1) + ".member.get"
		v.notNull(p, it.Get == nil)
		if it.Get != nil {
			v.transactTable(p+".tableName", it.Get.TableName)
			v.notNull(p+".key", it.Get.Key == nil)
		}
	}
	return v.err()
})

// transactItems checks the TransactItems list: present, 1 to 100 entries
// (an over-long list is echoed, Java-style, as a suite run against
// DynamoDB records).
func (v *validator) transactItems(isNull bool, n int, echo func() string) {
	v.notNull("transactItems", isNull)
	if isNull {
		return
	}
	if n == 0 {
		v.minLen("transactItems", "'[]'", n, 1)
	}
	if n > 100 {
		v.maxLen("transactItems", quote(echo()), n, 100)
	}
}

// transactAction checks the members every write action carries.
func (v *validator) transactAction(p string, table *string, rvccf string) {
	v.transactTable(p+"tableName", table)
	v.enum(p+"returnValuesOnConditionCheckFailure", rvccf, enumReturnValuesOnCCF)
}

// transactTable checks an action's TableName.
func (v *validator) transactTable(member string, table *string) {
	if table == nil {
		v.notNull(member, true)
		return
	}
	v.name(member, *table)
}
