package test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// --log-requests logs one line per request, with its operation, status,
// error type and the access key that signed it; without the flag there
// are none.
func TestRequestLog(t *testing.T) {
	k := startKura(t, "--in-memory", "--log-requests", "--log-level", "info")
	c := k.client()
	table := createTable(t, c, "pk", "", "")
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("a")}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("missing"), Key: map[string]types.AttributeValue{"pk": S("a")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")

	// The lines reach the log through the process's stderr pipe: wait for
	// the last one.
	lines := map[string]string{}
	for deadline := time.Now().Add(5 * time.Second); lines["GetItem"] == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, line := range strings.Split(k.log.String(), "\n") {
			if strings.Contains(line, "msg=request ") {
				for _, op := range []string{"CreateTable", "PutItem", "GetItem"} {
					if strings.Contains(line, " operation="+op+" ") {
						lines[op] = line
					}
				}
			}
		}
	}
	for op, want := range map[string][]string{
		"CreateTable": {"level=INFO", " status=200 ", " key=AKIDTEST"},
		"PutItem":     {" status=200 ", " remote=127.0.0.1:", " key=AKIDTEST"},
		"GetItem":     {" status=400 ", " error=ResourceNotFoundException ", " key=AKIDTEST"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[op], w) {
				t.Errorf("%s: no %q in %q", op, w, lines[op])
			}
		}
	}
	if strings.Contains(lines["PutItem"], "error=") {
		t.Errorf("a success logged with an error: %q", lines["PutItem"])
	}

	quiet := startKura(t, "--in-memory", "--log-level", "info")
	createTable(t, quiet.client(), "pk", "", "")
	if strings.Contains(quiet.log.String(), "msg=request ") {
		t.Errorf("requests logged without --log-requests:\n%s", quiet.log.String())
	}
}
