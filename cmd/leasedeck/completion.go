package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// runCompletion: leasedeck completion bash|zsh|fish. The scripts are
// generated from commandTable and each command's FlagSet, so a new command
// or flag completes without editing them.
func runCompletion(args []string, e *env) int {
	if len(args) != 1 {
		e.errorf("usage: leasedeck completion bash|zsh|fish")
		return exitUsage
	}
	words := completionWords()
	switch args[0] {
	case "bash":
		writeBashCompletion(e.stdout, words)
	case "zsh":
		fmt.Fprintln(e.stdout, "#compdef leasedeck")
		fmt.Fprintln(e.stdout, "autoload -U +X bashcompinit && bashcompinit")
		writeBashCompletion(e.stdout, words)
	case "fish":
		writeFishCompletion(e.stdout, words)
	default:
		e.errorf("completion: unknown shell %q (bash, zsh or fish)", args[0])
		return exitUsage
	}
	return exitOK
}

// completionWords maps each top-level word to what may follow it: the
// subcommands of journal, or a command's flags as --name.
func completionWords() map[string][]string {
	words := map[string][]string{}
	for i := range commandTable {
		c := &commandTable[i]
		top, sub, nested := strings.Cut(c.name, " ")
		if nested {
			words[top] = append(words[top], sub)
			words[c.name] = flagNames(flagSetOf(c))
			continue
		}
		words[top] = append(words[top], flagNames(flagSetOf(c))...)
	}
	words[""] = flagNames(flagSetOf(&cockpitCommand))
	return words
}

func flagNames(fs *flag.FlagSet) []string {
	var names []string
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	}
	sort.Strings(names)
	return names
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeBashCompletion(w io.Writer, words map[string][]string) {
	var tops []string
	for _, k := range sortedKeys(words) {
		if k != "" && !strings.Contains(k, " ") {
			tops = append(tops, k)
		}
	}
	fmt.Fprintln(w, "# bash completion for leasedeck (leasedeck completion bash)")
	fmt.Fprintln(w, "_leasedeck() {")
	fmt.Fprintln(w, `	local cur="${COMP_WORDS[COMP_CWORD]}" key="${COMP_WORDS[1]}" opts`)
	fmt.Fprintln(w, `	if [ "$COMP_CWORD" -ge 3 ] && [ "$key" = journal ]; then key="journal ${COMP_WORDS[2]}"; fi`)
	fmt.Fprintln(w, `	if [ "$COMP_CWORD" -eq 1 ]; then`)
	fmt.Fprintf(w, "\t\topts=%q\n", strings.Join(append(tops, words[""]...), " "))
	fmt.Fprintln(w, "\telse")
	fmt.Fprintln(w, `		case "$key" in`)
	for _, k := range sortedKeys(words) {
		if k == "" {
			continue
		}
		fmt.Fprintf(w, "\t\t%q) opts=%q ;;\n", k, strings.Join(words[k], " "))
	}
	fmt.Fprintln(w, `		*) opts="" ;;`)
	fmt.Fprintln(w, "\t\tesac")
	fmt.Fprintln(w, "\tfi")
	fmt.Fprintln(w, `	COMPREPLY=($(compgen -W "$opts" -- "$cur"))`)
	fmt.Fprintln(w, `	if [ ${#COMPREPLY[@]} -eq 0 ]; then COMPREPLY=($(compgen -f -- "$cur")); fi`)
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "complete -o default -F _leasedeck leasedeck")
}

func writeFishCompletion(w io.Writer, words map[string][]string) {
	fmt.Fprintln(w, "# fish completion for leasedeck (leasedeck completion fish)")
	for i := range commandTable {
		c := &commandTable[i]
		top, sub, nested := strings.Cut(c.name, " ")
		if nested {
			fmt.Fprintf(w, "complete -c leasedeck -f -n '__fish_seen_subcommand_from %s' -a %s -d %s\n", top, sub, fishQuote(c.summary))
		} else {
			fmt.Fprintf(w, "complete -c leasedeck -f -n __fish_use_subcommand -a %s -d %s\n", top, fishQuote(c.summary))
		}
		fs := flagSetOf(c)
		if fs == nil {
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(w, "complete -c leasedeck -n '__fish_seen_subcommand_from %s' -l %s -d %s\n", sub+map[bool]string{true: "", false: top}[nested], f.Name, fishQuote(f.Usage))
		})
	}
}

// fishQuote quotes s for fish: single quotes, with \ and ' escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
