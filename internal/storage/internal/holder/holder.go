// Package holder names the Kura server that holds a distributed backend's
// namespace lease (storage/tikv, storage/postgres): a random owner per
// store, the host and the process, and whether such a process still runs
// on this host. It keeps no state.
package holder

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"syscall"
)

// Record names one store's hold on a lease.
type Record struct {
	Owner string // random, per store
	Host  string
	PID   int
}

// Me is a new Record for a store of this process.
func Me() Record {
	host, _ := os.Hostname()
	var b [12]byte
	_, _ = rand.Read(b[:])
	return Record{Owner: hex.EncodeToString(b[:]), Host: host, PID: os.Getpid()}
}

// Alive reports whether a process with this ID runs on this host.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
