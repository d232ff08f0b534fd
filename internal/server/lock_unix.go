//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package server

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting: errDirInUse when
// another open file (another process) holds one. A flock belongs to the
// open file, so no other descriptor this process opens or closes on the
// same file releases it (unlike fcntl locks).
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errDirInUse
	}
	return err
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// raiseFileLimit raises the soft limit on open files to the hard limit
// (Go's runtime does too, since Go 1.19, on most Unix systems; this states
// it and reads the result) and returns the limit in force; 0 if unknown.
func raiseFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	if l.Cur < l.Max {
		raised := l
		raised.Cur = raised.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			l = raised
		}
	}
	return uint64(l.Cur)
}
