// Command leasedeck-hook is leasedeck's hook alone: the same words as
// `leasedeck hook` (leasedeck-hook hook CLIENT --workspace DIR --timeout
// S), the same code (package hookrun), none of the cockpit. A command hook
// starts a process for every tool call; this binary links only the hook
// path (no net, no cgo, no shell parser, no terminal UI), so it starts in
// about the time any Go program does.
//
// Exit codes: the client's own convention for a hook (0 with a JSON
// decision, 2 to block with the reason on stderr, which is also the answer
// to a payload whose event cannot be told; 1 only for Copilot CLI's, which
// blocks on it), and 2 with a usage line when the command line itself is
// wrong (not "hook CLIENT ...", an unknown client or flag).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/hookrun"
)

// exitUsage is leasedeck's usage error, the same as `leasedeck hook`'s.
const exitUsage = 2

func main() {
	os.Exit(run(os.Args[1:], hookrun.Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
}

func run(args []string, s hookrun.Streams) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(s.Stderr, "leasedeck-hook: "+format+"\n", a...)
		fmt.Fprintf(s.Stderr, "usage: leasedeck-hook hook %s --workspace DIR [--timeout SECONDS] < payload.json\n", strings.Join(bridge.Clients(), "|"))
		return exitUsage
	}
	if len(args) == 0 || args[0] != "hook" {
		first := ""
		if len(args) > 0 {
			first = args[0]
		}
		return usage("%q is not a command of this binary: it runs only leasedeck's hooks (the rest is 'leasedeck')", first)
	}
	inv, err := parse(args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage("runs one client hook: the client's payload on stdin, its answer on stdout, stderr and the exit code")
			return 0
		}
		return usage("%v", err)
	}
	code, err := hookrun.Run(inv, s)
	if err != nil {
		return usage("%v", err)
	}
	return code
}

// parse reads `CLIENT [--workspace DIR] [--timeout S]`, flags before or
// after the client, as `leasedeck hook` does.
func parse(args []string) (hookrun.Invocation, error) {
	var inv hookrun.Invocation
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	inv.Flags(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return inv, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			pos = append(pos, rest[1:]...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) != 1 {
		return inv, fmt.Errorf("expected one client, got %d arguments", len(pos))
	}
	inv.Client = pos[0]
	return inv, nil
}
