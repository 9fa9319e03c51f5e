package resources

//go:generate go run ./internal/gitoptsgen -o gitopts_table.go

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// git's parse-options takes any unambiguous prefix of a long option for
// that option (--upl is --upload-pack, --har is --hard), and a negation
// of one (--no-ver is --no-verify). The gate reads a subcommand's long
// options the same way, against the table generated from git itself
// (gitopts_table.go), before any model or refusal list looks at them.

// Some subcommands hand the options they do not know to git's revision
// and diff parsers, which match names exactly; an unknown name is passed
// on as given there (git refuses what neither knows).
//
// gitExactOnly parse their own options keeping unknown ones (log, diff,
// cherry-pick, format-patch, bundle create …): git takes no abbreviation
// of a positive option there, only of a negation (--no-dec is
// ambiguous). A name that is a prefix of their options but not one of
// them is refused (git would refuse it today; a newer git might read it),
// except the revision options named in gitRevisionPrefixes.
//
// gitAbbrevThenForward abbreviate their own options as parse-options
// does and hand the rest on (blame, shortlog, stash show).
//
// Every other subcommand in the table refuses a name it does not hold: a
// newer git may have options the table does not, and the gate does not
// guess what they do.
var (
	gitExactOnly = map[string]bool{
		"log": true, "show": true, "whatchanged": true, "reflog": true, "rev-list": true, "diff": true,
		"diff-tree": true, "diff-files": true, "diff-index": true, "cherry-pick": true, "revert": true,
		"format-patch": true, "difftool": true, "bundle": true,
	}
	gitAbbrevThenForward = map[string]bool{"blame": true, "annotate": true, "shortlog": true, "stash": true}
	// gitRevisionPrefixes are revision options that are a prefix of a
	// table option (--skip of --skip-to).
	gitRevisionPrefixes = map[string]bool{"skip": true}
)

// gitOptTable is one subcommand's long options: every name git accepts
// given exactly (with the --no- forms), true for one that takes a value
// (attached with = or in the next word), and the same names sorted for
// the prefix search, which runs only when the exact lookup misses.
type gitOptTable struct {
	names  map[string]bool
	sorted []string
}

var gitOptTables = sync.OnceValue(func() map[string]*gitOptTable {
	tables := make(map[string]*gitOptTable, len(gitOptsText))
	for sub, text := range gitOptsText {
		if text == "" {
			continue
		}
		t := &gitOptTable{names: map[string]bool{}}
		for _, f := range strings.Fields(text) {
			name, takesValue := strings.CutSuffix(f, "=")
			t.names[name] = takesValue
		}
		for n := range t.names {
			t.sorted = append(t.sorted, n)
		}
		slices.Sort(t.sorted)
		tables[sub] = t
	}
	return tables
})

// gitAlias is the option an alias stands for (clone --recursive is
// --recurse-submodules, --no-recursive is --no-recurse-submodules).
func gitAlias(sub, name string) string {
	if target, ok := gitOptAliases[sub+" "+name]; ok {
		return target
	}
	if rest, ok := strings.CutPrefix(name, "no-"); ok {
		if target, ok := gitOptAliases[sub+" "+rest]; ok {
			return "no-" + target
		}
	}
	return name
}

// gitLongOpt reads the long option name (without its dashes and =value)
// given to git sub as git does: full is the option git takes it for; why,
// when not empty, is the reason the gate refuses it. A subcommand without
// a table (git matches its options by hand, exactly) keeps the name.
func gitLongOpt(sub, name string) (full, why string) {
	t := gitOptTables()[sub]
	if t == nil || name == "help" {
		return name, ""
	}
	if _, ok := t.names[name]; ok {
		return gitAlias(sub, name), ""
	}
	if gitExactOnly[sub] {
		return gitExactOnlyOpt(t, sub, name)
	}
	cands := t.prefixed(sub, name)
	switch {
	case len(cands) == 1:
		return cands[0], ""
	case len(cands) == 0 && gitAbbrevThenForward[sub]:
		return name, ""
	case len(cands) == 0:
		return "", fmt.Sprintf("git %s --%s is not an option the gate knows (it knows the options of %s), and git runs programs", sub, name, gitOptsVersion)
	}
	return "", gitAmbiguous(sub, name, cands)
}

