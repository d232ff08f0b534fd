// Command startup measures a server's start-to-first-answer time (fork/exec
// until GET / answers 200) and its resident memory after it has been idle,
// over several runs. It is a benchmark tool, not part of the server.
//
//	go run ./bench/startup --runs 10 -- /tmp/kura --in-memory --listen 127.0.0.1:8399
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 10, "number of starts")
	url := flag.String("url", "", "URL to poll (default http://<--listen>/)")
	idle := flag.Duration("idle", 2*time.Second, "idle time before reading RSS")
	label := flag.String("label", "", "label written into the JSON line")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: startup [flags] -- server args...")
		os.Exit(2)
	}
	if *url == "" {
		for i, a := range args {
			if a == "--listen" && i+1 < len(args) {
				*url = "http://" + args[i+1] + "/"
			}
		}
	}
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var starts []float64
	var rss []int
	for r := 0; r < *runs; r++ {
		cmd := exec.Command(args[0], args[1:]...)
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var d time.Duration
		for {
			resp, err := client.Get(*url)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					d = time.Since(t0)
					break
				}
			}
			if time.Since(t0) > 10*time.Second {
				fmt.Fprintln(os.Stderr, "no answer within 10s")
				cmd.Process.Kill()
				os.Exit(1)
			}
			time.Sleep(200 * time.Microsecond)
		}
		time.Sleep(*idle)
		rss = append(rss, vmRSS(cmd.Process.Pid))
		starts = append(starts, float64(d.Microseconds())/1000)
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	slices.Sort(starts)
	slices.Sort(rss)
	out := map[string]any{
		"label": *label, "cmd": strings.Join(args, " "), "runs": *runs,
		"start_ms_median": starts[len(starts)/2], "start_ms_min": starts[0], "start_ms_max": starts[len(starts)-1],
		"idle_rss_kb_median": rss[len(rss)/2], "idle_rss_kb_max": rss[len(rss)-1],
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// vmRSS reads VmRSS (KB) of pid.
func vmRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d", &kb)
			return kb
		}
	}
	return -1
}
