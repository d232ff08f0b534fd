// Command fsynccost measures what a durable commit's fdatasync costs on the
// filesystem under a directory: CPU time (user + system, of this process)
// and wall time per round of --writes appends of --size bytes followed by
// one fdatasync, for a file that grows (each sync also commits the
// filesystem's journal), a file fallocate'd ahead with KEEP_SIZE (what
// Pebble does for a new write-ahead log) and a file whose blocks were
// written beforehand (a recycled log, or Kura's WAL spare). It is a
// benchmark tool, not part of the server; Linux only.
//
//	go run ./bench/fsynccost --dir /path/on/the/data/disk --rounds 2000
//go:build linux

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	dir := flag.String("dir", os.TempDir(), "directory on the filesystem to measure")
	rounds := flag.Int("rounds", 2000, "rounds of writes + fdatasync per kind")
	writes := flag.Int("writes", 9, "appends per round (durable commits sharing one fdatasync)")
	size := flag.Int("size", 1100, "bytes per append (a 1 KB item's WAL record)")
	repeats := flag.Int("repeats", 2, "times to measure each kind, interleaved")
	flag.Parse()

	path := filepath.Join(*dir, "fsynccost.tmp")
	defer os.Remove(path)
	total := int64(*rounds) * int64(*writes) * int64(*size)
	kinds := []struct {
		name string
		prep func(f *os.File) error
	}{
		{"append", func(*os.File) error { return nil }},
		{"fallocate-keep-size", func(f *os.File) error {
			return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, total)
		}},
		{"prewritten", func(f *os.File) error {
			if _, err := f.Write(make([]byte, total)); err != nil {
				return err
			}
			return unix.Fdatasync(int(f.Fd()))
		}},
	}
	fmt.Printf("%d rounds of %d x %d-byte appends + fdatasync, in %s\n", *rounds, *writes, *size, *dir)
	for r := 0; r < *repeats; r++ {
		for _, k := range kinds {
			cpu, wall, err := measure(path, k.prep, *rounds, *writes, *size)
			if err != nil {
				fmt.Fprintln(os.Stderr, k.name+":", err)
				os.Exit(1)
			}
			fmt.Printf("%-20s cpu/round=%-10v wall/round=%v\n", k.name, cpu, wall)
		}
	}
}

// measure creates path, prepares it, and times the rounds.
func measure(path string, prep func(*os.File) error, rounds, writes, size int) (cpu, wall time.Duration, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if err := prep(f); err != nil {
		return 0, 0, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return 0, 0, err
	}
	buf := make([]byte, size)
	c0, t0 := cpuTime(), time.Now()
	for i := 0; i < rounds; i++ {
		for j := 0; j < writes; j++ {
			if _, err := f.Write(buf); err != nil {
				return 0, 0, err
			}
		}
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return 0, 0, err
		}
	}
	n := time.Duration(rounds)
	return (cpuTime() - c0) / n, time.Since(t0) / n, nil
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
