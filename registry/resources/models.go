package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fileWriters modify the files their operands name; fileReaders read them.
var (
	fileWriters = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "mv": true, "cp": true, "touch": true,
		"mkdir": true, "chmod": true, "chown": true, "chgrp": true, "ln": true, "link": true, "tee": true, "truncate": true,
		"install": true, "shred": true}
	fileReaders = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "nl": true,
		"od": true, "xxd": true, "base64": true, "strings": true, "tac": true, "wc": true, "md5sum": true,
		"sha1sum": true, "sha256sum": true, "sha512sum": true, "cksum": true, "file": true, "stat": true,
		"hexdump": true, "cut": true, "paste": true, "column": true, "fold": true, "fmt": true, "rev": true,
		"expand": true, "unexpand": true, "comm": true, "join": true, "du": true, "ls": true, "tree": true}
	// genericArgOpts are the short options of those programs that take an
	// argument, so that the argument is not taken for a file.
	genericArgOpts = map[string]string{
		"head": "nc", "tail": "ncs", "cp": "tS", "mv": "tS", "install": "mogtS", "mkdir": "m", "touch": "rtd",
		"truncate": "sr", "ln": "tS", "shred": "ns", "base64": "w", "od": "AtjNw", "xxd": "lscgo", "nl": "bdfhilnsvw",
		"strings": "nte", "cut": "bcdf", "paste": "d", "column": "csto", "fold": "w", "fmt": "wgp", "du": "BdtX",
		"ls": "ITw", "tree": "LPIo", "comm": "", "join": "aejotv12", "hexdump": "CenNsf", "stat": "cf",
		"chmod": "", "chown": "", "tee": "", "file": "fFmP",
	}
	// targetDirOpts are options whose argument is a directory written to
	// (cp -t DIR).
	targetDirOpts = map[string]string{"cp": "t", "mv": "t", "install": "t", "ln": "t", "tree": "o"}
)

// operandWords splits a generic program's arguments into operand words and
// the values of options (by letter or long name), knowing which short
// options take an argument. Unknown short options are taken to have none.
// long is the program's long-option table (genericLong): a long option is
// expanded to its full name as getopt_long would, and one the table does
// not have, or an ambiguous prefix, is refused (ok false, why says it). A
// program without a table keeps an attached --name=value and nothing more.
func operandWords(args []*syntax.Word, argOpts string, long map[string]int) (ops []*syntax.Word, vals map[string][]*syntax.Word, why string) {
	options := true
	for i := 0; i < len(args); i++ {
		w := args[i]
		l, ok := staticWord(w)
		if !options || !ok || len(l.s) < 2 || l.s[0] != '-' {
			ops = append(ops, w)
			continue
		}
		if l.s == "--" {
			options = false
			continue
		}
		if strings.HasPrefix(l.s, "--") {
			name, v, has := strings.Cut(l.s[2:], "=")
			kind := 2 // no table: only an attached value is known to be one
			if long != nil {
				full, known := expandLong(long, name)
				if !known {
					return nil, nil, "--" + name + " is not an option the gate knows (or it abbreviates more than one)"
				}
				name, kind = full, long[full]
				if has && kind == 0 {
					return nil, nil, "--" + name + " takes no value"
				}
			}
			switch {
			case has:
				vals = appendWord(vals, name, &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: v}}})
			case kind == 1 && i+1 < len(args):
				i++
				vals = appendWord(vals, name, args[i])
			case kind == 1:
				return nil, nil, "--" + name + " needs a value"
			default:
				vals = appendWord(vals, name, emptyWord) // a flag: seen, no value
			}
			continue
		}
		for j := 1; j < len(l.s); j++ {
			if strings.IndexByte(argOpts, l.s[j]) < 0 {
				continue
			}
			opt := l.s[j : j+1]
			if j+1 < len(l.s) {
				vals = appendWord(vals, opt, &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: l.s[j+1:]}}})
			} else if i+1 < len(args) {
				i++
				vals = appendWord(vals, opt, args[i])
			}
			break
		}
	}
	return ops, vals, ""
}

// appendWord adds w to m[key], making m on first use: most commands have
// no option values, and a nil map reads as empty.
func appendWord(m map[string][]*syntax.Word, key string, w *syntax.Word) map[string][]*syntax.Word {
	if m == nil {
		m = map[string][]*syntax.Word{}
	}
	m[key] = append(m[key], w)
	return m
}

