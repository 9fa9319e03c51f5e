package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// npmFlags are the npm options (configuration keys) the gate knows; npm
// takes any --key=value as configuration, and some keys name a program
// (script-shell, node-options) or move its configuration (userconfig), so
// any other option is refused. registry names a host.
var npmFlags = map[string]bool{
	"save": true, "save-dev": true, "D": true, "S": true, "save-exact": true, "E": true, "no-save": true,
	"save-optional": true, "O": true, "save-peer": true, "production": true, "omit": true, "include": true,
	"dev": true, "silent": true, "s": true, "quiet": true, "q": true, "loglevel": true, "verbose": true,
	"d": true, "dd": true, "yes": true, "y": true, "force": true, "f": true, "legacy-peer-deps": true,
	"no-audit": true, "audit": true, "no-fund": true, "fund": true, "ignore-scripts": true, "workspace": true,
	"w": true, "workspaces": true, "ws": true, "if-present": true, "json": true, "parseable": true, "p": true,
	"depth": true, "long": true, "l": true, "all": true, "a": true, "prefer-offline": true, "offline": true,
	"no-package-lock": true, "package-lock-only": true, "dry-run": true, "foreground-scripts": true,
	"registry": true, "color": true, "no-color": true, "progress": true, "no-progress": true, "strict-peer-deps": true,
	"install-links": true, "prefer-dedupe": true, "tag": true, "access": true, "otp": true, "version": true,
	"v": true, "help": true, "h": true, "location": true, "global": true, "g": true,
}

// npmSubcommands says what each npm subcommand the gate knows does:
// "run" runs the package's scripts (granted with npm), "read" reads,
// "install" installs (hosts), "write" writes package.json.
var npmSubcommands = map[string]string{
	"test": "run", "t": "run", "tst": "run", "run": "run", "run-script": "run", "rum": "run", "urn": "run",
	"start": "run", "stop": "run", "restart": "run", "rebuild": "run", "rb": "run",
	"install": "install", "i": "install", "in": "install", "add": "install", "ci": "install",
	"clean-install": "install", "install-test": "install", "it": "install", "update": "install", "up": "install",
	"uninstall": "write", "remove": "write", "rm": "write", "r": "write", "un": "write", "prune": "write",
	"dedupe": "write", "ddp": "write", "version": "write", "pkg": "pkg", "config": "config", "c": "config",
	"ls": "read", "list": "read", "ll": "read", "la": "read", "outdated": "read", "view": "read", "info": "read",
	"show": "read", "v": "read", "audit": "read", "prefix": "read", "root": "read", "bin": "read",
	"whoami": "read", "help": "read", "doctor": "read", "explain": "read", "why": "read", "fund": "read",
	"search": "read", "query": "read", "sbom": "read", "pack": "write", "get": "read",
}

// npm models npm: exec, x, explore, init with an initializer and the
// subcommands it does not know are refused; pkg set/delete and the like
// write package.json; config set writes the user's ~/.npmrc (or the
// project's); --registry and package specs that are URLs or hosted git
// repositories name hosts.
func (a *analyzer) npm(prog string, args []*syntax.Word, c ctx) {
	var verb string
	var ops []*syntax.Word
	global := false
	for i := 0; i < len(args); i++ {
		l, ok := staticWord(args[i])
		if !ok {
			a.failf("cannot tell what npm does: %s is not static", wordText(args[i]))
			return
		}
		if l.s == "--" {
			break // the rest goes to the script
		}
		if strings.HasPrefix(l.s, "-") && len(l.s) > 1 {
			name, val, _ := strings.Cut(strings.TrimLeft(l.s, "-"), "=")
			if name == "C" || name == "prefix" {
				a.failf("refused: npm %s moves where npm runs, which the gate does not follow", l.s)
				return
			}
			if !npmFlags[name] {
				a.failf("refused: npm %s is not an option the gate knows, and npm options can name programs", l.s)
				return
			}
			if name == "registry" {
				if val == "" && i+1 < len(args) {
					i++
					v, _ := staticWord(args[i])
					val = v.s
				}
				a.addHost("npm --registry", val)
			}
			global = global || name == "g" || name == "global" || (name == "location" && val == "global")
			continue
		}
		if verb == "" {
			verb = l.s
			continue
		}
		ops = append(ops, args[i])
	}
	a.npmVerb(verb, ops, global, c)
}

