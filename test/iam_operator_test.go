package test

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// kuraAdminDenied is the refusal of an operator endpoint to who.
func kuraAdminDenied(who string) string {
	return "User: " + who + " is not authorized to perform: kura:Admin on resource: * because no identity-based policy allows the kura:Admin action"
}

// With --iam-file the metrics listener serves a principal allowed
// kura:Admin, authenticated by HTTP basic authorization (what Prometheus
// sends) or by a signature; anyone else is refused with DynamoDB's error
// body, 401 (and a challenge) when not authenticated, 403 when not allowed.
func TestIAMMetrics(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	startIAMKura(t, "--metrics", addr)
	get := func(prepare func(*http.Request)) (int, string, http.Header) {
		req, err := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		prepare(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b), resp.Header
	}
	basic := func(key, secret string) func(*http.Request) {
		return func(r *http.Request) { r.SetBasicAuth(key, secret) }
	}
	for name, prepare := range map[string]func(*http.Request){
		"root, basic":   basic("AKIDROOT", "root-secret"),
		"ops, basic":    basic("AKIDOPS", "s"),
		"ops, signed":   func(r *http.Request) { signAs(t, r, "AKIDOPS", "s", nil) },
		"root, signed ": func(r *http.Request) { signAs(t, r, "AKIDROOT", "root-secret", nil) },
	} {
		if code, body, _ := get(prepare); code != 200 || !strings.Contains(body, "kura_build_info") {
			t.Errorf("%s: %d %.200s", name, code, body)
		}
	}
	invalid := `"__type":"com.amazon.coral.service#UnrecognizedClientException","message":"The security token included in the request is invalid."`
	for name, tc := range map[string]struct {
		prepare func(*http.Request)
		code    int
		body    string
	}{
		"no authorization": {func(*http.Request) {}, 401, `"__type":"com.amazon.coral.service#MissingAuthenticationTokenException","message":"Request is missing Authentication Token"`},
		"wrong secret":     {basic("AKIDOPS", "wrong"), 401, invalid},
		"unknown key":      {basic("AKIDWHO", "s"), 401, invalid},
		"wrong signature":  {func(r *http.Request) { signAs(t, r, "AKIDOPS", "wrong", nil) }, 401, "InvalidSignatureException"},
		"bob, basic":       {basic("AKIDBOB", "s"), 403, "AccessDeniedException"},
		"bob's text":       {basic("AKIDBOB", "s"), 403, kuraAdminDenied(iamARN("user", "bob"))},
		"nobody, signed":   {func(r *http.Request) { signAs(t, r, "AKIDNOBODY", "s", nil) }, 403, kuraAdminDenied(iamARN("user", "nobody"))},
	} {
		code, body, h := get(tc.prepare)
		if code != tc.code || !strings.Contains(body, tc.body) || strings.Contains(body, "kura_build_info") {
			t.Errorf("%s: %d %s\nwant %d with %s", name, code, body, tc.code, tc.body)
		}
		if challenge := h.Get("WWW-Authenticate"); (code == 401) != strings.HasPrefix(challenge, "Basic ") {
			t.Errorf("%s: %d with WWW-Authenticate %q", name, code, challenge)
		}
	}
}

// With --iam-file the checkpoint endpoint, served without --admin, needs
// kura:Admin like the admin endpoints.
func TestIAMCheckpoint(t *testing.T) {
	skipOnTiKV(t)
	dir := t.TempDir()
	k, _ := startIAMKura(t, "--data-dir", filepath.Join(dir, "data"), "--checkpoint-dir", filepath.Join(dir, "backups"))
	post := func(key, secret string) (int, string) {
		req, err := http.NewRequest("POST", k.endpoint+"/admin/checkpoint", nil)
		if err != nil {
			t.Fatal(err)
		}
		signAs(t, req, key, secret, nil)
		return do(t, req)
	}
	if code, body := post("AKIDBOB", "s"); code != 400 || !strings.Contains(body, "AccessDeniedException") ||
		!strings.Contains(body, kuraAdminDenied(iamARN("user", "bob"))) {
		t.Fatalf("bob: %d %s", code, body)
	}
	for _, key := range []string{"AKIDOPS", "AKIDROOT"} {
		secret := "s"
		if key == "AKIDROOT" {
			secret = "root-secret"
		}
		if code, body := post(key, secret); code != 200 || !strings.Contains(body, `"Path"`) {
			t.Fatalf("%s: %d %s", key, code, body)
		}
	}
}
