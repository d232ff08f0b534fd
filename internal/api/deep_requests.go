package api

import (
	"context"
	"encoding/json"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// olderLayerDepth is the JSON nesting past which DynamoDB reads a request
// in an older form: an attribute value nested 63 levels (129 levels of JSON
// objects with the body and its map) is past it, one nested 62 is not.
// There, member faults are worded the older way and reported ahead of the
// value faults, a single-item write's ReturnValues rule is checked first,
// and a transaction action's expressions come before its values
// (us-east-1 and eu-west-2, 2026-10-09, in a public conformance suite).
const olderLayerDepth = 128

// jsonDepth is the deepest nesting of objects and arrays in body.
func jsonDepth(body []byte) int {
	depth, most, inString := 0, 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}

// membersFirst makes a single-item write report its member faults (enums,
// names, missing members) ahead of a fault in its attribute values:
// DynamoDB validates the members before it reads the values (an unknown
// ConditionalOperator beats an Expected value nested 33, 40 or 100 levels;
// same suite). Past olderLayerDepth the member faults take their older
// wording and olderRule (the ReturnValues rule) runs before the values too.
// The body is read again, without its values, only when a value failed,
// and never after the decoder refused placeholders past their 2 MB (the
// read would build the very map the refusal spared).
func membersFirst[I any](validate func(*I) error, olderRule func(*I) error, h handler) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		out, err := h(ctx, b, body)
		if err == nil || expr.IsSubstitutionTooLarge(err) || !bodyValueFault(err, body, new(I)) {
			return out, err
		}
		in := new(I)
		scrubbed, ok := withoutValues(body)
		if !ok || json.Unmarshal(scrubbed, in) != nil {
			return nil, err
		}
		older := jsonDepth(body) > olderLayerDepth
		markEmptyEnums(scrubbed, in)
		if merr := validate(in); merr != nil {
			if older {
				return nil, ddberr.OlderLayer(merr)
			}
			return nil, merr
		}
		if older && olderRule != nil {
			if rerr := olderRule(in); rerr != nil {
				return nil, rerr
			}
		}
		return nil, err
	}
}

// withoutValues is body with every attribute value of a single-item write
// left out: Item, Key and ExpressionAttributeValues become empty maps, and
// Expected and AttributeUpdates entries lose their values (keeping their
// operators and actions).
func withoutValues(body []byte) ([]byte, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil, false
	}
	for _, m := range []string{"Item", "Key", "ExpressionAttributeValues"} {
		if raw, ok := top[m]; ok && string(raw) != "null" {
			top[m] = json.RawMessage("{}")
		}
	}
	for _, m := range []string{"Expected", "AttributeUpdates"} {
		raw, ok := top[m]
		if !ok {
			continue
		}
		var entries map[string]map[string]json.RawMessage
		if json.Unmarshal(raw, &entries) != nil {
			return nil, false
		}
		for _, e := range entries {
			delete(e, "Value")
			delete(e, "AttributeValueList")
		}
		scrubbed, err := json.Marshal(entries)
		if err != nil {
			return nil, false
		}
		top[m] = scrubbed
	}
	out, err := json.Marshal(top)
	return out, err == nil
}

// olderActionFault is what DynamoDB's older layer finds in a transaction
// action before its attribute values: a fault in its expressions, then an
// empty top-level attribute name in a Put's item, wherever it stands
// (same suite). It reads the action without its values.
func olderActionFault(action json.RawMessage, checker TransactActionChecker) error {
	var kinds map[string]json.RawMessage
	if json.Unmarshal(action, &kinds) != nil {
		return nil
	}
	for kind, members := range kinds {
		scrubbed, ok := withoutValues(members)
		if !ok {
			return nil
		}
		if checker != nil {
			var it wire.TransactWriteItem
			body, err := json.Marshal(map[string]json.RawMessage{kind: scrubbed})
			if err == nil && json.Unmarshal(body, &it) == nil {
				if cerr := checker.CheckTransactWriteExpressions(it); cerr != nil {
					return cerr
				}
			}
		}
		var put struct{ Item map[string]json.RawMessage }
		if kind == "Put" && json.Unmarshal(members, &put) == nil {
			if _, empty := put.Item[""]; empty {
				return ddberr.RequestInvalid("Empty attribute name")
			}
		}
	}
	return nil
}
