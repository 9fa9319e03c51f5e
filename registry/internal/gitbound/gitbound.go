// Package gitbound holds the bounds of the gate's reading of a git
// repository's objects (the commits walked, the tree and index entries
// visited, the time taken). The registry's code reads them; its tests
// lower them so a small repository passes them. Nothing outside the
// registry's own packages can change them, and nothing an agent writes
// is read to set them: a test build of the binary may carry other bounds
// in the binary itself (set at link time), the shipped binary carries
// none.
package gitbound

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Bounds are the bounds of one call's reading of git objects.
type Bounds struct {
	Commits int           // commits walked
	Entries int           // tree and index entries visited
	Time    time.Duration // wall time of one call's check
}

// Default are the bounds the shipped binary runs under.
var Default = Bounds{Commits: 20000, Entries: 500000, Time: 2 * time.Second}

var current atomic.Pointer[Bounds]

// linked is "COMMITS,ENTRIES" or "COMMITS,ENTRIES,DURATION" when a test
// build sets it at link time (go build -ldflags "-X ...gitbound.linked=50,5000");
// empty in the shipped binary.
var linked string

func init() {
	b := Default
	if linked != "" {
		var err error
		if b, err = parse(linked); err != nil {
			panic(fmt.Sprintf("gitbound: the bounds linked into this binary: %v", err))
		}
	}
	current.Store(&b)
}

// parse reads "COMMITS,ENTRIES[,DURATION]".
func parse(s string) (Bounds, error) {
	b := Default
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return b, fmt.Errorf("%q is not COMMITS,ENTRIES[,DURATION]", s)
	}
	var err error
	if b.Commits, err = strconv.Atoi(parts[0]); err != nil || b.Commits < 1 {
		return b, fmt.Errorf("commits %q is not a positive number", parts[0])
	}
	if b.Entries, err = strconv.Atoi(parts[1]); err != nil || b.Entries < 1 {
		return b, fmt.Errorf("entries %q is not a positive number", parts[1])
	}
	if len(parts) == 3 {
		if b.Time, err = time.ParseDuration(parts[2]); err != nil {
			return b, fmt.Errorf("time %q: %v", parts[2], err)
		}
	}
	return b, nil
}

// Current are the bounds in force.
func Current() Bounds { return *current.Load() }

// Set puts b in force until restore is called (tests).
func Set(b Bounds) (restore func()) {
	old := current.Swap(&b)
	return func() { current.Store(old) }
}
