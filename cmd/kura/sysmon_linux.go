package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// relaxSysmon sets the timer slack of the Go runtime's monitor thread
// (sysmon) to slack.
//
// Sysmon polls every 20 µs whenever the process has just woken from all
// its goroutines being idle, doubling the interval only after a millisecond
// without work for it. A server whose requests wait for fsyncs goes idle
// and wakes hundreds of times a second, so sysmon never slows down: its
// nanosleeps were 10–13% of Kura's CPU under durable writes (perf, see
// BENCHMARKS.md). With a slack the kernel may let each of those sleeps run
// up to slack longer, so sysmon wakes at most about once per slack. What
// sysmon does then comes that much later: handing the scheduler slot of a
// goroutine blocked in a system call to another thread (the other
// processors still steal its queued goroutines meanwhile) and preempting
// goroutines that ran for 10 ms.
//
// Sysmon is the first thread the runtime starts after the main thread
// (runtime.main, before any package is initialised), so it has the lowest
// thread ID above the process ID. Setting another thread's slack needs
// CAP_SYS_NICE; without it this returns the error and nothing changes.
func relaxSysmon(slack time.Duration) error {
	pid := os.Getpid()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	sysmon := 0
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil || tid <= pid {
			continue
		}
		if sysmon == 0 || tid < sysmon {
			sysmon = tid
		}
	}
	if sysmon == 0 {
		return errors.New("no runtime monitor thread found")
	}
	return os.WriteFile(sysmonSlackPath(sysmon), []byte(strconv.FormatInt(slack.Nanoseconds(), 10)), 0)
}

// sysmonSlackPath is a thread's timer slack file (per thread under
// /proc/<tid>, not under /proc/self/task/<tid>).
func sysmonSlackPath(tid int) string { return fmt.Sprintf("/proc/%d/timerslack_ns", tid) }
