package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is the unit of /proc/PID/stat's CPU times (USER_HZ, 100 on
// every Linux architecture Go runs on).
const clockTicks = 100

// procCounters reads what a process has used so far, over all its
// threads: CPU time (user + system, seconds) and context switches
// (voluntary and not). ok is false where it cannot be read.
func procCounters(pid int) (cpu float64, switches int64, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// Fields count from the last ')': comm may hold spaces.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return 0, 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	tasks, err := filepath.Glob(dir + "/task/*/status")
	if err != nil || len(tasks) == 0 {
		return 0, 0, false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		for _, line := range strings.Split(string(b), "\n") {
			name, val, found := strings.Cut(line, ":")
			if found && (name == "voluntary_ctxt_switches" || name == "nonvoluntary_ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
				switches += n
			}
		}
	}
	return float64(utime+stime) / clockTicks, switches, true
}
