//go:build linux

package resources_test

// The differential test against the real shell: random shell lines built
// from a grammar of the constructs an attacker uses (issue classes: cd,
// expansions, wrappers, redirections, substitutions, pipelines, functions,
// aliases, globs and braces, arithmetic, here-docs, quoting, CR/LF) are
// decided by the gate under a permissive lease and, when allowed, run by
// real bash under strace in a throwaway directory whose HOME holds planted
// secrets. Every program bash executed and every file it opened, created,
// renamed or removed inside the sandbox must be among what the gate
// derived — or the gate must have refused or held the line.
//
//	LEASEDECK_DIFF_LINES=N   lines to try (default 200)
//	LEASEDECK_DIFF_SEED=S    seed (default fixed, so CI is repeatable)
//	LEASEDECK_DIFF_SECONDS=T time budget (default 90)
//	LEASEDECK_DIFF_FINDINGS=FILE  append each minimal finding to FILE

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// sandbox is one throwaway world: a workspace two levels below the root,
// a fake HOME with planted secrets and a planted program, files outside
// the workspace.
type sandbox struct {
	root, ws, home string
}

// newSandbox makes a fresh world under base; each line runs in its own,
// so what one line changes never decides another's outcome.
func newSandbox(t *testing.T, base string) sandbox {
	t.Helper()
	dir, err := os.MkdirTemp(base, "sb")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	sb := sandbox{root: root, ws: filepath.Join(root, "x", "y", "ws"), home: filepath.Join(root, "home")}
	files := map[string]string{
		"x/y/ws/notes.txt":         "TODO one\nTODO two\n",
		"x/y/ws/src/a.go":          "package a\n",
		"x/y/ws/sub/b.txt":         "b\n",
		"x/y/ws/.env":              "API_KEY=planted\n",
		"x/y/outside.txt":          "outside\n",
		"home/.ssh/id_rsa":         "planted key\n",
		"home/.aws/credentials":    "[default]\n",
		"home/.netrc":              "machine x password planted\n",
		"home/notes.md":            "home notes\n",
		"x/y/ws/src/ls":            "#!/bin/sh\necho planted program\n",
		"home/bin/ls":              "#!/bin/sh\necho planted program\n",
		"x/y/ws/sub/deeper/c.txt":  "c\n",
		"home/.config/app/cfg.txt": "cfg\n",
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, "/ls") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside the workspace: hop/.. is sub for the kernel and the
	// workspace for bash's cd and for a cleaning.
	if err := os.Symlink("sub/deeper", filepath.Join(sb.ws, "hop")); err != nil {
		t.Fatal(err)
	}
	// A repository, so that git runs what its configuration names.
	if git, err := exec.LookPath("git"); err == nil {
		env := []string{"HOME=" + sb.home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
			c := exec.Command(git, args...)
			c.Dir, c.Env = sb.ws, env
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	return sb
}

// safePrograms are what the lease allows: programs that touch nothing
// outside their operands, so running a generated line is harmless.
var safePrograms = []string{"cat", "ls", "echo", "grep", "sed", "head", "tail", "wc", "sort", "uniq", "cut", "tr",
	"find", "tee", "touch", "cp", "mv", "rm", "mkdir", "printf", "env", "xargs", "timeout", "awk", "du", "true",
	"test", "basename", "dirname", "date", "diff", "stat", "file", "tree", "bash", "sh", "ln", "git", "tar", "dd",
	"base64", "md5sum", "tac", "nl", "paste", "split", "truncate", "install", "curl"}

// deniedPaths are the planted secrets, denied as the default policy does.
var deniedPaths = []string{"~/.ssh/**", "~/.aws/**", "~/.netrc", ".env", "~/bin/**", "~/.config/**"}

func diffState(t *testing.T) (*registry.State, time.Time) {
	t.Helper()
	now := time.Now()
	list := func(s []string) []any {
		out := make([]any, len(s))
		for i, x := range s {
			out[i] = x
		}
		return out
	}
	g, err := registry.ParseManifest(map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "differential", "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "differential test"},
		"allow": map[string]any{"tools": []any{"Bash"}, "read_paths": []any{"**"}, "write_paths": []any{"**"},
			"hosts": []any{}, "commands": list(safePrograms)},
		"deny":      map[string]any{"commands": []any{"sudo"}, "paths": list(deniedPaths), "hosts": []any{}},
		"budget":    map[string]any{"steps": 1 << 30},
		"approvals": []any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := registry.NewState()
	st.Leases["L"] = &registry.LeaseState{ID: "L", Status: registry.Granted, Granted: g, IssuedAt: now.Add(-time.Minute), ExpiresAt: now.Add(24 * time.Hour)}
	st.Order = append(st.Order, "L")
	return st, now
}

// ---- the grammar ----

// A template is one statement with holes: {R} a path a program reads, {W}
// a path written, {D} a directory. class is the issue class it exercises
// (0: ordinary constructs).
type template struct {
	class int
	text  string
}

var templates = []template{
	{0, "cat {R}"}, {0, "head -n 1 {R}"}, {0, "wc -l {R}"}, {0, "grep -n TODO {R}"}, {0, "ls {D}"},
	{0, "sort {R}"}, {0, "echo hi"}, {0, "cat {R} | grep x"}, {0, "tail -n 1 {R} | wc -c"},
	{0, "echo $((1 + 2))"}, {0, "arr=(a b c); echo \"${arr[1]}\""}, {0, "test -f {R} && cat {R}"},
	{0, "echo x > {W}"}, {0, "echo x >> {W}"}, {0, "cat < {R}"}, {0, "cat {R} 2>/dev/null"},
	{0, "cp {R} {W}"}, {0, "touch {W}"}, {0, "mkdir -p {W}"}, {0, "rm -f {W}"}, {0, "mv {W} {W}"},
	{0, "tee {W} < {R}"}, {0, "cat <<'EOF' > {W}\nx\nEOF"}, {0, "echo $(cat {R})"}, {0, "echo `cat {R}`"},
	{0, "'c'at {R}"}, {0, "c\\at {R}"}, {0, "$'\\x63at' {R}"}, {0, "\"cat\" {R}"},
	{1, "echo hi \\\r\ncat {R}"}, {1, "echo hi\rcat {R}"}, {1, "echo hi \\\n cat {R}"},
	{2, "PATH=src:$PATH ls"}, {2, "f() { cat {R}; }; f"}, {2, "shopt -s expand_aliases\nalias l='cat {R}'\nl"},
	{2, "BASH_CMDS[ls]=/bin/cat; ls {R}"}, {2, "hash -p /bin/cat ls; ls {R}"}, {2, "function g { head {R}; }; g"},
	{3, "b='['; c='$(cat {R})]'; v=\"a$b$c\"; ((v)) 2>/dev/null"}, {3, "v='x[$(cat {R})]'; echo $((v)) 2>/dev/null"},
	{4, "./src/ls"}, {4, "~/bin/ls"}, {4, "PATH=~/bin:$PATH ls"}, {4, "src/ls"},
	{5, "cd {D} && cat {R}"}, {5, "cd ~ && cat notes.md"}, {5, "cd .. && cat outside.txt"}, {5, "pushd {D} >/dev/null && cat {R}"},
	{5, "cd sub; cat {R}"}, {5, "env -C {D} cat {R}"}, {5, "(cd {D} && cat {R})"},
	{6, "cat \"$HOME/notes.md\""}, {6, "cat $PWD/{R}"}, {6, "cat ~+/{R}"}, {6, "cat .e*"}, {6, "cat .{env,x} 2>/dev/null"},
	{6, "cat ~/.ss?/id_rsa"}, {6, "cat ${HOME}/.netrc"}, {6, "cat */b.txt"}, {6, "cat ~/.*/cr*"}, {6, "X=~/.ssh; cat $X/id_rsa"},
	{7, "grep -r planted {D}"}, {7, "grep -rl x {D}"}, {7, "find {D} -name '*.txt'"}, {7, "ls -R {D}"}, {7, "du -a {D}"},
	{7, "tree {D}"}, {7, "diff -r {D} sub"},
	{8, "sort -o {W} {R}"}, {8, "sed -n 'w {W}' {R}"}, {8, "uniq {R} {W}"}, {8, "find . -maxdepth 1 -name notes.txt -fprint {W}"},
	{8, "awk '{print > \"{W}\"}' {R}"}, {8, "sed -i s/a/b/ {W}"}, {8, "sed 's/x/y/w {W}' {R}"},
	{9, "echo {R} | xargs cat"}, {9, "find . -maxdepth 1 -name notes.txt -exec cat {R} \\;"}, {9, "env cat {R}"},
	{9, "timeout 5 cat {R}"}, {9, "awk 'BEGIN{system(\"cat {R}\")}'"}, {9, "sed -n '1e cat {R}' notes.txt"},
	{9, "find {D} -maxdepth 1 -name '*.txt' -exec cat {} +"},
	{0, "cat <<EOF\n$(cat {R})\nEOF"}, {0, "cat <<-EOF > {W}\n\tx\nEOF"}, {0, "cat {R} > {W}"},
	{0, "while read l; do echo \"$l\"; done < {R}"}, {0, "[ -f {R} ] && cat {R}"}, {0, "cat {R} | tee -a {W}"},
	{2, "alias cat=head\ncat {R}"}, {5, "cd; cat notes.md"}, {6, "cat ~/.{netrc,x} 2>/dev/null"}, {7, "cat sub/*/*"},
	{8, "cp -r sub {W}"}, {9, "command cat {R}"}, {9, "exec cat {R}"}, {9, "xargs -a {R} echo"},
	// Builtins and shell syntax that read or write files themselves.
	{0, "read -r l < {R}; echo \"$l\""}, {0, "mapfile a < {R}; echo \"${a[0]}\""}, {0, "echo \"$(< {R})\""},
	{0, "exec 3< {R}; cat <&3"}, {0, "exec 4> {W}; echo x >&4"}, {0, "echo x 1<>{W}"}, {0, "echo x >| {W}"},
	{0, "echo x &> {W}"}, {0, "echo x >& {W}"}, {0, "cat <<< \"$(cat {R})\""}, {0, "cat <(cat {R})"},
	{0, "diff <(cat {R}) {R}"}, {0, "{ cat {R}; }"}, {0, "( cat {R} )"}, {0, "if true; then cat {R}; fi"},
	{0, "case x in x) cat {R};; esac"}, {0, "for f in {R}; do cat \"$f\"; done"}, {0, "until true; do :; done; cat {R}"},
	{0, "time cat {R}"}, {0, "! cat {R}"}, {0, "coproc cat {R}; wait"}, {0, "exec > {W}; echo x"},
	{2, "cat() { head -c 3 {R}; }; cat notes.txt"}, {2, "enable -n echo; echo {R}"},
	{5, "cd sub; cat ~-/notes.txt"}, {5, "cd sub && cd - >/dev/null && cat {R}"}, {5, "cd ~/.ssh 2>/dev/null; cat id_rsa"},
	{6, "f={R}; cat \"$f\""}, {6, "cat ${HOME:+$HOME/notes.md}"}, {6, "cat ${X:-~/notes.md}"}, {6, "cat {notes,sub/b}.txt"},
	{6, "cat ~/{.netrc,notes.md}"}, {6, "cat ../o*"}, {6, "cat [.]env"}, {6, "cat ~/.n*"}, {6, "shopt -s extglob; cat !(*.go|src|sub)"},
	{6, "IFS=/; p=\"..${IFS}outside.txt\"; cat $p"}, {6, "cat $(echo {R})"}, {6, "cat \"$(printf %s {R})\""},
	{9, "command -p cat {R}"}, {9, "exec -a x cat {R}"}, {9, "eval 'cat {R}'"}, {9, "bash -c 'cat {R}'"}, {9, "sh -c \"cat {R}\""},
	{1, "cat {R}\r"}, {1, "echo a;\rcat {R}"}, {1, "echo a #\rcat {R}"},
	// Files named by options, links made on the line, paths through /proc.
	{0, "grep -f {R} notes.txt"}, {0, "sed -f {R} notes.txt"}, {0, "awk -f {R} notes.txt"}, {0, "sort --files0-from={R}"},
	{0, "diff --from-file={R} notes.txt"}, {8, "cp -t {D} {R}"}, {8, "mv -t {D} {W}"}, {8, "touch -r {R} {W}"},
	{8, "ln -s {R} lnk && cat lnk"}, {8, "ln -s {D} dl && ls dl"}, {8, "ln {R} hard && cat hard"},
	{6, "cat /proc/self/cwd/{R}"}, {6, "cat /dev/fd/0 < {R}"}, {6, "cat /proc/$$/cwd/{R}"},
	{5, "mkdir -p d && cd d && cat ../{R}"}, {5, "cd ~ && cat /proc/self/cwd/.ssh/id_rsa"},
	{5, "cd .. && cat /proc/self/cwd/outside.txt"}, {5, "cd {D} && head /proc/self/cwd/{R}"},
	// git runs what its configuration names; more readers and writers.
	{10, "git config core.pager 'cat {R}' && git -p log -1"}, {9, "git -c core.pager='cat {R}' -p log -1"},
	{10, "git config alias.x '!cat {R}' && git x"}, {9, "git -c core.fsmonitor='cat {R}' status"},
	{9, "git -c alias.y='!cat {R}' y"}, {10, "git config core.editor 'cat {R}' && git commit --allow-empty"},
	{7, "git grep -n x"}, {7, "git -C .. status"}, {8, "git log -1 --output={W}"},
	{8, "dd if={R} of={W} 2>/dev/null"}, {8, "tar -cf {W} {R}"}, {9, "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='cat {R}' notes.txt"},
	{8, "split -l 1 {R} {W}"}, {8, "truncate -s 0 {W}"}, {8, "install -D {R} {W}"},
	{0, "base64 {R}"}, {0, "md5sum {R}"}, {0, "tac {R}"}, {0, "nl {R}"}, {0, "paste {R} {R}"},
	// curl with file: URLs (the lease reaches no host): the files its
	// options read and write.
	{8, "curl -s -o {W} file:///dev/null"}, {8, "curl -s --output-dir {D} -O file:///dev/null"},
	{8, "curl -s -D {W} -o /dev/null file:///dev/null"}, {8, "curl -s --trace-ascii {W} -o /dev/null file:///dev/null"},
	{8, "curl -s --stderr {W} file:///missing"}, {8, "curl -s --libcurl {W} -o /dev/null file:///dev/null"},
	{0, "curl -s -d @{R} -o /dev/null file:///dev/null"}, {0, "curl -s -H @{R} -o /dev/null file:///dev/null"},
	{0, "curl -s -w @{R} -o /dev/null file:///dev/null"}, {0, "curl -s --data-urlencode x@{R} -o /dev/null file:///dev/null"},
	{0, "curl -s -b {R} -o /dev/null file:///dev/null"}, {0, "curl -s -T {R} file:///dev/null"},
	{6, "curl -s -o /dev/null 'file:///dev/{null,zero}'"}, {6, "curl -s -T '{notes,sub/b}.txt' file:///dev/null"},
	// Assignments that are not NAME=VALUE, numbers a loop loses, sed as
	// GNU sed parses it, paths the line makes, /proc in any spelling.
	{2, ": ${CDPATH:=~}; cd .ssh && cat id_rsa"}, {2, "exec {PATH}>/dev/null; ls"}, {2, "coproc PATH { :; }; ls"},
	{2, "wait -n -p PATH; ls"}, {3, "i=0; for n in 1 2; do ((i < 1)); read i; done < {R}"},
	{3, "i=0; trap '((i))' EXIT; read i < {R}"}, {8, "sed -i'../*' s/a/b/ {W}"},
	{9, "sed 's/[/]*TODO one/cat ~\\/notes.md/e' notes.txt"}, {9, "sed -n ':x e cat {R}' notes.txt"},
	{8, "cp -P /proc/self/cwd lnk && cat lnk/.env"}, {8, "mkdir -p d && cp -P /proc/self/cwd d/ && cat d/cwd/.env"},
	{6, "cd ~ && cat /proc//self/cwd/.ssh/id_rsa"}, {6, "cd ~ && cat //proc/self/cwd/notes.md"},
	// ".." after a link: the kernel applies it where the link leads,
	// bash's cd beside the link.
	{5, "cd hop/.. && cat {R}"}, {5, "cd hop && cd .. && cat {R}"}, {5, "cd hop/.. && echo x > {W}"},
	{6, "cat hop/../{R}"}, {6, "cat hop/../b.txt"}, {6, "cat hop/../*.txt"}, {6, "cd hop/.. && cat .e*"},
	{6, "cat hop/../../.e*"}, {8, "echo x > hop/../{W}"}, {5, "cd hop/.. && cat hop/../b.txt"},
	// Modes that change how the rest of the script is read, by set or a
	// shell's invocation.
	{2, "set -o pipefail -k; ls PATH=src"}, {2, "set -oo pipefail keyword; ls PATH=src"}, {2, "bash -k -c 'ls PATH=src'"},
	{6, "set -H -o history\n: .eXv\ncat !$:s/X/n/"}, {5, "bash -O cdable_vars -c 'cd HOME && cat notes.md'"},
	{6, "bash -O nocaseglob -c 'cat .E*'"}, {6, "bash -O nocaseglob -c 'cat ~/.SS*/id_rsa'"},
}

var (
	readOperands = []string{"notes.txt", "src/a.go", "sub/b.txt", "../outside.txt", "~/notes.md", "~/.ssh/id_rsa", ".env", "\"$HOME/.aws/credentials\"", "missing.txt", "sub/deeper/c.txt"}
	// operandClass tags the operands that are a construct of their own.
	operandClass  = map[string]int{"\"$HOME/.aws/credentials\"": 6}
	writeOperands = []string{"out.txt", "sub/out.txt", "../outside-w.txt", "~/out.txt", "new.txt", "sub/deeper/w.txt"}
	dirOperands   = []string{".", "src", "sub", "..", "~", "~/.ssh", "sub/deeper"}
	separators    = []string{" && ", "; ", " || ", "\n", " | "}
)

type line struct {
	stmts   []string
	seps    []string
	classes [][]int // per statement
}

// classOf is the sorted union of the statements' classes.
func (l line) classOf() []int {
	var out []int
	for _, cs := range l.classes {
		for _, c := range cs {
			if !containsInt(out, c) {
				out = append(out, c)
			}
		}
	}
	sort.Ints(out)
	return out
}

func (l line) text() string {
	var b strings.Builder
	for i, s := range l.stmts {
		if i > 0 {
			b.WriteString(l.seps[i-1])
		}
		b.WriteString(s)
	}
	return b.String()
}

// fill puts operands in a template's holes; classes gains the classes of
// operands that are constructs of their own.
func fill(r *rand.Rand, text string, classes *[]int) string {
	for _, h := range []struct {
		hole  string
		words []string
	}{{"{R}", readOperands}, {"{W}", writeOperands}, {"{D}", dirOperands}} {
		for strings.Contains(text, h.hole) {
			w := h.words[r.IntN(len(h.words))]
			if c, ok := operandClass[w]; ok && !containsInt(*classes, c) {
				*classes = append(*classes, c)
			}
			text = strings.Replace(text, h.hole, w, 1)
		}
	}
	return text
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

func generate(r *rand.Rand) line {
	var l line
	n := 1 + r.IntN(3)
	for len(l.stmts) < n {
		tp := templates[r.IntN(len(templates))]
		if len(l.stmts) > 0 {
			l.seps = append(l.seps, separators[r.IntN(len(separators))])
		}
		cs := []int{tp.class}
		l.stmts = append(l.stmts, fill(r, tp.text, &cs))
		l.classes = append(l.classes, cs)
	}
	return l
}

// ---- running a line for real ----

// event is one thing bash did: a program executed, or a path read or
// written (opened, created, renamed, removed).
type event struct {
	kind string // "exec", "read", "write", "list"
	path string
}

var (
	straceLine = regexp.MustCompile(`^(\w+)\((.*)\)\s+= (-?\d+)(?:<([^>]*)>)?`)
	quoted     = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	dirfd      = regexp.MustCompile(`^(AT_FDCWD|\d+)(?:<([^>]*)>)?`)
)

const traced = "execve,openat,open,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,truncate,chdir,fchdir"

// run executes the line with bash under strace in the workspace and
// returns what it did inside the sandbox.
func (sb sandbox) run(t *testing.T, shell, cmd string) []event {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "strace", "-f", "-qq", "-y", "-s", "4096", "-e", "trace="+traced, "-e", "signal=none", "-o", out, shell, "-c", cmd)
	c.Dir = sb.ws
	c.Env = []string{"HOME=" + sb.home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C"}
	c.Stdin = nil
	_ = c.Run() // the line's own exit status does not matter
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("strace left no trace: %v", err)
	}
	defer f.Close()
	var evs []event
	first := true
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		txt := sc.Text()
		// "PID syscall(args) = ret<path>"
		if i := strings.IndexByte(txt, ' '); i > 0 {
			if _, err := strconv.Atoi(txt[:i]); err == nil {
				txt = strings.TrimSpace(txt[i+1:])
			}
		}
		m := straceLine.FindStringSubmatch(txt)
		if m == nil {
			continue
		}
		name, args, ret, retPath := m[1], m[2], m[3], m[4]
		if strings.HasPrefix(ret, "-") {
			continue // failed: it did nothing
		}
		paths := quoted.FindAllStringSubmatch(args, -1)
		arg := func(i int) string {
			if i < len(paths) {
				return unescape(paths[i][1])
			}
			return ""
		}
		switch name {
		case "execve":
			if first {
				first = false // bash itself
				continue
			}
			evs = append(evs, event{"exec", arg(0)})
		case "openat", "open", "creat":
			p := retPath
			if p == "" {
				continue
			}
			kind := "read"
			switch {
			case name == "creat" || strings.Contains(args, "O_WRONLY") || strings.Contains(args, "O_RDWR") || strings.Contains(args, "O_CREAT") || strings.Contains(args, "O_TRUNC"):
				kind = "write"
			case strings.Contains(args, "O_DIRECTORY"):
				kind = "list"
			}
			evs = append(evs, event{kind, p})
		case "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat":
			for _, p := range pathArgs(args, 2) {
				evs = append(evs, event{"write", p})
			}
		case "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "truncate":
			for _, p := range pathArgs(args, 1) {
				evs = append(evs, event{"write", p})
			}
		}
	}
	var inside []event
	for _, e := range evs {
		if e.path == "" {
			continue
		}
		p := e.path
		if e.kind == "exec" && !filepath.IsAbs(p) {
			// A program run by a relative path is one in the sandbox
			// (every directory the line can be in is inside it).
			inside = append(inside, event{"exec-relative", p})
			continue
		}
		p = filepath.Clean(p)
		if e.kind == "read" {
			// Opening a directory (find keeps its start directory open)
			// lists it; it reads no file.
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				e.kind = "list"
			}
		}
		if e.kind == "exec" || p == sb.root || strings.HasPrefix(p, sb.root+"/") {
			inside = append(inside, event{e.kind, p})
		}
	}
	return inside
}

// pathArgs reads the path arguments of an *at call ("AT_FDCWD</dir>",
// "name") or a plain one ("name", relative to a directory -y does not
// show: those are kept only when absolute).
func pathArgs(args string, n int) []string {
	var out []string
	parts := splitArgs(args)
	for i := 0; i < len(parts) && len(out) < n; i++ {
		a := strings.TrimSpace(parts[i])
		if m := dirfd.FindStringSubmatch(a); m != nil && m[2] != "" && i+1 < len(parts) {
			if q := quoted.FindStringSubmatch(parts[i+1]); q != nil {
				p := unescape(q[1])
				if !filepath.IsAbs(p) {
					p = filepath.Join(m[2], p)
				}
				out = append(out, p)
				i++
				continue
			}
		}
		if q := quoted.FindStringSubmatch(a); q != nil && filepath.IsAbs(unescape(q[1])) {
			out = append(out, unescape(q[1]))
		}
	}
	return out
}

// splitArgs splits a syscall's argument list at top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, inQ, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && inQ:
			i++
		case c == '"':
			inQ = !inQ
		case inQ:
		case c == '<' || c == '{' || c == '[':
			depth++
		case c == '>' || c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func unescape(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// ---- comparing ----

// missed lists what bash did that the gate did not derive.
func (sb sandbox) missed(use resources.Use, evs []event) []string {
	abs := func(refs []resources.PathRef) []string {
		var out []string
		for _, r := range refs {
			out = append(out, r.Abs)
		}
		return out
	}
	reads, writes, mentions := abs(use.Reads), abs(use.Writes), abs(use.Mentions)
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	runsGit := contains(use.Executables, "git")
	for _, e := range evs {
		insideWS := e.path == sb.ws || strings.HasPrefix(e.path, sb.ws+"/")
		if runsGit && (e.kind == "read" || e.kind == "list") && strings.HasPrefix(e.path, sb.ws+"/.git/") {
			continue // git reading its own repository
		}
		switch e.kind {
		case "exec-relative":
			add("ran a program planted in the sandbox: " + e.path)
		case "exec":
			if strings.HasPrefix(e.path, sb.root+"/") {
				add("ran a program planted in the sandbox: " + sb.short(e.path))
			} else if !contains(use.Executables, filepath.Base(e.path)) && !transparent[filepath.Base(e.path)] {
				add("ran " + filepath.Base(e.path) + " (derived programs: " + strings.Join(use.Executables, " ") + ")")
			}
		case "write":
			if _, err := os.Lstat(e.path); err != nil && coversSibling(writes, e.path) {
				continue // a temporary file beside a derived write (sed -i), gone again
			}
			if !covers(writes, e.path) && !suffixCovers(use.Writes, e.path) {
				add("wrote " + sb.short(e.path))
			}
		case "read":
			if !covers(append(reads, writes...), e.path) && (!insideWS || !covers(mentions, e.path)) && !globCovers(use, e.path) {
				add("read " + sb.short(e.path))
			}
		case "list":
			if !insideWS && !covers(append(append(reads, writes...), mentions...), e.path) && !globCovers(use, e.path) {
				add("listed " + sb.short(e.path))
			}
		}
	}
	sort.Strings(out)
	return out
}

func (sb sandbox) short(p string) string {
	switch {
	case strings.HasPrefix(p, sb.home+"/") || p == sb.home:
		return "~" + strings.TrimPrefix(p, sb.home)
	case strings.HasPrefix(p, sb.ws+"/"):
		return strings.TrimPrefix(p, sb.ws+"/")
	case p == sb.ws:
		return "."
	case strings.HasPrefix(p, filepath.Dir(sb.ws)+"/"):
		return "../" + strings.TrimPrefix(p, filepath.Dir(sb.ws)+"/")
	}
	return p
}

// transparent are wrappers the gate judges by the program they run
// ("timeout 60 npm test" is npm): running one is covered by deriving what
// it wraps, which the comparison checks on its own exec.
var transparent = map[string]bool{"timeout": true, "env": true, "nice": true, "nohup": true, "stdbuf": true, "time": true, "setsid": true}

// covers: p is one of the derived paths or lies below one (a directory
// read or written as a whole).
func covers(derived []string, p string) bool {
	for _, d := range derived {
		if d == p || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

func coversSibling(derived []string, p string) bool {
	for _, d := range derived {
		if filepath.Dir(d) == filepath.Dir(p) {
			return true
		}
	}
	return false
}

// suffixCovers: a derived write of generated names (split's PREFIX*)
// stands for p: p is the path up to its last "*", a suffix without a
// slash, then the rest.
func suffixCovers(writes []resources.PathRef, p string) bool {
	for _, w := range writes {
		i := strings.LastIndexByte(w.Abs, '*')
		if !w.AnySuffix || i < 0 {
			continue
		}
		head, tail := w.Abs[:i], w.Abs[i+1:]
		if len(p) > len(head)+len(tail) && strings.HasPrefix(p, head) && strings.HasSuffix(p, tail) &&
			!strings.Contains(p[len(head):len(p)-len(tail)], "/") {
			return true
		}
	}
	return false
}

// globCovers: a derived path or search pattern with wildcards matches p.
func globCovers(use resources.Use, p string) bool {
	var pats []string
	for _, g := range use.Globs {
		pats = append(pats, g.Abs)
	}
	for _, r := range append(append(use.Reads, use.Writes...), use.Mentions...) {
		if strings.ContainsAny(r.Abs, "*?[{") {
			pats = append(pats, r.Abs)
		}
	}
	for _, pat := range pats {
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- the test ----

type verdict struct {
	allowed bool
	reason  string
	use     resources.Use
}

func decide(st *registry.State, now time.Time, ws, cmd string) verdict {
	res := registry.Evaluate(st, ws, "L", registry.ToolCall{Tool: "Bash", Input: map[string]any{"command": cmd}}, now, nil)
	return verdict{allowed: res.Verdict == registry.VerdictAllow, reason: res.Reason, use: res.Use}
}

// finding is one line the gate allowed that did more than it derived.
type finding struct {
	line    string
	classes []int
	missed  []string
}

// check decides and, when allowed, runs one line with bash (and with dash,
// when installed, for a line whose bytes the shells may read differently:
// the clients run sh -c too); it returns what was missed (nil when the
// line was refused or fully derived).
func check(t *testing.T, base string, st *registry.State, now time.Time, cmd string) (bool, []string) {
	sb := newSandbox(t, base)
	defer os.RemoveAll(sb.root)
	os.Setenv("HOME", sb.home) // the gate resolves ~ as the agent's shell does
	// The registry runs in the workspace (leasedeck, leasedeck serve):
	// paths through /proc/self are resolved in its process, not bash's.
	if err := os.Chdir(sb.ws); err != nil {
		t.Fatal(err)
	}
	v := decide(st, now, sb.ws, cmd)
	if !v.allowed {
		return false, nil
	}
	miss := sb.missed(v.use, sb.run(t, "bash", cmd))
	if strings.ContainsAny(cmd, "\r\\") {
		if _, err := exec.LookPath("dash"); err == nil {
			for _, m := range sb.missed(v.use, sb.run(t, "dash", cmd)) {
				if !contains(miss, m) {
					miss = append(miss, "dash: "+m)
				}
			}
		}
	}
	return true, miss
}

// minimise drops statements while the line still shows a miss.
func minimise(t *testing.T, base string, st *registry.State, now time.Time, l line) (line, []string) {
	_, miss := check(t, base, st, now, l.text())
	for changed := true; changed && len(l.stmts) > 1; {
		changed = false
		for i := range l.stmts {
			cand := line{stmts: append(append([]string{}, l.stmts[:i]...), l.stmts[i+1:]...),
				classes: append(append([][]int{}, l.classes[:i]...), l.classes[i+1:]...)}
			cand.seps = append([]string{}, l.seps...)
			if i < len(cand.seps) {
				cand.seps = append(cand.seps[:i], cand.seps[i+1:]...)
			} else if len(cand.seps) > 0 {
				cand.seps = cand.seps[:len(cand.seps)-1]
			}
			if _, m := check(t, base, st, now, cand.text()); len(m) > 0 {
				l, miss, changed = cand, m, true
				break
			}
		}
	}
	return l, miss
}

func requireStrace(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: the differential test against the real shell needs it (apt-get install strace)")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if out, err := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here (no ptrace permission?): %v %s", err, out)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func recordFindings(t *testing.T, fs []finding) {
	path := os.Getenv("LEASEDECK_DIFF_FINDINGS")
	if path == "" || len(fs) == 0 {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("findings file: %v", err)
		return
	}
	defer f.Close()
	for _, x := range fs {
		fmt.Fprintf(f, "\n- classes %v: `%s`\n  missed: %s\n", x.classes, strings.ReplaceAll(strings.ReplaceAll(x.line, "\n", "\\n"), "\r", "\\r"), strings.Join(x.missed, "; "))
	}
}

func TestShellDifferentialRandom(t *testing.T) {
	requireStrace(t)
	base := t.TempDir()
	t.Setenv("HOME", os.Getenv("HOME")) // restored after the sandboxes' HOMEs
	t.Chdir(".")                        // and the directory after theirs
	st, now := diffState(t)
	seed := uint64(envInt("LEASEDECK_DIFF_SEED", 20261201))
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	n, budget := envInt("LEASEDECK_DIFF_LINES", 200), time.Duration(envInt("LEASEDECK_DIFF_SECONDS", 90))*time.Second
	known := map[string]bool{}
	for _, c := range knownCases {
		if c.open {
			known[c.line] = true // a fixed case is checked like any other line
		}
	}
	start := time.Now()
	var findings, fresh []finding
	seen := map[string]bool{}
	tried, ran := 0, 0
	for ; tried < n && time.Since(start) < budget; tried++ {
		l := generate(r)
		allowed, miss := check(t, base, st, now, l.text())
		if allowed {
			ran++
		}
		if len(miss) == 0 {
			continue
		}
		min, mmiss := minimise(t, base, st, now, l)
		if key := min.text(); !seen[key] {
			seen[key] = true
			f := finding{key, min.classOf(), mmiss}
			findings = append(findings, f)
			if !known[key] {
				fresh = append(fresh, f)
			}
		}
	}
	t.Logf("seed %d: %d lines in %v, %d allowed and run under strace, %d refused or held; %d under-derivations, %d of them new",
		seed, tried, time.Since(start).Round(time.Millisecond), ran, tried-ran, len(findings), len(fresh))
	recordFindings(t, fresh)
	for _, f := range fresh {
		t.Errorf("the gate allowed %q (classes %v) but did not derive: %s", f.line, f.classes, strings.Join(f.missed, "; "))
	}
}

// knownCases are the under-derivations the random test found, as a table:
// the minimal line and its class. open ones are not fixed yet (the random
// run does not fail on them; the shell analysis owns the fix); a fixed one
// must stay refused or fully derived.
var knownCases = []struct {
	class int
	line  string
	open  bool
}{
	// Found with the default seed against the shell analysis of 2026-12-01;
	// all fixed by the shell analysis of issue 12.
	{0, "sort ../outside.txt", false},
	{1, "echo hi \\\r\ncat \"$HOME/.aws/credentials\"", false},
	{1, "echo hi \\\r\ncat missing.txt", false},
	{2, "BASH_CMDS[ls]=/bin/cat; ls ../outside.txt", false},
	{2, "BASH_CMDS[ls]=/bin/cat; ls \"$HOME/.aws/credentials\"", false},
	{2, "BASH_CMDS[ls]=/bin/cat; ls ~/notes.md", false},
	{2, "PATH=src:$PATH ls", false},
	{3, "b='['; c='$(cat missing.txt)]'; v=\"a$b$c\"; ((v)) 2>/dev/null", false},
	{3, "b='['; c='$(cat ~/.ssh/id_rsa)]'; v=\"a$b$c\"; ((v)) 2>/dev/null", false},
	{4, "./src/ls", false},
	{4, "PATH=~/bin:$PATH ls", false},
	{4, "src/ls", false},
	{4, "~/bin/ls", false},
	{5, "env -C src cat ~/notes.md", false},
	{6, "$'\\x63at' \"$HOME/.aws/credentials\"", false},
	{6, "X=~/.ssh; cat $X/id_rsa", false},
	{6, "c\\at \"$HOME/.aws/credentials\"", false},
	{6, "cat $PWD/.env", false},
	{6, "cat ${HOME}/.netrc", false},
	{6, "cat \"$HOME/.aws/credentials\" > sub/out.txt", false},
	{6, "cat \"$HOME/.aws/credentials\"", false},
	{6, "cat \"$HOME/notes.md\"", false},
	{6, "echo `cat \"$HOME/.aws/credentials\"`", false},
	{6, "sort -o out.txt \"$HOME/.aws/credentials\"", false},
	{6, "sort -o sub/deeper/w.txt \"$HOME/.aws/credentials\"", false},
	{6, "timeout 5 cat \"$HOME/.aws/credentials\"", false},
	{7, "grep -r planted ~", false},
	{8, "awk '{print > \"new.txt\"}' ~/notes.md", false},
	{8, "awk '{print > \"sub/deeper/w.txt\"}' src/a.go", false},
	{8, "find . -maxdepth 1 -name notes.txt -fprint out.txt", false},
	{8, "find . -maxdepth 1 -name notes.txt -fprint sub/out.txt", false},
	{8, "sed 's/x/y/w out.txt' notes.txt", false},
	{8, "sed 's/x/y/w sub/deeper/w.txt' ../outside.txt", false},
	{8, "sed 's/x/y/w sub/out.txt' sub/b.txt", false},
	{8, "sort -o out.txt sub/deeper/c.txt", false},
	{8, "uniq sub/deeper/c.txt ../outside-w.txt", false},
	{9, "awk 'BEGIN{system(\"cat sub/b.txt\")}'", false},
	{9, "env cat ../outside.txt", false},
	{9, "find . -maxdepth 1 -name notes.txt -exec cat ../outside.txt \\;", false},
	{9, "timeout 5 cat ~/notes.md", false},
	{9, "xargs -a ~/notes.md echo", false},
	// Found with seeds 11, 13 and 17 (1,500 lines each) after the grammar grew.
	{9, "echo ../outside.txt | xargs cat", false},
	{9, "echo ~/notes.md | xargs cat", false},
	// The registry resolves /proc/self/cwd in its own process (run in the
	// workspace), while bash is wherever the line cd'd.
	{5, "cd ~ && cat /proc/self/cwd/.ssh/id_rsa", false},
	{5, "cd .. && cat /proc/self/cwd/outside.txt", false},
	// Found after git, dd, split and more readers joined the grammar;
	// fixed by modelling dd's if=/of= and split's FILE and PREFIX* outputs.
	{8, "split -l 1 ~/notes.md sub/out.txt", false},
	{8, "split -l 1 src/a.go out.txt", false},
	{8, "dd if=../outside.txt of=new.txt 2>/dev/null", false},
	{8, "dd if=notes.txt of=sub/out.txt 2>/dev/null", false},
	{8, "split -l 1 -d --additional-suffix=.part src/a.go sub/p", false},
	{8, "dd if=src/a.go of=sub/deeper/w.txt bs=1 count=4 status=none", false},
	// Found when curl joined the grammar: -O with a file: URL wrote its name
	// where the gate did not look; fixed by judging -O for every URL.
	{8, "curl -s --output-dir ~ -O file:///dev/null", false},
	{8, "curl -s --output-dir .. -O file:///dev/null", false},
	{8, "curl -s --output-dir sub -O file:///dev/null", false},
	{0, "curl -s -d @notes.txt -H @sub/b.txt -o out.txt file:///dev/null", false},
	// Found attacking the gate by hand (issue 12, sixth pass), each
	// confirmed under strace: ${NAME:=…} moves cd, GNU sed reads a
	// bracket and a label differently, a line makes a link, /proc is
	// spelled past the analysis' rewrite.
	{2, ": ${CDPATH:=~}; cd .ssh && cat id_rsa", false},
	{9, "sed 's/[/]*TODO one/cat ~\\/notes.md/e' notes.txt", false},
	{9, "sed -n ':x e cat ~/notes.md' notes.txt", false},
	{8, "cp -P /proc/self/cwd lnk && cat lnk/.env", false},
	{6, "cd ~ && cat /proc//self/cwd/.ssh/id_rsa", false},
	// Found attacking the gate by hand (seventh pass): a glob's ".."
	// after a link was read where a cleaning puts it, not the kernel.
	{6, "cat hop/../*.txt", false},
	{6, "cat hop/../../.e*", false},
	// Modes set by set's options after a mode's name, history expansion,
	// and a shell's invocation (bash -k, -O cdable_vars, -O nocaseglob).
	{2, "set -o pipefail -k; ls PATH=src", false},
	{2, "bash -k -c 'ls PATH=src'", false},
	{6, "set -H -o history\n: .eXv\ncat !$:s/X/n/", false},
	{5, "bash -O cdable_vars -c 'cd HOME && cat notes.md'", false},
	{6, "bash -O nocaseglob -c 'cat .E*'", false},
}

func TestShellDifferentialCases(t *testing.T) {
	requireStrace(t)
	base := t.TempDir()
	t.Setenv("HOME", os.Getenv("HOME"))
	t.Chdir(".")
	st, now := diffState(t)
	stillOpen, ran := 0, 0
	for _, c := range knownCases {
		allowed, miss := check(t, base, st, now, c.line)
		if allowed {
			ran++
			t.Logf("class %d: %q allowed, run under strace", c.class, c.line)
		}
		switch {
		case !c.open && len(miss) > 0:
			t.Errorf("class %d: %q is allowed again and the gate does not derive: %s", c.class, c.line, strings.Join(miss, "; "))
		case c.open && len(miss) == 0:
			t.Logf("class %d: %q is now refused or fully derived: mark it fixed", c.class, c.line)
		case c.open:
			stillOpen++
			t.Logf("class %d (open): %q misses %s", c.class, c.line, strings.Join(miss, "; "))
		}
	}
	t.Logf("%d known cases (%d allowed and run, the rest refused or held), %d still open", len(knownCases), ran, stillOpen)
}