// model classifies what a program does with its arguments: the programs
// with their own model (git, sed, grep, …), or else the generic file
// readers and writers.
func (a *analyzer) model(name string, args []*syntax.Word, c ctx) {
	if c.xargs && c.subst == "" && (programModels[name] != nil || fileReaders[name] || fileWriters[name]) && name != "printf" {
		// xargs appends words from its input: the files this program
		// opens are named at run time.
		a.failf("cannot tell which files %s opens: xargs appends its operands from its input at run time", name)
		return
	}
	if m := programModels[name]; m != nil {
		m(a, name, args, c)
		return
	}
	a.generic(name, args, c)
}

// generic sorts the operands of the programs whose operands are files (see
// fileWriters) into paths written and read. An operand whose value is not
// known statically is refused: the program would open a file the gate
// cannot name.
func (a *analyzer) generic(prog string, args []*syntax.Word, c ctx) {
	if !fileWriters[prog] && !fileReaders[prog] {
		return
	}
	ops, vals, why := operandWords(args, genericArgOpts[prog], genericLong(prog))
	if why != "" {
		a.failf("refused: %s %s", prog, why)
		return
	}
	if !a.genericOptions(prog, vals, c) {
		return
	}
	targets := vals["target-directory"]
	for _, letter := range targetDirOpts[prog] {
		targets = append(targets, vals[string(letter)]...)
	}
	a.writeArgs(prog, targets, c)
	switch {
	case len(ops) == 0:
		if prog == "ls" || prog == "du" || prog == "tree" {
			a.readArg(prog, dotWord, c) // the working directory
		}
	case prog == "chmod" || prog == "chown" || prog == "chgrp":
		if len(vals["reference"]) == 0 {
			ops = ops[1:] // the first operand is the mode or owner
		}
		a.writeArgs(prog, ops, c)
	case prog == "cp" || prog == "install":
		srcs, dests := ops[:len(ops)-1], ops[len(ops)-1:]
		if len(targets) > 0 {
			srcs, dests = ops, nil // cp -t DIR SRC…: DIR is written
		}
		if prog == "cp" && (len(vals["link"]) > 0 || shortFlag(args, genericArgOpts[prog], 'l')) {
			// A hard link makes the source writable through the copy,
			// as ln does (below).
			a.writeArgs(prog, srcs, c)
		} else if prog == "cp" && cpRecursive(args, vals) {
			// Every file below a source directory is read.
			follow := len(vals["dereference"]) > 0 || shortFlag(args, genericArgOpts[prog], 'L')
			a.treeArgs(prog, srcs, c, TreeFilter{}, follow)
		} else {
			a.readArgs(prog, srcs, c)
		}
		a.writeArgs(prog, dests, c)
		a.backups(prog, args, vals, dests, c)
	case fileWriters[prog]:
		// ln: a hard link (or a symbolic link the next command writes
		// through) makes its target writable from the workspace, so the
		// target counts as written too.
		a.writeArgs(prog, ops, c)
		if prog == "mv" || prog == "ln" {
			a.backups(prog, args, vals, ops, c)
		}
	default:
		a.readArgs(prog, ops, c)
	}
}

// dotWord is the word ".", the working directory.
var dotWord = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "."}}}

func (a *analyzer) readArgs(prog string, ws []*syntax.Word, c ctx) {
	for _, w := range ws {
		a.readArg(prog, w, c)
	}
}

func (a *analyzer) writeArgs(prog string, ws []*syntax.Word, c ctx) {
	for _, w := range ws {
		a.writeArg(prog, w, c)
	}
}

// readArg records the files an argument word names as read by prog.
func (a *analyzer) readArg(prog string, w *syntax.Word, c ctx) {
	if isProcSubst(w) {
		return // <(cmd) is a pipe
	}
	if l, ok := staticWord(w); ok && (l.s == "-" || ignoredDevices[l.s]) {
		return
	}
	if p, ok := a.plainArg(w, c); ok {
		a.add(&a.use.ReadOperands, "ro:", p)
		return
	}
	paths, ok := a.argPaths(w, c)
	if !ok {
		a.failf("cannot tell which file %s reads: %s is not known before it runs", prog, wordText(w))
		return
	}
	for _, p := range paths {
		a.add(&a.use.ReadOperands, "ro:", p)
	}
}

