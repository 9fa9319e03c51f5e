package resources

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// ShellUse is what one shell command line does, as far as the gate cares.
//
// Executables holds the basename of every program the command line may run,
// deduplicated, in order of first appearance (substitutions inside a
// statement's redirections are seen before the statement's command).
// "Program" means the command word of every simple command wherever it
// appears — lists, pipelines, subshells, blocks, if/while/for/case bodies,
// function bodies, and $(…), `…`, <(…), >(…) in any word — so it includes
// shell builtins such as echo, cd, test, [, :, printf, export, local and
// true. That is deliberate: the command word is what a policy names, and the
// gate can then allow echo while refusing rm. Shell keywords (if, for,
// [[ … ]], (( … ))) are syntax, not programs, and are not listed, except
// time, which is listed like the wrapper it is. A call of a function
// defined in the same command line is listed under the function's name too
// (the analysis does not model which definition is live); the programs of
// the function's body are listed where it is defined.
//
// For a program that runs another program named in its arguments — env,
// command, exec, builtin, nohup, nice, time, timeout, xargs, sudo, doas,
// stdbuf, setsid, busybox, toybox, find -exec/-execdir/-ok/-okdir — both the
// wrapper and the wrapped program are listed. Scripts handed to sh, bash,
// dash, ash, ksh, mksh, zsh and their variants with -c, to eval, trap and
// alias, or fed to such a shell as a static here-document, are parsed in
// turn. Any other program that runs programs (make, git, npm, ssh, watch,
// python -c …) is listed by its own name only: allowing it allows what it
// runs.
//
// Reads and Writes hold redirection targets: >, >>, >|, &>, &>>, <> and
// >&word targets are writes; <, <> and <&word sources are reads. File
// descriptor duplications (2>&1, >&2, <&0, >&-), the devices /dev/null,
// /dev/stdin, /dev/stdout, /dev/stderr, /dev/tty, /dev/zero, /dev/random
// and /dev/urandom, and <(…)/>(…) used as targets are not listed. A relative
// target is reported as written, prefixed by the directory a preceding cd or
// pushd moved to ("cd sub && make > log" writes "sub/log"); when a cd may or
// may not have happened, the target is listed once per candidate directory,
// and a relative target in a function body, trap action or alias is listed
// for every directory the line ever moves to. Targets are not resolved:
// callers hand them to [ResolvePath]. Files that programs open on their own
// (cp a b, tee f) are not redirections and are not listed.
//
// PipesIntoInterpreter reports that program text not visible in the command
// line reaches an interpreter that reads its program rather than running a
// script named in its arguments: a pipe, a process substitution, a dynamic
// here-document or xargs' input feeding sh, bash, python, perl, ruby, node,
// php, lua, pwsh and the like ("curl … | sh", "bash <(curl …)",
// "python3 - <<< \"$x\"", "python3 -c \"$(curl …)\""). It is deliberately
// conservative: an interpreter run by a function body counts as piped.
type ShellUse struct {
	// Dequoted is the line's words as the shell passes them where that
	// differs from how they are written (see dequotedWords): scanned for
	// secrets, never judged.
	Dequoted             string   `json:"-"`
	Executables          []string `json:"executables"`
	Reads                []string `json:"reads"`
	Writes               []string `json:"writes"`
	PipesIntoInterpreter bool     `json:"pipes_into_interpreter"`
	// Operands are the static words given to programs as arguments (and
	// the value of a --flag=value). Which of them a program opens is its
	// own business, so they are not reads or writes; but any of them may
	// name a file, and the gate checks them against the deny list, so
	// that `cat ~/.ssh/id_rsa` is refused like a Read of it.
	Operands []string `json:"operands,omitempty"`
	// WriteOperands and ReadOperands are the operands of programs known
	// to modify (rm, mv, cp, touch, …) or read (cat, head, …) the files
	// they name, options left out: the gate treats them as paths written
	// and read, so `rm -rf ..` and `cat /etc/shadow` are checked like a
	// Write or a Read. Operands of a program behind a wrapper (sudo,
	// xargs) are not classified.
	WriteOperands []string `json:"write_operands,omitempty"`
	ReadOperands  []string `json:"read_operands,omitempty"`
	// TreeReads are the directories programs read every file below
	// (grep -r, rg, find -exec, cp -r, tar c …): the gate checks what
	// lies below them against the deny list (see TreeRead).
	TreeReads []TreeRead `json:"tree_reads,omitempty"`
	// WritePatterns are files written whose names are not known before
	// the line runs: each is a path whose last "*" stands for any
	// suffix the program generates (split's PREFIXaa, PREFIXab, …). The
	// gate checks them against every name they can stand for.
	WritePatterns []string `json:"write_patterns,omitempty"`
	// WorkTrees are directories in which a git command rewrites the
	// whole work tree (checkout BRANCH, reset --hard, stash, merge …).
	// git writes from the repository's top level, wherever in it the
	// command runs, so the gate treats each as a write of the top level
	// of the repository that holds it (see gitTopLevel).
	WorkTrees []string `json:"work_trees,omitempty"`
	// Hosts are the network hosts named in programs' arguments (git clone
	// URL, curl URL, npm --registry=URL), normalised by HostOf.
	Hosts []string `json:"hosts,omitempty"`
	// Holds are constructs the gate cannot model but a human can read in
	// the call itself (inline interpreter code): the gate asks a human
	// instead of deciding. Each names the program and why.
	Holds []Hold `json:"holds,omitempty"`
	// Decoded is what the line's programs print of its words once
	// decoded (see Decoded): scanned for secrets, never judged.
	Decoded []Decoded `json:"-"`
	// gitRuns are where each git command of the line starts looking for
	// its repository (gitrepo.go): the caller, which knows the workspace,
	// holds the line when that repository is one the agent can rewrite.
	gitRuns []gitRun
	// gitChanges counts the git commands of the line that may change the
	// repository (any but gitReadOnly's).
	gitChanges int
	// made are the paths programs of the line that can make a symbolic
	// link or a whole tree write (cp, mv, ln, git, tar …): see made.go.
	made []string
	// madeDirs are the directories mkdir makes on the line.
	madeDirs []string
}

