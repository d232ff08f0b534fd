package test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// bodySwapClient sends body instead of the request body the SDK built, so
// that the SDK meets Kura's answers to bodies it would never send itself.
type bodySwapClient struct {
	next aws.HTTPClient
	body string
}

func (c bodySwapClient) Do(req *http.Request) (*http.Response, error) {
	b := []byte(c.body)
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	req.ContentLength = int64(len(b))
	return c.next.Do(req)
}

// TestSerializationExceptionThroughSDK: Kura sends a SerializationException's
// text under "Message" (as DynamoDB does), and the AWS SDK for Go v2 still
// surfaces it as ErrorMessage(). A body that is not JSON has no message (the
// SDK then fills in "UnknownError").
func TestSerializationExceptionThroughSDK(t *testing.T) {
	const se = "SerializationException"
	cases := []struct{ body, msg string }{
		{`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":1}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":"perhaps"}`, "Unexpected token received from parser"},
		{`{"TableName":["t"],"Key":{"pk":{"S":"a"}}}`, "Unrecognized collection type class java.lang.String"},
		{`{"TableName":"t","Key":{"pk":{"S":5}}}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"TableName":"t","Key":{"pk":{"B":true}}}`, "only base-64-encoded strings are convertible to bytes"},
		{`{"TableName":"t","Key":{"pk":7}}`, "Unexpected value type in payload"},
		{`{"TableName":"t","Key":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"},
		{`{"TableName":"t","AttributesToGet":"a"}`, "Unexpected field type"},
		{`{"TableName":{}}`, "Start of structure or map found where not expected"},
		{`{"TableName":"t",`, "UnknownError"},
	}
	for _, c := range cases {
		cl := dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(shared.endpoint),
			Credentials:  ddb().Options().Credentials,
			Retryer:      aws.NopRetryer{},
			HTTPClient:   bodySwapClient{next: awshttp.NewBuildableClient(), body: c.body},
		})
		_, err := cl.GetItem(bg, &dynamodb.GetItemInput{
			TableName: aws.String("t"),
			Key:       map[string]types.AttributeValue{"pk": S("a")},
		})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != se || ae.ErrorMessage() != c.msg {
			t.Errorf("%s: got %v, want %s: %q", c.body, err, se, c.msg)
		}
	}
}

// TestSerializationExceptionMessageKey checks the raw body: "Message" for a
// SerializationException, "message" for other errors.
func TestSerializationExceptionMessageKey(t *testing.T) {
	cases := []struct{ op, body, want string }{
		{"ListTables", `{"Limit":"5"}`, `{"__type":"com.amazon.coral.service#SerializationException","Message":"STRING_VALUE cannot be converted to Integer"}`},
		{"PutItem", `{"TableName":"t","Item":{"a":{"S":true}}}`, `{"__type":"com.amazon.coral.service#SerializationException","Message":"TRUE_VALUE cannot be converted to String"}`},
		{"ListTables", `{"Limit":`, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"ListTables", `{"Limit":0}`, `{"__type":"com.amazon.coral.validate#ValidationException","message":"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"}`},
	}
	for _, c := range cases {
		if status, got := rawPost(t, shared.endpoint, c.op, strings.NewReader(c.body)); status != 400 || string(got) != c.want {
			t.Errorf("%s %s:\n got %d %s\nwant 400 %s", c.op, c.body, status, got, c.want)
		}
	}
}

// TestRequestTooLarge: a body over 16 MB gets HTTP 413 with an empty body,
// which the SDK reports as a non-retryable error (no RequestLimitExceeded,
// which it would retry, resending the 16 MB).
func TestRequestTooLarge(t *testing.T) {
	big := `{"TableName":"t","Item":{"pk":{"S":"` + strings.Repeat("x", 16<<20) + `"}}}`
	if status, body := rawPost(t, shared.endpoint, "PutItem", strings.NewReader(big)); status != 413 || len(body) != 0 {
		t.Fatalf("raw: %d %q", status, body)
	}

	_, err := ddb().PutItem(bg, &dynamodb.PutItemInput{
		TableName: aws.String("t"),
		Item:      map[string]types.AttributeValue{"pk": S(strings.Repeat("x", 16<<20))},
	})
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != 413 {
		t.Fatalf("SDK: %v", err)
	}
	if retry.NewStandard().IsErrorRetryable(err) {
		t.Errorf("the SDK would retry %v", err)
	}
	// With no body the SDK knows no code or message.
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "UnknownError" || ae.ErrorMessage() != "UnknownError" {
		t.Errorf("SDK error: %v", err)
	}
}

// TestRequestTooLargeReadAfterSending: a client that sends all of an
// over-size body before it reads (as Python's requests does) still gets the
// 413, not a reset connection (ScyllaDB's Alternator tests, which are run
// against DynamoDB).
func TestRequestTooLargeReadAfterSending(t *testing.T) {
	body := `{"TableName":"t","Item":{"pk":{"S":"a"}}}` + strings.Repeat(" ", 17<<20)
	conn, err := net.Dial("tcp", strings.TrimPrefix(shared.endpoint, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST / HTTP/1.1\r\nHost: kura\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n" +
		"Content-Type: application/x-amz-json-1.0\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+body); err != nil {
		t.Fatalf("sending: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if resp.StatusCode != 413 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}
