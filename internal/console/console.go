package console

import (
	"embed"
	"encoding/json"
	"net/http"
	"path"
	"strings"
)

// Prefix is the path the console is served under.
const Prefix = "/console/"

//go:embed assets
var assets embed.FS

// Options configure the console.
type Options struct {
	// Region is the server's region: the console signs for it by default.
	// Empty: the server takes any region (a database per access key and
	// region), and the console asks for one at sign-in.
	Region string
	// Authentication tells the console that requests must be signed, so
	// it asks for an access key before anything else.
	Authentication bool
	// DatabasePerKey tells it that each access key and region has its own
	// database (--shared-db=false): it asks which one to show, and with
	// authentication off takes any secret.
	DatabasePerKey bool
	// Regions are the regions a server with --regions serves: the console
	// offers them in a picker and signs every request for the one picked
	// (Region, the home region, first).
	Regions []string
}

// settings is GET /console/settings.json.
type settings struct {
	Region         string   `json:"region"`
	Authentication bool     `json:"authentication"`
	DatabasePerKey bool     `json:"databasePerKey"`
	Regions        []string `json:"regions,omitempty"`
}

// contentTypes are the types of the files in assets/.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// policy lets the page load only its own files and talk only to its own
// server; it may not be framed.
const policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the console: GET or HEAD of /console (redirected to
// /console/), /console/ (the page), its files and settings.json.
func Handler(o Options) http.Handler {
	cfg, err := json.Marshal(settings(o))
	if err != nil {
		panic(err) // plain fields
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path+"/" == Prefix {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, Prefix)
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		if name == "" {
			name = "index.html"
		}
		var body []byte
		if name == "settings.json" {
			body = cfg
			h.Set("Content-Type", "application/json")
		} else {
			ctype, known := contentTypes[path.Ext(name)]
			if !known {
				http.NotFound(w, r)
				return
			}
			if body, err = assets.ReadFile("assets/" + name); err != nil {
				http.NotFound(w, r)
				return
			}
			h.Set("Content-Type", ctype)
		}
		h.Set("Content-Security-Policy", policy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}

// Serves reports whether path is the console's.
func Serves(path string) bool {
	return path+"/" == Prefix || strings.HasPrefix(path, Prefix)
}