// Hold is one reason a command line needs a human: Program is the program
// concerned (python3 for python3 -c …), Reason says what the gate cannot
// tell. Inline is true for program text given inline to an interpreter,
// which a lease may allow by granting the command "<program>+inline".
type Hold struct {
	Program string `json:"program"`
	Reason  string `json:"reason"`
	Inline  bool   `json:"inline,omitempty"`
	// Approval is the approval name a human's answer is recorded under;
	// "" is "inline:<Program>".
	Approval string `json:"approval,omitempty"`
	// EveryCall: a grant remembered for the lease does not cover it, since
	// what the human judged (a repository's configuration) is something
	// the agent can change after the answer.
	EveryCall bool `json:"every_call,omitempty"`
}

// maxShellDepth is how deeply scripts may nest inside one another (sh -c
// within sh -c, eval within eval, …) before the analysis gives up.
const maxShellDepth = 4

// ShellAt analyses a bash command line that starts in the absolute
// directory base: patterns in arguments (cat .e*) are expanded against the
// files there, so that the gate sees the names bash will pass. It returns
// an error — and the gate must refuse — when the line does not parse, when
// the program run by a command cannot be determined statically ($CMD x,
// ${X}y, $(echo rm) x, r* x), when a redirection target is not static, when
// scripts nest deeper than maxShellDepth, or when a construct would run code
// the analysis cannot see (eval "$x", sh -c "$x", ${x@P}, assigning
// BASH_ENV or LD_PRELOAD, …).
//
// ShellAt never panics: an internal failure is reported as an error.
func ShellAt(command, base string) (use ShellUse, err error) {
	defer func() {
		if r := recover(); r != nil {
			use, err = ShellUse{}, fmt.Errorf("cannot analyse shell command: internal error: %v", r)
		}
	}()
	return analyzeShell(command, base)
}

