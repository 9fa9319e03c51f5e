package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitRepoArg handles a repository argument: a URL or scp-like address
// reaches its host, a transport helper (ext::…) is refused, a local path is
// read, anything else is the name of a configured remote.
func (a *analyzer) gitRepoArg(prog string, w *syntax.Word, c ctx) {
	l, ok := staticWord(w)
	if !ok {
		a.failf("cannot tell which host %s reaches: %s is not static", prog, wordText(w))
		return
	}
	s := l.s
	switch {
	case strings.Contains(s, "::"):
		a.failf("the gate cannot tell what this runs: %s %s uses a transport helper, which runs a program", prog, shorten(s))
	case strings.HasPrefix(s, "file://"):
		a.readArg(prog, valueWord(strings.TrimPrefix(s, "file://")), c)
	case strings.Contains(s, "://"):
		a.addHost(prog, s)
	case isScpLike(s):
		host, _, _ := strings.Cut(s, ":")
		if _, h, found := strings.Cut(host, "@"); found {
			host = h
		}
		a.addHost(prog, host)
	case strings.ContainsAny(s, "/.") || s == "~":
		a.readArg(prog, w, c)
	}
}

// isScpLike reports git's [user@]host:path form: a colon before any slash.
func isScpLike(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// addHost records the host of a URL named in an argument.
func (a *analyzer) addHost(prog, s string) {
	h, err := HostOf(s)
	if err != nil {
		a.failf("cannot tell which host %s reaches: %v", prog, err)
		return
	}
	a.add(&a.use.Hosts, "h:", h)
}

const gitRemoteValues = " o push-option depth deepen shallow-since shallow-exclude j jobs refmap negotiation-tip filter server-option recurse-submodules-default m message F file X strategy-option s strategy "

// gitRemote: fetch, pull, push and ls-remote reach the repository named
// first (a URL's host, or a configured remote); pull also rewrites the
// work tree.
func gitRemote(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, gitRemoteValues)
	if !ok {
		return
	}
	ops := g.all()
	for _, r := range g.opts["repo"] { // git push --repo=URL: the repository when none is named
		if strings.Contains(r, "\x00dynamic") {
			a.failf("cannot tell which host %s reaches: --repo is not static", prog)
			return
		}
		a.gitRepoArg(prog, valueWord(r), c)
	}
	switch {
	case len(ops) == 0:
	case g.has("all", "multiple"):
		for _, w := range ops {
			a.gitRepoArg(prog, w, c)
		}
	default:
		a.gitRepoArg(prog, ops[0], c)
	}
	if prog == "git pull" {
		// What it writes is what the fetch brings, which is not in the
		// repository yet: a human decides. git fetch, then git merge,
		// the gate can judge.
		a.gitHoldUnknownWrites(prog, "it writes what the fetch brings, which is not in the repository yet (run git fetch, then git merge or git rebase, which the gate can judge)")
	}
}

// gitClone reaches its URL's host and writes the directory it clones into;
// -c sets configuration, checked like git -c.
func gitClone(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " c config b branch o origin depth shallow-since shallow-exclude reference reference-if-able filter j jobs server-option revision ")
	if !ok {
		return
	}
	for _, kv := range append(g.opts["c"], g.opts["config"]...) {
		key, value, _ := strings.Cut(kv, "=")
		a.gitConfigKey("clone -c", key, value)
	}
	a.gitOptReads(prog, g, c, "reference", "reference-if-able")
	ops := g.all()
	if len(ops) == 0 {
		return
	}
	a.gitRepoArg(prog, ops[0], c)
	if len(ops) > 1 {
		a.writeArg(prog, ops[1], c)
		a.gitCloneLocalReach(prog, g, ops[0], ops[1])
		return
	}
	l, _ := staticWord(ops[0])
	name := strings.TrimSuffix(strings.TrimRight(l.s, "/"), ".git")
	if i := strings.LastIndexAny(name, "/:"); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == ".." {
		name = "."
	}
	a.writeArg(prog, valueWord(name), c)
}

// gitRemoteCmd: remote add and set-url name a URL.
func gitRemoteCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " t m ")
	if !ok {
		return
	}
	ops := g.all()
	if len(ops) == 0 {
		return
	}
	verb, _ := staticWord(ops[0])
	switch verb.s {
	case "add", "set-url":
		if len(ops) >= 3 {
			a.gitRepoArg(prog+" "+verb.s, ops[2], c)
		}
		if len(ops) >= 4 && verb.s == "set-url" {
			a.gitRepoArg(prog+" "+verb.s, ops[3], c)
		}
	case "update":
	}
}

// gitConfig: reading is harmless; writing a key that names a program, a
// file or a host is refused (it would run or reach it on a later git
// command); --global writes the user's ~/.gitconfig, -f FILE writes FILE.
func gitConfig(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " f file blob type default comment value ")
	if !ok {
		return
	}
	if g.has("system") {
		a.failf("refused: git config --system changes the configuration of every user")
		return
	}
	if g.has("e", "edit") {
		a.failf("the gate cannot tell what this writes: git config --edit opens an editor on the configuration")
		return
	}
	// --blob reads its configuration from an object, which prints what it
	// holds: REV:path names a file, read like git show's; anything else
	// could be any file's content.
	for _, b := range g.opts["blob"] {
		if !strings.Contains(b, ":") {
			a.failf("cannot tell what git config reads: --blob %s names an object, not a path", b)
			return
		}
		a.gitReadOps(prog, []*syntax.Word{valueWord(b)}, c)
	}
	ops := g.all()
	var verb string
	if len(ops) > 0 {
		if l, ok := staticWord(ops[0]); ok {
			switch l.s {
			case "get", "set", "unset", "list", "rename-section", "remove-section", "edit":
				verb, ops = l.s, ops[1:]
			}
		}
	}
	reading := g.has("get", "get-all", "get-regexp", "get-urlmatch", "l", "list", "unset", "unset-all",
		"rename-section", "remove-section", "get-color", "get-colorbool") ||
		verb == "get" || verb == "list" || verb == "unset" || verb == "remove-section" || verb == "rename-section"
	if verb == "edit" {
		a.failf("the gate cannot tell what this writes: git config edit opens an editor on the configuration")
		return
	}
	writing := !reading && (len(ops) >= 2 || verb == "set" || g.has("add", "replace-all"))
	if g.has("global") && writing {
		a.writeArg(prog+" --global", valueWord("~/.gitconfig"), c)
	}
	for _, f := range append(g.opts["f"], g.opts["file"]...) {
		if writing {
			a.writeArg(prog+" -f", valueWord(f), c)
		} else {
			a.readArg(prog+" -f", valueWord(f), c)
		}
	}
	if !writing || len(ops) == 0 {
		return
	}
	key, ok := staticWord(ops[0])
	if !ok {
		a.failf("the gate cannot tell what this runs: git config %s: the key is not static", wordText(ops[0]))
		return
	}
	value := ""
	if len(ops) > 1 {
		v, _ := staticWord(ops[1])
		value = v.s
	}
	a.gitConfigKey("config", key.s, value)
}