// writeArg records the files an argument word names as written by prog.
func (a *analyzer) writeArg(prog string, w *syntax.Word, c ctx) {
	if isProcSubst(w) {
		return // >(cmd) is a pipe
	}
	if l, ok := staticWord(w); ok && (l.s == "-" || ignoredDevices[l.s]) {
		return
	}
	if p, ok := a.plainArg(w, c); ok {
		a.add(&a.use.WriteOperands, "wo:", p)
		a.noteMade(prog, p)
		return
	}
	paths, ok := a.argPaths(w, c)
	if !ok {
		a.failf("cannot tell which file %s writes: %s is not known before it runs", prog, wordText(w))
		return
	}
	for _, p := range paths {
		a.add(&a.use.WriteOperands, "wo:", p)
		a.noteMade(prog, p)
	}
}

// mention records the paths an argument may name (see ShellUse.Operands):
// the word itself, and the value of a --flag=value.
func (a *analyzer) mention(w *syntax.Word, c ctx) {
	if len(a.use.Operands) >= maxOperands || a.inert[w] {
		return
	}
	if len(w.Parts) > 0 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && len(l.Value) > 1 && l.Value[0] == '=' && l.Value[1] != '=' {
			a.failf("refused: zsh expands %s to the path of a program", wordText(w))
			return
		}
	}
	if p, ok := a.plainArg(w, ctx{}); ok {
		a.add(&a.use.Operands, "o:", p)
		return
	}
	vals, ok := a.argValues(w)
	if !ok {
		return
	}
	for _, l := range vals {
		if strings.HasPrefix(l.s, "-") {
			i := strings.IndexByte(l.s, '=')
			if i <= 0 || i+1 >= len(l.s) {
				continue
			}
			l = lit{s: l.s[i+1:], quoted: l.quoted[i+1:]}
		}
		if l.s == "" || (a.cwdUnknown && !isAbsOrHome(l.s)) {
			if l.s != "" {
				a.add(&a.use.Operands, "o:", l.s)
			}
			continue
		}
		paths, _ := a.litPaths(l)
		for _, p := range paths {
			a.add(&a.use.Operands, "o:", p)
		}
	}
}

// byteSet is a set of bytes, for the tests run on every word: ContainsAny
// builds its set on every call.
type byteSet [256]bool

func newByteSet(chars string) (s byteSet) {
	for i := 0; i < len(chars); i++ {
		s[chars[i]] = true
	}
	return s
}

func containsAnyOf(s string, set *byteSet) bool {
	for i := 0; i < len(s); i++ {
		if set[s[i]] {
			return true
		}
	}
	return false
}

// plainWordStops are the bytes that keep a word from being a plain operand.
var plainWordStops = newByteSet("~$*?[{\\-=")

// plainArg is the one path an argument word names when it is a plain
// literal (plainOperand) and the shell is in its starting directory: what
// argPaths gives for it, without the allocations of the general case,
// which most words of a long line would pay.
func (a *analyzer) plainArg(w *syntax.Word, c ctx) (string, bool) {
	if !argShortCuts || c.subst != "" || len(w.Parts) != 1 || a.cwdUnknown || len(a.cwds) != 1 || a.cwds[0] != "" {
		return "", false
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && plainOperand(l.Value) {
		return l.Value, true
	}
	return "", false
}

// argShortCuts lets plainArg answer; the test that compares the analysis
// with and without it turns it off.
var argShortCuts = true

// plainOperand reports whether the unquoted literal v names, from the
// starting directory, the path v and nothing else: no tilde, expansion,
// pattern, brace, escape, option or assignment, and not a view of the
// shell's own process (/proc/self/cwd/x is the shell's ./x, which
// inCwds rewrites; the gate resolving it would see its own directory).
func plainOperand(v string) bool {
	return v != "" && !containsAnyOf(v, &plainWordStops) && !strings.HasPrefix(v, "/proc/") && !strings.HasPrefix(v, "/dev/fd/")
}

// cpRecursive reports whether cp copies directories with what lies below
// them (-r, -R, -a, --recursive, --archive).
func cpRecursive(args []*syntax.Word, vals map[string][]*syntax.Word) bool {
	if len(vals["recursive"])+len(vals["archive"]) > 0 {
		return true
	}
	for _, l := range []byte("rRa") {
		if shortFlag(args, genericArgOpts["cp"], l) {
			return true
		}
	}
	return false
}
