package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one row of commandTable: what `help` prints and what runs.
type command struct {
	name     string      // "revoke", or "journal tail" for a journal subcommand
	synopsis string      // after "leasedeck "
	summary  string      // one line, for the list of commands
	args     [][2]string // positional arguments: name, meaning
	examples []string    // two or three complete command lines
	exits    string      // the exit codes this command uses
	run      func(args []string, e *env) int
}

// lookupCommand finds the table row for args: "journal tail" from
// ["journal", "tail", ...] before "journal". It returns how many words
// named the command.
func lookupCommand(args []string) (*command, int) {
	if len(args) >= 2 {
		if c := commandNamed(args[0] + " " + args[1]); c != nil {
			return c, 2
		}
	}
	if len(args) >= 1 {
		if c := commandNamed(args[0]); c != nil {
			return c, 1
		}
	}
	return nil, 0
}

func commandNamed(name string) *command {
	for i := range commandTable {
		if commandTable[i].name == name {
			return &commandTable[i]
		}
	}
	return nil
}

// wantsHelp reports whether args ask for help (-h, -help, --help) before
// any "--", which ends the flags.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// showHelp prints c's help to stdout. Commands parse their flags in their
// own FlagSet, so help runs the command with --help and parseFlags prints
// the page from the FlagSet it was given: the flags shown are exactly the
// flags parsed.
func showHelp(c *command, e *env) int {
	if c.run == nil || c.name == "help" || c.name == "version" || c.name == "completion" {
		printCommandHelp(e.stdout, c, nil)
		return exitOK
	}
	probe := &env{stdin: strings.NewReader(""), stdout: e.stdout, stderr: io.Discard, current: c}
	c.run([]string{"--help", "--"}, probe)
	if !probe.helped {
		// A command that does not route its flags through parseFlags would
		// have run instead; the help test catches that, and this says so.
		e.errorf("%s: no help available", c.name)
		return exitInvalid
	}
	return exitOK
}

// flagSetOf returns the FlagSet c parses, by asking it for help with the
// output thrown away; nil for a command without flags.
func flagSetOf(c *command) *flag.FlagSet {
	if c.run == nil || c.name == "help" || c.name == "version" || c.name == "completion" {
		return nil
	}
	probe := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, current: c}
	c.run([]string{"--help", "--"}, probe)
	return probe.helpFlags
}

// helpRequested is parseFlags' answer to -h: print the page, remember the
// FlagSet, and silence the usage line the caller prints on a parse
// failure, so `CMD -h` is the help page on stdout and exit 0.
func helpRequested(fs *flag.FlagSet, e *env) {
	e.helped, e.helpFlags = true, fs
	if e.current != nil {
		printCommandHelp(e.stdout, e.current, fs)
	}
	e.stderr = io.Discard
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: leasedeck %s\n\n%s\n", c.synopsis, c.summary)
	if len(c.args) > 0 {
		fmt.Fprintln(w, "\nArguments:")
		for _, a := range c.args {
			fmt.Fprintf(w, "  %-18s %s\n", a[0], a[1])
		}
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nFlags (one or two dashes):")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, x := range c.examples {
		fmt.Fprintf(w, "  %s\n", x)
	}
	fmt.Fprintf(w, "\nExit codes: %s\n", c.exits)
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// runHelp: leasedeck help [COMMAND]
func runHelp(args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stdout)
		return exitOK
	}
	if wantsHelp(args) {
		return showHelp(commandNamed("help"), e)
	}
	c, n := lookupCommand(args)
	if c == nil || n != len(args) {
		if args[0] == "journal" && len(args) == 1 {
			usage(e.stdout)
			return exitOK
		}
		e.errorf("help: unknown command %q (see 'leasedeck help')", strings.Join(args, " "))
		return exitUsage
	}
	return showHelp(c, e)
}

// runVersion: leasedeck version (also --version)
func runVersion(args []string, e *env) int {
	if len(args) != 0 {
		e.errorf("usage: leasedeck version")
		return exitUsage
	}
	fmt.Fprintf(e.stdout, "leasedeck %s\n", buildVersion())
	return exitOK
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: leasedeck [--readonly] [--workspace DIR]   the cockpit")
	fmt.Fprintln(w, "       leasedeck <command> [arguments]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commandTable {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nExamples:")
	fmt.Fprintln(w, "  leasedeck help revoke")
	fmt.Fprintln(w, "  leasedeck revoke -h")
	fmt.Fprintln(w, "\nExit codes: 0 ok/allow, 1 invalid input or failed verification, 2 usage,")
	fmt.Fprintln(w, "            3 refused/denied, 4 registry unreachable, 5 a human must decide,")
	fmt.Fprintln(w, "            6 run: the lease ended (each command's help lists its own)")
}
