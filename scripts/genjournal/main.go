// Command genjournal writes a large, valid leasedeck journal for the
// start-up benchmarks: DIR/journal/{leases,audit}.jsonl and DIR/key (the
// deployment key, hex), so that `leasedeck journal verify DIR/journal`
// checks it and the benchmarks open it.
//
//	go run ./scripts/genjournal [-lines 1000000] [-leases N] [-seed 1] DIR
package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
)

func main() {
	lines := flag.Int("lines", 1_000_000, "about how many journal lines to write")
	leases := flag.Int("leases", 0, "how many leases and refusals (default lines/200)")
	seed := flag.Int64("seed", 1, "the same seed writes the same shape")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/genjournal [-lines N] [-leases N] [-seed S] DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), journalgen.Options{Lines: *lines, Leases: *leases, Seed: *seed}); err != nil {
		fmt.Fprintln(os.Stderr, "genjournal:", err)
		os.Exit(1)
	}
}

func run(dir string, opt journalgen.Options) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	kb, err := registry.NewRandomKey()
	if err != nil {
		return err
	}
	key, err := registry.NewKey(kb, false)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "key"), []byte(hex.EncodeToString(kb)+"\n"), 0o600); err != nil {
		return err
	}
	start := time.Now()
	st, err := journalgen.Generate(filepath.Join(dir, "journal"), key, opt)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d lease lines, %d audit lines; %d leases (%d refused, %d closed, %d open) in %s\n",
		dir, st.LeaseLines, st.AuditLines, st.Leases, st.Refusals, st.Closed, st.Open, time.Since(start).Round(time.Millisecond))
	return nil
}
