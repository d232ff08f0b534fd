package api

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/wire"
)

// TestCompatibilityPageIsTrue checks docs/compatibility.md against the
// server's routing tables and the SDK's operation list.
func TestCompatibilityPageIsTrue(t *testing.T) {
	f, err := os.Open("../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	status := map[string]string{}
	sc := bufio.NewScanner(f)
	s3 := false // the S3 API's section is internal/s3api's (its own test)
	for sc.Scan() {
		if h, ok := strings.CutPrefix(sc.Text(), "## "); ok {
			s3 = h == "S3 API"
		}
		if s3 {
			continue
		}
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 4 || strings.TrimSpace(cells[1]) == "operation" || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		op, st := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		if _, dup := status[op]; dup {
			t.Errorf("%s listed twice", op)
		}
		status[op] = st
	}
	routed := map[string]bool{}
	for op := range routes {
		routed[op] = true
	}
	for op := range streamsRoutes {
		routed[op] = true
	}
	for _, op := range wire.Operations {
		if _, ok := status[op]; !ok {
			t.Errorf("SDK operation %s is missing from the compatibility page", op)
		}
	}
	var ops []string
	for op := range status {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		switch st := status[op]; {
		case st == "supported" && !routed[op]:
			t.Errorf("%s is marked supported but the server does not route it", op)
		case st != "supported" && routed[op]:
			t.Errorf("%s is routed but marked %q", op, st)
		}
	}
	for op := range routed {
		if _, ok := status[op]; !ok {
			t.Errorf("routed operation %s is missing from the page", op)
		}
	}
}
