package test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }

// rawPost posts body to endpoint as DynamoDB operation op over plain HTTP
// (for requests the SDK refuses to send) and returns the status and the raw
// response body.
func rawPost(t *testing.T, endpoint, op string, body io.Reader) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", endpoint+"/", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// rawCall posts a JSON body for target over plain HTTP (for requests the SDK
// refuses to send) and returns the error type (after '#') and message.
func rawCall(t *testing.T, k *kura, op, body string) (typ, msg string) {
	t.Helper()
	_, raw := rawPost(t, k.endpoint, op, strings.NewReader(body))
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	if i := strings.LastIndex(e.Type, "#"); i >= 0 {
		e.Type = e.Type[i+1:]
	}
	return e.Type, e.Message
}