// npmVerb applies what one npm subcommand does.
func (a *analyzer) npmVerb(verb string, ops []*syntax.Word, global bool, c ctx) {
	kind, known := npmSubcommands[verb]
	switch {
	case verb == "":
	case !known:
		a.failf("the gate cannot tell what this runs: npm %s is not a subcommand the gate models (exec, x and explore run programs)", verb)
	case global && kind != "read":
		a.failf("refused: npm %s --global changes the user's global packages, outside the workspace", verb)
	case kind == "install":
		for _, w := range ops {
			a.npmSpec(w, c)
		}
	case kind == "pkg" || kind == "write":
		if kind == "write" || (len(ops) > 0 && (ops[0].Lit() == "set" || ops[0].Lit() == "delete" || ops[0].Lit() == "fix")) {
			a.writeArg("npm "+verb, valueWord("package.json"), c)
		}
	case kind == "config":
		if len(ops) > 0 && (ops[0].Lit() == "set" || ops[0].Lit() == "delete" || ops[0].Lit() == "edit" || ops[0].Lit() == "fix") {
			a.writeArg("npm config", valueWord("~/.npmrc"), c)
		}
	}
}

// npmSpec records the host a package spec reaches: a URL, a git URL, or a
// hosted-git shorthand (github:u/r, u/r); a local path is read.
func (a *analyzer) npmSpec(w *syntax.Word, c ctx) {
	l, ok := staticWord(w)
	if !ok {
		a.failf("cannot tell what npm installs: %s is not static", wordText(w))
		return
	}
	s := strings.TrimPrefix(l.s, "git+")
	switch {
	case strings.Contains(s, "://"):
		a.addHost("npm install", s)
	case strings.HasPrefix(s, "github:") || (!strings.HasPrefix(s, "@") && strings.Count(s, "/") == 1 && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "/")):
		a.addHost("npm install", "github.com")
	case strings.HasPrefix(s, "gitlab:"):
		a.addHost("npm install", "gitlab.com")
	case strings.HasPrefix(s, "bitbucket:"):
		a.addHost("npm install", "bitbucket.org")
	case strings.HasPrefix(s, "gist:"):
		a.addHost("npm install", "gist.github.com")
	case strings.HasPrefix(s, "file:"):
		a.readArg("npm install", valueWord(strings.TrimPrefix(s, "file:")), c)
	case strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~"):
		a.readArg("npm install", w, c)
	case isScpLike(s) && !strings.HasPrefix(s, "npm:"):
		host, _, _ := strings.Cut(s, ":")
		if _, h, found := strings.Cut(host, "@"); found {
			host = h
		}
		a.addHost("npm install", host)
	}
}

// npx runs a package's command: -c runs a shell string and is refused; the
// command run is analysed like any program (it needs its own grant), and
// --package specs are checked like npm install's.
func (a *analyzer) npx(prog string, args []*syntax.Word, c ctx) {
	for i := 0; i < len(args); i++ {
		l, ok := staticWord(args[i])
		if !ok {
			a.failf("cannot tell what npx runs: %s is not static", wordText(args[i]))
			return
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(l.s, "-"), "=")
		switch {
		case !strings.HasPrefix(l.s, "-"):
			a.run(args[i:], c)
			return
		case l.s == "--":
			a.run(args[i+1:], c)
			return
		case name == "c" || name == "call" || name == "shell":
			a.failf("the gate cannot tell what this runs: npx %s runs a shell command", l.s)
			return
		case name == "p" || name == "package":
			if !hasVal && i+1 < len(args) {
				i++
				a.npmSpec(args[i], c)
			} else {
				a.npmSpec(valueWord(val), c)
			}
		case name == "y" || name == "yes" || name == "no" || name == "n" || name == "q" || name == "quiet" || name == "ignore-existing":
		default:
			a.failf("refused: npx %s is not an option the gate knows", l.s)
			return
		}
	}
}

