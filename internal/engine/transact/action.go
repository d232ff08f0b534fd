package transact

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// The kinds of write transaction action.
const (
	KindPut            = "Put"
	KindUpdate         = "Update"
	KindDelete         = "Delete"
	KindConditionCheck = "ConditionCheck"
)

// MsgOneAction is DynamoDB's refusal of an action that is not exactly one
// of the four.
const MsgOneAction = "TransactItems can only contain one of Check, Put, Update or Delete"

// Action is one TransactWriteItems action's members, whichever of the
// four kinds it is.
type Action struct {
	Kind      string // KindPut, KindUpdate, KindDelete, KindConditionCheck
	TableName *string
	Item      attr.Item // a Put's item
	Key       attr.Item // the key of an Update, Delete or ConditionCheck
	Condition *string
	Update    *string // an Update's UpdateExpression
	Names     map[string]string
	Values    attr.Item
	OnFailure string // ReturnValuesOnConditionCheckFailure
}

// ActionOf is it's members, refusing an action that is not exactly one
// of Put, Update, Delete and ConditionCheck.
func ActionOf(it wire.TransactWriteItem) (Action, error) {
	n := 0
	for _, set := range []bool{it.Put != nil, it.Update != nil, it.Delete != nil, it.ConditionCheck != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return Action{}, ddberr.Validation(MsgOneAction)
	}
	return actionOf(it), nil
}

// actionOf is the members of the first of Put, Update, Delete and
// ConditionCheck it has (an empty Action when it has none).
func actionOf(it wire.TransactWriteItem) Action {
	switch {
	case it.Put != nil:
		p := it.Put
		return Action{Kind: KindPut, TableName: p.TableName, Item: p.Item, Condition: p.ConditionExpression,
			Names: p.ExpressionAttributeNames, Values: p.ExpressionAttributeValues, OnFailure: p.ReturnValuesOnConditionCheckFailure}
	case it.Update != nil:
		u := it.Update
		return Action{Kind: KindUpdate, TableName: u.TableName, Key: u.Key, Condition: u.ConditionExpression, Update: u.UpdateExpression,
			Names: u.ExpressionAttributeNames, Values: u.ExpressionAttributeValues, OnFailure: u.ReturnValuesOnConditionCheckFailure}
	case it.Delete != nil:
		d := it.Delete
		return Action{Kind: KindDelete, TableName: d.TableName, Key: d.Key, Condition: d.ConditionExpression,
			Names: d.ExpressionAttributeNames, Values: d.ExpressionAttributeValues, OnFailure: d.ReturnValuesOnConditionCheckFailure}
	case it.ConditionCheck != nil:
		c := it.ConditionCheck
		return Action{Kind: KindConditionCheck, TableName: c.TableName, Key: c.Key, Condition: c.ConditionExpression,
			Names: c.ExpressionAttributeNames, Values: c.ExpressionAttributeValues, OnFailure: c.ReturnValuesOnConditionCheckFailure}
	}
	return Action{}
}

// CheckExpressions parses an action's UpdateExpression and
// ConditionExpression and nothing else: the checks DynamoDB's older layer
// makes before it reads the action's attribute values.
func CheckExpressions(it wire.TransactWriteItem) error {
	a := actionOf(it)
	if a.Update != nil {
		if _, err := expr.ParseUpdate(*a.Update); err != nil {
			return err
		}
	}
	if a.Condition != nil {
		if _, err := expr.ParseCondition(expr.KindCondition, *a.Condition); err != nil {
			return err
		}
	}
	return nil
}
