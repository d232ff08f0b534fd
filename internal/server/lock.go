package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileName is the file in the data directory that a running Kura
// holds locked and that names its process.
const lockFileName = "kura.pid"

// errDirInUse is lockDataDir's answer when another process holds the lock.
var errDirInUse = errors.New("already in use by another Kura")

// dirLock is the lock a running server holds on its data directory.
type dirLock struct{ f *os.File }

// lockDataDir creates the data directory if needed and locks it for this
// process, writing the process ID into its lock file; when another Kura
// holds it, the error names that Kura's process ID. Pebble's own LOCK file
// guards each store as well; this one lets the refusal say who holds it,
// and covers the whole directory of per-credential databases.
func lockDataDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if err := lockFile(f); err != nil {
		defer f.Close()
		if !errors.Is(err, errDirInUse) {
			return nil, fmt.Errorf("data directory %s: locking %s: %w", dir, lockFileName, err)
		}
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return nil, fmt.Errorf("data directory %s is %w (pid %d): stop it, or give this one another --data-dir", dir, errDirInUse, pid)
		}
		return nil, fmt.Errorf("data directory %s is %w: stop it, or give this one another --data-dir", dir, errDirInUse)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		unlockFile(f)
		f.Close()
		return nil, fmt.Errorf("data directory %s: writing %s: %w", dir, lockFileName, err)
	}
	return &dirLock{f: f}, nil
}

// release unlocks the directory. The file stays: removing it could let
// two processes lock two different files of the same name.
func (l *dirLock) release() error {
	unlockFile(l.f)
	return l.f.Close()
}