// goFlags are the build and test flags of the go command the gate knows;
// -toolexec, -exec and -vettool run programs, and any other flag is
// refused. 1 marks a flag with a value given as a separate word too.
var goFlags = map[string]int{
	"v": 0, "race": 0, "run": 1, "count": 1, "timeout": 1, "cover": 0, "coverprofile": 1, "coverpkg": 1,
	"covermode": 1, "bench": 1, "benchmem": 0, "benchtime": 1, "short": 0, "failfast": 0, "parallel": 1,
	"cpu": 1, "json": 0, "tags": 1, "mod": 1, "o": 1, "x": 0, "n": 0, "a": 0, "p": 1, "trimpath": 0,
	"buildvcs": 1, "ldflags": 1, "gcflags": 1, "asmflags": 1, "buildmode": 1, "work": 0, "modfile": 1,
	"overlay": 1, "pgo": 1, "list": 1, "fuzz": 1, "fuzztime": 1, "fuzzminimizetime": 1, "shuffle": 1,
	"skip": 1, "cpuprofile": 1, "memprofile": 1, "blockprofile": 1, "mutexprofile": 1, "trace": 1,
	"outputdir": 1, "c": 0, "i": 0, "vet": 1, "msan": 0, "asan": 0, "C": 1, "u": 0, "t": 0, "d": 0,
	"l": 0, "w": 0, "s": 0, "m": 0, "e": 0, "f": 1, "deps": 0, "test": 0, "find": 0, "export": 0,
	"compiled": 0, "json=": 1, "r": 1, "replace": 1, "dropreplace": 1, "require": 1, "droprequire": 1,
	"fmt": 0, "go": 1, "toolchain": 1, "module": 1, "print": 0, "all": 0, "h": 0, "help": 0, "fix": 0,
	"benchmemprofile": 1, "memprofilerate": 1, "coverageredesign": 0, "modcacherw": 0, "linkshared": 0,
}

// goTool models the go command: -toolexec, -exec and -vettool run
// programs; -ldflags naming an external linker, go env -w (a setting every
// later go command uses) and go generate (directives in files the agent can
// write) are refused; -C moves where it runs; -o and profiles write files.
func (a *analyzer) goTool(prog string, args []*syntax.Word, c ctx) {
	if len(args) == 0 {
		return
	}
	verb, ok := staticWord(args[0])
	if !ok {
		a.failf("cannot tell what go runs: %s is not static", wordText(args[0]))
		return
	}
	switch verb.s {
	case "generate":
		a.failf("the gate cannot tell what this runs: go generate runs the commands in //go:generate directives")
		return
	case "env":
		for _, w := range args[1:] {
			if l, ok := staticWord(w); !ok || l.s == "-w" || l.s == "-u" {
				a.failf("refused: go env -w and -u change a setting every later go command uses")
				return
			}
		}
		return
	case "version", "help", "doc", "list", "vet", "fmt", "build", "test", "run", "install", "get", "mod",
		"clean", "work", "tool", "fix", "bug":
	default:
		a.failf("refused: go %s is not a go command the gate knows", verb.s)
		return
	}
	saved := a.cwds
	defer func() { a.cwds = saved }()
	for i := 1; i < len(args); i++ {
		l, ok := staticWord(args[i])
		if !ok {
			if !singleField(args[i]) {
				a.failf("cannot tell what go does: %s may expand to a flag", wordText(args[i]))
				return
			}
			continue
		}
		if l.s == "-args" || l.s == "--" || (verb.s == "run" && !strings.HasPrefix(l.s, "-")) || verb.s == "tool" || verb.s == "mod" || verb.s == "work" {
			return // what follows goes to the program, tool or subcommand
		}
		if !strings.HasPrefix(l.s, "-") {
			continue // a package
		}
		i = a.goFlag(prog, verb.s, args, i, c)
		if a.err != nil {
			return
		}
	}
}

// goFlag handles the flag at args[i] and returns the index of its last word.
func (a *analyzer) goFlag(prog, verb string, args []*syntax.Word, i int, c ctx) int {
	l, _ := staticWord(args[i])
	name, val, hasVal := strings.Cut(strings.TrimLeft(l.s, "-"), "=")
	name = strings.TrimPrefix(name, "test.")
	kind, known := goFlags[name]
	if !known {
		a.failf("refused: go %s -%s is not a flag the gate knows, and the go command runs programs (-toolexec, -exec, -vettool)", verb, name)
		return i
	}
	var v *syntax.Word
	if hasVal {
		v = valueWord(val)
	} else if kind == 1 && i+1 < len(args) {
		i++
		v = args[i]
	}
	vs, _ := staticWord(v)
	switch name {
	case "ldflags", "gcflags", "asmflags":
		if strings.Contains(vs.s, "extld") || strings.Contains(vs.s, "toolexec") || v != nil && !isStatic(v) {
			a.failf("refused: go -%s %s can name an external program", name, shorten(vs.s))
		}
	case "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir":
		if v != nil {
			a.writeArg(prog+" -"+name, v, c)
		}
	case "modfile", "overlay", "pgo":
		if v != nil {
			a.readArg(prog+" -"+name, v, c)
		}
	case "C":
		if v != nil {
			a.readArg(prog+" -C", v, c)
			if paths, ok := a.argPaths(v, c); ok {
				a.cwds = paths
			}
		}
	}
	return i
}

func isStatic(w *syntax.Word) bool {
	_, ok := staticWord(w)
	return ok
}
