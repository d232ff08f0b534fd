package main

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRelaxSysmon(t *testing.T) {
	err := relaxSysmon(1500 * time.Microsecond)
	if errors.Is(err, os.ErrPermission) {
		t.Skip("no CAP_SYS_NICE here:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The slack landed on exactly one thread: the runtime's first after
	// the main thread.
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var relaxed []string
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + task.Name() + "/timerslack_ns")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(b)) == "1500000" {
			relaxed = append(relaxed, task.Name())
		}
	}
	if len(relaxed) != 1 {
		t.Fatalf("threads with the new slack: %v, want one", relaxed)
	}
}
