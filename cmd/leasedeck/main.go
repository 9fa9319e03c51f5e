// Command leasedeck is the terminal cockpit and registry for governing AI
// coding agents with signed, narrowing leases. This file only dispatches
// subcommands; the work lives in the packages.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/leasedeck/leasedeck/confine"
)

// Exit codes, the same for every subcommand (README, "Exit codes").
const (
	exitOK          = 0 // success or allow
	exitInvalid     = 1 // invalid input or failed verification
	exitUsage       = 2 // usage error
	exitRefused     = 3 // refused or denied
	exitUnreachable = 4 // registry unreachable
	exitHuman       = 5 // a human must decide (dry-run check)
)

// maxInput bounds every document read from a file or stdin. Manifests,
// leases and records are a few kilobytes; refusing a huge input early
// keeps a mistaken or hostile argument from costing memory.
const maxInput = 4 << 20

// env is what a subcommand may touch: its streams. current, helped and
// helpFlags carry a help request through parseFlags (see helpRequested).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	current        *command
	helped         bool
	helpFlags      *flag.FlagSet
}

func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "leasedeck: "+format+"\n", args...)
}

func main() {
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

func run(args []string, e *env) int {
	if len(args) > 0 && args[0] == confine.StageArg {
		confine.RunStage() // exits
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(args[1:], e)
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		usage(e.stdout)
		return exitOK
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		e.current = &cockpitCommand
		return finish(runCockpit(args, e), e)
	}
	cmd, n := lookupCommand(args)
	if cmd == nil && args[0] == "journal" {
		// `journal` alone or with an unknown subcommand: its own usage.
		return runJournal(args[1:], e.stdin, e.stdout, e.stderr)
	}
	if cmd == nil {
		e.errorf("unknown command %q (see 'leasedeck help')", args[0])
		return exitUsage
	}
	if cmd.name != "help" && wantsHelp(args[n:]) {
		return showHelp(cmd, e)
	}
	e.current = cmd
	return finish(cmd.run(args[n:], e), e)
}

// finish turns the usage failure a command returns after printing its help
// page into success: asking for help is not an error.
func finish(code int, e *env) int {
	if e.helped {
		return exitOK
	}
	return code
}

// parseFlags parses flags that may appear before, between or after
// positional arguments (`verify LEASE --key K` and `verify --key K LEASE`
// both work) and returns the positionals. A lone "-" is a positional
// (stdin). It returns ok=false after printing the problem on a usage error.
func parseFlags(fs *flag.FlagSet, args []string, e *env) ([]string, bool) {
	fs.SetOutput(e.stderr)
	fs.Usage = func() {} // -h prints the command's page (helpRequested); errors name the flag
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				helpRequested(fs, e)
			}
			return nil, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
		if rest[0] == "--" {
			pos = append(pos[:len(pos)-1], args...)
			return pos, true
		}
	}
}

// readInput reads a FILE argument ("-" or empty means stdin) with the
// size limit, naming the source in errors.
func readInput(name string, e *env) ([]byte, string, error) {
	var r io.Reader
	label := name
	if name == "" || name == "-" {
		r, label = e.stdin, "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, fmt.Errorf("cannot read %s: %w", name, unwrapPathErr(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, name, fmt.Errorf("cannot read %s: it is a directory", name)
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, label, fmt.Errorf("cannot read %s: %v", label, err)
	}
	if len(b) > maxInput {
		return nil, label, fmt.Errorf("%s is larger than the %d MiB input limit", label, maxInput>>20)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, label, fmt.Errorf("%s is empty: expected a JSON document", label)
	}
	return b, label, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
