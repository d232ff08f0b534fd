package console

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, path string) *http.Response {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandler(t *testing.T) {
	h := Handler(Options{Region: "eu-west-2", Authentication: true})

	r := get(t, h, "GET", "/console/")
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body(t, r), "<title>Kura console</title>") {
		t.Fatalf("the page: %d %v", r.StatusCode, r.Header)
	}
	for name, want := range map[string]string{
		"Content-Security-Policy": policy,
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "no-referrer",
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for path, ctype := range map[string]string{
		"/console/console.js": "text/javascript; charset=utf-8", "/console/sigv4.js": "text/javascript; charset=utf-8",
		"/console/dynamodb.js": "text/javascript; charset=utf-8", "/console/console.css": "text/css; charset=utf-8",
		"/console/index.html": "text/html; charset=utf-8", "/console/favicon.svg": "image/svg+xml",
	} {
		if r := get(t, h, "GET", path); r.StatusCode != 200 || r.Header.Get("Content-Type") != ctype {
			t.Errorf("%s: %d %q", path, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}

	r = get(t, h, "GET", "/console/settings.json")
	var s settings
	if err := json.Unmarshal([]byte(body(t, r)), &s); err != nil || !reflect.DeepEqual(s, settings{Region: "eu-west-2", Authentication: true}) {
		t.Fatalf("settings: %+v %v", s, err)
	}

	if r := get(t, h, "GET", "/console"); r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/console/" {
		t.Fatalf("/console: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	for _, path := range []string{"/console/console.go", "/console/missing.js", "/console/assets/console.js", "/console/../console.go", "/elsewhere"} {
		if r := get(t, h, "GET", path); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, r.StatusCode)
		}
	}
	if r := get(t, h, "HEAD", "/console/"); r.StatusCode != 200 || body(t, r) != "" {
		t.Errorf("HEAD: %d", r.StatusCode)
	}
	if r := get(t, h, "POST", "/console/"); r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %q", r.StatusCode, r.Header.Get("Allow"))
	}
}

func TestServes(t *testing.T) {
	for path, want := range map[string]bool{"/console": true, "/console/": true, "/console/x.js": true, "/": false, "/consoles": false, "/admin/x": false} {
		if Serves(path) != want {
			t.Errorf("Serves(%q) = %v", path, !want)
		}
	}
}

// The page and its script must agree: every file the page loads is
// served, every module the scripts import is, and every element the
// script looks up by id is on the page.
func TestAssetsAgree(t *testing.T) {
	page, err := assets.ReadFile("assets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(string(page), -1) {
		files = append(files, m[1])
	}
	scripts, err := fs.Glob(assets, "assets/*.js")
	if err != nil {
		t.Fatal(err)
	}
	var script []byte
	for _, name := range scripts {
		js, err := assets.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		script = append(script, js...)
		for _, m := range regexp.MustCompile(`from "\./([^"]+)"`).FindAllStringSubmatch(string(js), -1) {
			files = append(files, m[1])
		}
	}
	if len(files) < 8 {
		t.Fatalf("found only %v", files)
	}
	h := Handler(Options{})
	for _, f := range files {
		if r := get(t, h, "GET", Prefix+f); r.StatusCode != 200 {
			t.Errorf("%s is loaded but answers %d", f, r.StatusCode)
		}
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(string(page), -1) {
		ids[m[1]] = true
	}
	var used []string
	for _, m := range regexp.MustCompile(`\$\("([^"]+)"\)`).FindAllStringSubmatch(string(script), -1) {
		used = append(used, m[1])
	}
	for _, m := range regexp.MustCompile(`data-tab="([^"]+)"`).FindAllStringSubmatch(string(page), -1) {
		used = append(used, "tab-"+m[1]) // $("tab-" + b.dataset.tab)
	}
	if len(used) < 20 {
		t.Fatalf("found only %v", used)
	}
	for _, id := range used {
		if !ids[id] {
			t.Errorf("a script looks up #%s, which the page does not have", id)
		}
	}
}
