package test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// getConsole fetches a console path from k: its status, Content-Type and
// body.
func getConsole(t *testing.T, k *kura, path string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(k.endpoint + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// The web console is served by default, tells its script how the server
// is set up, and is gone with --console=false. Its script is exercised
// against Kura by test/clients/js/console.test.js.
func TestConsole(t *testing.T) {
	k := startKura(t, "--in-memory", "--region", "eu-west-2", "--credentials", "AKIDKURA:kura-secret")
	code, ctype, page := getConsole(t, k, "/console/")
	if code != 200 || ctype != "text/html; charset=utf-8" || !strings.Contains(page, `<script type="module" src="console.js">`) {
		t.Fatalf("/console/: %d %q\n%s", code, ctype, page)
	}
	settings := func(k *kura) map[string]any {
		code, ctype, body := getConsole(t, k, "/console/settings.json")
		var s map[string]any
		if code != 200 || ctype != "application/json" || json.Unmarshal([]byte(body), &s) != nil {
			t.Fatalf("settings.json: %d %q %s", code, ctype, body)
		}
		return s
	}
	if s := settings(k); s["region"] != "eu-west-2" || s["authentication"] != true || s["databasePerKey"] != false {
		t.Fatalf("settings: %v", s)
	}
	// The page itself needs no key; the data does (the script signs).
	if typ, _ := rawCall(t, k, "ListTables", `{}`); typ != "MissingAuthenticationTokenException" {
		t.Fatalf("an unsigned request: %s", typ)
	}

	perKey := startKura(t, "--in-memory", "--shared-db=false")
	if s := settings(perKey); s["region"] != "" || s["authentication"] != false || s["databasePerKey"] != true {
		t.Fatalf("settings with --shared-db=false: %v", s)
	}

	off := startKura(t, "--in-memory", "--console=false")
	if code, _, _ := getConsole(t, off, "/console/"); code != http.StatusNotFound {
		t.Fatalf("--console=false: /console/ answered %d", code)
	}
	if code, _, body := getConsole(t, off, "/"); code != 200 || !strings.HasPrefix(body, "healthy: ") {
		t.Fatalf("health check: %d %q", code, body)
	}
}
