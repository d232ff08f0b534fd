//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package server

import "os"

// lockFile is a no-op here: Pebble's own LOCK file still keeps a second
// Kura off the store, without naming its process.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}

// raiseFileLimit: the open-file limit is not known here.
func raiseFileLimit() uint64 { return 0 }
