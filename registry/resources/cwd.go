package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxCwds bounds the number of candidate working directories tracked for cd.
const maxCwds = 16

// cwdWords are command words that may change the working directory, or run
// text that might. If one appears inside a loop or a function body, the order
// in which relative redirections and directory changes happen is unknown.
var cwdWords = map[string]bool{"cd": true, "pushd": true, "popd": true, "eval": true, "source": true, ".": true}

// cd follows a directory change.
func (a *analyzer) cd(args []*syntax.Word) {
	a.lastCd = nil
	i := 0
	for i < len(args) {
		l, ok := staticWord(args[i])
		if !ok || l.s == "-" || len(l.s) < 2 || l.s[0] != '-' {
			break
		}
		i++
		if l.s == "--" {
			break
		}
	}
	target := "~"
	if i < len(args) {
		p, ok := pathWord(args[i])
		if !ok || p == "-" || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
			a.cwdUnknown = true // dynamic, cd -, pushd +N
			return
		}
		target = p
	}
	if target == "" {
		return // cd "" stays where it is
	}
	next := make([]string, 0, len(a.cwds))
	for _, d := range a.cwds {
		next = union(next, []string{joinCwd(d, target)})
	}
	a.lastCd = next
	a.cwds = union(a.cwds, next)
	a.allCwds = union(a.allCwds, next)
	if len(a.allCwds) > maxCwds {
		a.cwdUnknown = true
	}
	if len(a.cwds) > maxCwds {
		a.cwdUnknown = true
	}
}

// inCwds returns p as seen from every candidate working directory.
func (a *analyzer) inCwds(p string) []string {
	if strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/fd/") {
		rel, ok := procSelfCwd(p)
		if !ok {
			a.failf("cannot tell what %s names: it is a view of a process, and the gate is another process", shorten(p))
			return nil
		}
		if rel != "" {
			p = rel // the shell's own working directory, wherever cd took it
		}
	}
	if isAbsOrHome(p) {
		return []string{p}
	}
	if a.cwdUnknown {
		a.failf("cannot determine the directory of relative path %q: the working directory changes in a way the analysis cannot follow", p)
		return nil
	}
	out := make([]string, 0, len(a.cwds))
	for _, d := range a.cwds {
		out = append(out, joinCwd(d, p))
	}
	return out
}

func isAbsOrHome(p string) bool {
	return strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/")
}

func joinCwd(dir, p string) string {
	if dir == "" || isAbsOrHome(p) {
		return p
	}
	return strings.TrimSuffix(dir, "/") + "/" + p
}

func union(x, y []string) []string {
	out := append([]string(nil), x...)
	for _, v := range y {
		found := false
		for _, w := range out {
			if w == v {
				found = true
				break
			}
		}
		if !found {
			out = append(out, v)
		}
	}
	return out
}

// procSelfCwd rewrites /proc/self/cwd/x (and /proc/thread-self/cwd/x) to
// the relative path ./x: the shell's working directory, not the gate's.
// Other views of the shell's own process (/proc/self/fd/…, /dev/fd/…,
// /proc/self/root when the shell may be chrooted, /proc/$$/…) are not ok;
// rel is "" for a /proc path about another process, which the gate
// resolves like any path.
func procSelfCwd(p string) (rel string, ok bool) {
	for _, self := range []string{"/proc/self/", "/proc/thread-self/"} {
		if !strings.HasPrefix(p, self) {
			continue
		}
		rest := strings.TrimPrefix(p, self)
		if rest == "cwd" {
			return ".", true
		}
		if strings.HasPrefix(rest, "cwd/") {
			return "./" + strings.TrimPrefix(rest, "cwd/"), true
		}
		return "", false
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		return "", false
	}
	return "", true
}
