package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ignoredDevices are redirection targets that are not files in the sense of
// the gate: they neither leak nor persist data.
var ignoredDevices = map[string]bool{
	"/dev/null":    true,
	"/dev/stdin":   true,
	"/dev/stdout":  true,
	"/dev/stderr":  true,
	"/dev/tty":     true,
	"/dev/zero":    true,
	"/dev/random":  true,
	"/dev/urandom": true,
}

// redirects records the reads and writes of a statement's redirections and
// returns the context with the statement's standard input.
func (a *analyzer) redirects(rs []*syntax.Redirect, c ctx) ctx {
	for _, r := range rs {
		if a.err != nil {
			return c
		}
		a.fdVarRedirect(r)
		a.words(r.Word, c)
		if r.Hdoc != nil {
			a.walkWords(r.Hdoc, c, false) // a here-document body is data unless a shell reads it
		}
		toStdin := redirFd(r) == "0"
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
			a.redirPath(r, true, false)
		case syntax.RdrIn:
			a.redirPath(r, false, true)
			if toStdin {
				c.stdin, c.hdoc = stdinFile, nil
				if isProcSubst(r.Word) {
					c.stdin = stdinPipe
				}
			}
		case syntax.RdrInOut:
			a.redirPath(r, true, true)
			if toStdin {
				c.stdin, c.hdoc = stdinFile, nil
			}
		case syntax.DplIn, syntax.DplOut:
			l, ok := staticWord(r.Word)
			if !ok || l.hasGlob() || l.hasBraces() {
				a.failf("cannot determine the target of redirection %s%s", r.Op, wordText(r.Word))
				return c
			}
			if isFdDup(l.s) {
				if r.Op == syntax.DplIn && toStdin && l.s != "0" && l.s != "0-" {
					c.stdin, c.hdoc = stdinPipe, nil // another descriptor: unknown content
				}
				continue
			}
			// ">&file" without a descriptor number means "&>file".
			a.redirPath(r, r.Op == syntax.DplOut, r.Op == syntax.DplIn)
			if r.Op == syntax.DplIn && toStdin {
				c.stdin, c.hdoc = stdinFile, nil
			}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if toStdin {
				c.stdin, c.hdoc = stdinHeredoc, r
			}
		default:
			a.failf("cannot analyse shell command: unsupported redirection %s", r.Op)
		}
	}
	return c
}

// redirectsStdin reports whether any redirection replaces standard input.
func redirectsStdin(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if redirFd(r) == "0" {
				return true
			}
		}
	}
	return false
}

// redirFd is the descriptor a redirection applies to, as written.
func redirFd(r *syntax.Redirect) string {
	if r.N != nil {
		return r.N.Value
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "0"
	}
	return "1"
}

func isFdDup(s string) bool {
	return s == "-" || isDigits(s) || (strings.HasSuffix(s, "-") && isDigits(s[:len(s)-1]))
}

// redirPath records the target of a file redirection.
func (a *analyzer) redirPath(r *syntax.Redirect, write, read bool) {
	if isProcSubst(r.Word) { // < <(cmd) and > >(cmd) are pipes, not files
		return
	}
	p, ok := pathWord(r.Word)
	if !ok {
		a.failf("cannot determine the file of redirection %s%s", r.Op, wordText(r.Word))
		return
	}
	if p == "" {
		a.failf("cannot determine the file of redirection %s%s: empty name", r.Op, wordText(r.Word))
		return
	}
	if ignoredDevices[p] {
		return
	}
	if a.later > 0 && !isAbsOrHome(p) {
		a.deferred = append(a.deferred, deferredPath{p: p, write: write, read: read})
		return
	}
	for _, full := range a.inCwds(p) {
		a.addPath(full, write, read)
	}
}

func (a *analyzer) addPath(p string, write, read bool) {
	if write {
		a.add(&a.use.Writes, "w:", p)
	}
	if read {
		a.add(&a.use.Reads, "r:", p)
	}
}

// pathWord returns the file name a word denotes, as ResolvePath expects it:
// "~" and "~/…" stay home-relative, a quoted leading tilde becomes "./~…".
// ok is false for dynamic words, patterns and ~user forms.
func pathWord(w *syntax.Word) (string, bool) {
	l, ok := staticWord(w)
	if !ok || l.hasGlob() || l.hasBraces() {
		return "", false
	}
	home, other := l.tildeForm()
	if other {
		return "", false
	}
	if strings.HasPrefix(l.s, "~") && !home {
		return "./" + l.s, true
	}
	return l.s, true
}
