package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's Go example is a complete program: the same text as
// examples/quickstart/main.go, and it builds and runs (against the shared
// server instead of 127.0.0.1:8000).
func TestReadmeGoExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "\n```go\n")
	block, _, closed := strings.Cut(after, "```\n")
	if !ok || !closed {
		t.Fatal("README.md has no Go block")
	}
	prog, err := os.ReadFile("../examples/quickstart/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if block != string(prog) {
		t.Fatalf("README.md's Go block differs from examples/quickstart/main.go:\n%s", block)
	}
	const endpoint = `"http://127.0.0.1:8000"`
	if !strings.Contains(block, endpoint) {
		t.Fatalf("the example does not name %s", endpoint)
	}
	// A copy inside the module (for its go.mod) pointed at the shared server.
	dir, err := os.MkdirTemp(".", "readme-example-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := strings.Replace(block, endpoint, `"`+shared.endpoint+`"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "run", "./"+dir).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "tables: [") {
		t.Fatalf("go run: %v\n%s", err, out)
	}
}