// analyzeShell is ShellAt without the panic guard; the fuzz test calls it
// so that a panic is found rather than hidden.
func analyzeShell(command, base string) (ShellUse, error) {
	a := &analyzer{base: base}
	// Each list starts as the start directory alone, in the analyzer's
	// own arrays (capacity one, so an append moves it out).
	a.cwds, a.allCwds = a.cwdsStart[:1:1], a.allCwdsStart[:1:1]
	a.script(command, ctx{})
	for _, d := range a.deferred {
		if a.err != nil {
			break
		}
		if a.cwdUnknown {
			a.failf("cannot determine the directory of relative path %q: the working directory changes in a way the analysis cannot follow", d.p)
			break
		}
		for _, dir := range a.allCwds {
			a.addPath(joinCwd(dir, d.p), d.write, d.read)
		}
	}
	if a.err != nil {
		return ShellUse{}, a.err
	}
	return a.use, nil
}

// stdinKind is what a command's standard input is connected to.
type stdinKind int

const (
	stdinInherited stdinKind = iota // whatever the tool call's shell got
	stdinPipe                       // a pipe or something equally unknown
	stdinHeredoc                    // a here-document or here-string (ctx.hdoc)
	stdinFile                       // a named file
)

// ctx is the context one command is analysed in.
type ctx struct {
	depth int              // nesting of re-parsed scripts
	stdin stdinKind        // standard input of the command
	hdoc  *syntax.Redirect // the here-document when stdin == stdinHeredoc
	xargs bool             // xargs appends words read from its input to the command
	zsh   bool             // the script is run by zsh, whose glob qualifiers run code
	subst string           // text the wrapping program replaces at run time ({} for find, xargs -I)
	// substPaths are the paths subst stands for (find's starting points),
	// nil when they are not known (xargs reads them from its input).
	substPaths []string
}

// analyzer accumulates one ShellUse. The first error stops the analysis.
type analyzer struct {
	use        ShellUse
	seen       map[seenKey]bool // what each list already holds
	err        error
	cwds       []string // candidate working directories, relative to the start ("" is the start)
	cwdUnknown bool     // a directory change could not be followed
	lastCd     []string // directories the most recent cd moved to, nil if unknown
	allCwds    []string // every directory that was ever a candidate
	// cwdsStart and allCwdsStart hold cwds and allCwds while they are
	// the start directory alone.
	cwdsStart, allCwdsStart [1]string
	stdinTaint              bool            // "exec <…" replaced the shell's own standard input
	later                   int             // > 0 while analysing code that runs at an unknown later time
	loops                   int             // > 0 inside a loop body, where what comes later also ran before
	base                    string          // the absolute starting directory, "" when unknown (patterns are then not expanded)
	numeric                 map[string]bool // variables this line has set to a number (see arith.go)
	numberLost              int             // how often a variable of numeric lost its number (see loop)
	assoc                   map[string]bool // variables declared associative arrays
	interp                  string          // the interpreter whose arguments are being analysed
	deferred                []deferredPath
	// inert are argument words a program model knows name no file (a
	// pattern grep leaves out: --exclude=.env): they are not Operands.
	inert map[*syntax.Word]bool
	// flows are where each script's decoders and network programs sit
	// (decodeflow.go).
	flows []decodeFlow
}

// deferredPath is a relative redirection target in a function body, a trap
// action or an alias: it is resolved at the end against every working
// directory the command line may have moved to, since the code may run at
// any point.
type deferredPath struct {
	p           string
	write, read bool
}

func (a *analyzer) failf(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

// seenKey is one entry of one list ("x:" executables, "o:" operands, …).
type seenKey struct{ kind, v string }

func (a *analyzer) add(list *[]string, kind, v string) {
	// Most lines name a handful of each: a look through the list is
	// cheaper than hashing. Past smallList the map takes over, seeded
	// with what the list already holds, so a long line stays linear.
	if len(*list) < smallList {
		for _, x := range *list {
			if x == v {
				return
			}
		}
		*list = append(*list, v)
		return
	}
	if len(*list) == smallList && !a.seen[seenKey{kind, (*list)[0]}] {
		if a.seen == nil {
			a.seen = map[seenKey]bool{}
		}
		for _, x := range *list {
			a.seen[seenKey{kind, x}] = true
		}
	}
	k := seenKey{kind, v}
	if !a.seen[k] {
		a.seen[k] = true
		*list = append(*list, v)
	}
}

// smallList is how long a list of ShellUse grows before add keeps a map of
// what it holds.
const smallList = 16

func (a *analyzer) addExe(name string) { a.add(&a.use.Executables, "x:", name) }

func (a *analyzer) flag() { a.use.PipesIntoInterpreter = true }
