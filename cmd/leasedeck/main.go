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
	"sort"
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

type command struct {
	summary string
	run     func(args []string, env *env) int
}

// env is what a subcommand may touch: its streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "leasedeck: "+format+"\n", args...)
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"validate":    {"check a document against a contract schema", runValidate},
		"canon":       {"print the canonical bytes (RFC 8785) of a JSON document", runCanon},
		"narrow":      {"narrow a declared manifest against a parent grant (SPEC §5)", runNarrow},
		"verify":      {"verify a signed lease: schema, signature, rules L1 and L2", runVerify},
		"conformance": {"run the Agent Lease conformance corpus and print the report", runConformance},
		"init":        {"create .leasedeck/ (policy, agents, key, journal, operator token)", runInit},
		"serve":       {"run the registry headless on .leasedeck/registry.sock", runServe},
		"status":      {"show the running registry's status", runStatus},
		"issue":       {"present a manifest to the registry (optionally under --parent)", runIssue},
		"leases":      {"list leases and refusals", runLeases},
		"check":       {"dry-run the gate for a tool call (0 allow, 3 deny, 5 a human must decide)", runCheck},
		"revoke":      {"revoke a lease and its whole subtree", runRevoke},
		"approvals":   {"list pending approval requests", runApprovals},
		"approve":     {"approve a pending request (--for-lease to remember it)", runDecide("approve")},
		"deny":        {"deny a pending request with a reason", runDecide("deny")},
		"demo":        {"the cockpit with a simulated fleet of agents, in a temporary workspace", runDemo},
		"bridge":      {"answer one lifecycle request (stdin → stdout JSON) through the registry", runBridge},
		"hook":        {"answer a client's native hook (claude-code, codex, gemini, vscode)", runHook},
		"install":     {"write or merge a client's hook configuration", runInstall},
		"run":         {"run a client confined by its session lease (Landlock, egress proxy, revocation)", runRun},
		"journal":     {"verify the journal offline, or tail it (--follow, --json)", func(args []string, e *env) int { return runJournal(args, e.stdin, e.stdout, e.stderr) }},
		"help":        {"show this help", nil},
	}
}

func main() {
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

func run(args []string, e *env) int {
	if len(args) > 0 && args[0] == confine.StageArg {
		confine.RunStage() // exits
	}
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help") {
		return runCockpit(args, e)
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		usage(e.stdout)
		return exitOK
	}
	cmd, ok := commands[name]
	if !ok || cmd.run == nil {
		e.errorf("unknown command %q (see 'leasedeck help')", name)
		return exitUsage
	}
	return cmd.run(args[1:], e)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: leasedeck <command> [arguments]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "exit codes: 0 ok/allow, 1 invalid input or failed verification, 2 usage,")
	fmt.Fprintln(w, "            3 refused/denied, 4 registry unreachable, 5 a human must decide")
}

// parseFlags parses flags that may appear before, between or after
// positional arguments (`verify LEASE --key K` and `verify --key K LEASE`
// both work) and returns the positionals. A lone "-" is a positional
// (stdin). It returns ok=false after printing the problem on a usage error.
func parseFlags(fs *flag.FlagSet, args []string, e *env) ([]string, bool) {
	fs.SetOutput(e.stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, false
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
