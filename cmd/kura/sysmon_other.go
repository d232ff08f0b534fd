//go:build !linux

package main

import (
	"errors"
	"time"
)

// relaxSysmon is Linux-only (see sysmon_linux.go).
func relaxSysmon(time.Duration) error { return errors.New("timer slack is Linux-only") }
