package test

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// kura --version describes the build and exits without serving.
func TestVersionFlag(t *testing.T) {
	out, err := exec.Command(kuraBin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "kura ") || !strings.Contains(string(out), " "+runtime.Version()+", TiKV backend ") {
		t.Fatalf("%v %q", err, out)
	}
}
