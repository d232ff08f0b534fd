package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestGolden replays the protocol-level scenarios in testdata/golden against
// a fresh in-memory Kura: each case sends one operation's JSON body and
// records the status, error type and response body. Regenerate the expected
// output with `go test ./test/ -run TestGolden -rewrite` and review the diff:
// every answer in these files must be what Amazon DynamoDB answers.
//
// Directive: `call <Operation>` with the JSON body as input. Volatile members
// (timestamps, table IDs, stream labels) are replaced by "<scrubbed>".
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata/golden", func(t *testing.T, path string) {
		k := startKura(t, "--in-memory")
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "call" || len(d.CmdArgs) != 1 {
				t.Fatalf("%s: want `call <Operation>`", d.Pos)
			}
			return goldenCall(t, k, d.CmdArgs[0].Key, d.Input)
		})
	})
}

func goldenCall(t *testing.T, k *kura, op, body string) string {
	status, raw := rawPost(t, k.endpoint, op, strings.NewReader(body))
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Sprintf("%d\n%s\n", status, raw)
	}
	scrub(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(sortLists(v))
	return fmt.Sprintf("%d\n%s", status, out.String())
}

// volatile members differ from run to run.
var volatile = map[string]bool{
	"CreationDateTime": true, "TableId": true, "LatestStreamLabel": true, "LatestStreamArn": true,
	"LastIncreaseDateTime": true, "LastDecreaseDateTime": true, "EarliestRestorableDateTime": true,
	"LatestRestorableDateTime": true, "LastUpdateToPayPerRequestDateTime": true, "StreamArn": true,
}

func scrub(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if volatile[k] {
				x[k] = "<scrubbed>"
				continue
			}
			scrub(val)
		}
	case []any:
		for _, e := range x {
			scrub(e)
		}
	}
}

// sortLists orders string sets (SS/NS) so that set order, which DynamoDB
// does not define, does not make the files flaky.
func sortLists(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if (k == "SS" || k == "NS") && isStrings(val) {
				l := val.([]any)
				sort.Slice(l, func(i, j int) bool { return l[i].(string) < l[j].(string) })
				continue
			}
			sortLists(val)
		}
	case []any:
		for _, e := range x {
			sortLists(e)
		}
	}
	return v
}

func isStrings(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}
