package server

import (
	"bytes"
	"os"
	"strconv"
)

// userHZ is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Go supports.
const userHZ = 100

// processStats reads the process's CPU time (user and system) and
// resident memory from /proc/self/stat.
func processStats() (cpuSeconds float64, rssBytes int64, ok bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields counted from 3 follow its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 22 {
		return 0, 0, false
	}
	// Fields 14 (utime), 15 (stime) and 24 (rss, in pages) of stat(5),
	// here at 11, 12 and 21.
	utime, err1 := strconv.ParseUint(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseUint(string(f[12]), 10, 64)
	rss, err3 := strconv.ParseInt(string(f[21]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false
	}
	return float64(utime+stime) / userHZ, rss * int64(os.Getpagesize()), true
}