// gitExactOnlyOpt reads a name given to a subcommand that abbreviates
// only negations (see gitExactOnly).
func gitExactOnlyOpt(t *gitOptTable, sub, name string) (full, why string) {
	cands := t.prefixed(sub, name)
	switch {
	case len(cands) == 0 || gitRevisionPrefixes[name]:
		return name, ""
	case strings.HasPrefix(name, "no-") && len(cands) == 1:
		return cands[0], ""
	case strings.HasPrefix(name, "no-"):
		return "", gitAmbiguous(sub, name, cands)
	}
	return "", fmt.Sprintf("git %s --%s abbreviates --%s, which this git refuses and another may not; spell options out", sub, name, strings.Join(cands, " or --"))
}

func gitAmbiguous(sub, name string, cands []string) string {
	return fmt.Sprintf("git %s --%s is ambiguous (git would refuse it or read it as one of --%s); spell options out", sub, name, strings.Join(cands, ", --"))
}

// prefixed are the options name is a prefix of, aliases counted once.
func (t *gitOptTable) prefixed(sub, name string) []string {
	var out []string
	i, _ := slices.BinarySearch(t.sorted, name)
	for ; i < len(t.sorted) && strings.HasPrefix(t.sorted[i], name); i++ {
		if full := gitAlias(sub, t.sorted[i]); !slices.Contains(out, full) {
			out = append(out, full)
		}
	}
	return out
}

// gitLong splits the long option word s given to prog ("git clone") into
// the option git reads it as and its attached value, and refuses it when
// git would run a program or reach a host the gate cannot check, when it
// is ambiguous or unknown, or when it ends git's options
// (--end-of-options, after which git takes words starting with - as
// operands).
func (a *analyzer) gitLong(prog, s string) (name, val string, hasVal, ok bool) {
	given, val, hasVal := strings.Cut(s[2:], "=")
	if given == "end-of-options" {
		a.failf("refused: %s --end-of-options: git takes the words after it as operands, which the gate does not model", prog)
		return "", "", false, false
	}
	name, why := gitLongOpt(strings.TrimPrefix(prog, "git "), given)
	if why != "" {
		a.failf("refused: %s", why)
		return "", "", false, false
	}
	readAs := ""
	if name != given {
		readAs = fmt.Sprintf(" (git reads --%s as --%s)", given, name)
	}
	if why := gitRefused[name]; why != "" {
		a.failf("refused: %s %s%s %s, which the gate cannot see", prog, shorten(s), readAs, why)
		return "", "", false, false
	}
	return name, val, hasVal, true
}

// gitSeparateValue reports whether git takes the word after the option
// name (a long name as gitLongOpt read it, or a letter) as its value. For
// a long option in the table, the table says, as git does: an option
// whose value is optional (--abbrev[=<n>], --relative[=<path>], push
// --force-with-lease[=…]) never takes the next word, so `git show
// --abbrev HEAD:.env` reads .env and `git push --force-with-lease URL`
// reaches URL's host. Otherwise (letters, revision options like --author
// that no table lists) the model's own list withValue says.
// gitOwnArgs are options that take the words after them by themselves,
// which the helper does not show (update-index --cacheinfo MODE,OBJECT,PATH
// or MODE OBJECT PATH).
var gitOwnArgs = map[string]bool{"update-index cacheinfo": true}

func gitSeparateValue(sub, name string, short bool, withValue string) bool {
	if !short {
		if t := gitOptTables()[sub]; t != nil {
			if takesValue, ok := t.names[name]; ok {
				return takesValue || gitOwnArgs[sub+" "+name]
			}
		}
	}
	return strings.Contains(withValue, " "+name+" ")
}
