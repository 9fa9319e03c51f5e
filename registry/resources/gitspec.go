package resources

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitPathspec is the part of the tree a command's pathspecs select, as far
// as the gate can prove it: literal paths (with :(top), :/ and
// :(literal)) select themselves and what lies below them; :!x, :^x and
// :(exclude)x leave a literal path out. A pathspec the gate cannot model
// (a wildcard, :(icase), :(glob), :(attr), one that leaves the work tree)
// selects the whole tree when it includes, and leaves nothing out when it
// excludes.
type gitPathspec struct {
	includes []string // repository-relative ("" is the whole tree)
	excludes []string
	given    bool // some include was given (else the whole tree, as git takes it)
}

// add reads one pathspec given in the directory prefix (repository-
// relative, "" at the top).
func (p *gitPathspec) add(spec, prefix string) {
	top, exclude, literal, unmodelled := false, false, false, false
	switch {
	case strings.HasPrefix(spec, ":("):
		end := strings.IndexByte(spec, ')')
		if end < 0 {
			unmodelled = true
			break
		}
		for _, m := range strings.Split(spec[2:end], ",") {
			switch m {
			case "top":
				top = true
			case "exclude":
				exclude = true
			case "literal":
				literal = true
			default:
				unmodelled = true
			}
		}
		spec = spec[end+1:]
	case strings.HasPrefix(spec, ":"):
		i := 1
		for ; i < len(spec) && strings.IndexByte("/!^", spec[i]) >= 0; i++ {
			switch spec[i] {
			case '/':
				top = true
			default:
				exclude = true
			}
		}
		if i < len(spec) && spec[i] == ':' {
			i++
		}
		spec = spec[i:]
	}
	if !literal && strings.ContainsAny(spec, "*?[\\") {
		unmodelled = true
	}
	joined := spec
	if !top {
		joined = path.Join(prefix, spec)
	}
	if joined == ".." || strings.HasPrefix(joined, "../") {
		unmodelled = true // outside the work tree: git refuses it, or reads what the gate cannot place
	}
	rel := path.Clean("/" + joined)[1:]
	switch {
	case exclude && !unmodelled && rel != "":
		p.excludes = append(p.excludes, rel)
	case exclude:
	case unmodelled:
		p.given = true
		p.includes = append(p.includes, "")
	default:
		p.given = true
		p.includes = append(p.includes, rel)
	}
}

func relUnder(rel, dir string) bool {
	return dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// has reports whether the file rel is selected.
func (p gitPathspec) has(rel string) bool {
	for _, x := range p.excludes {
		if relUnder(rel, x) {
			return false
		}
	}
	if !p.given {
		return true
	}
	for _, in := range p.includes {
		if relUnder(rel, in) {
			return true
		}
	}
	return false
}

// mayHoldBelow reports whether a file below the directory rel may be
// selected.
func (p gitPathspec) mayHoldBelow(rel string) bool {
	for _, x := range p.excludes {
		if relUnder(rel, x) {
			return false
		}
	}
	if !p.given || rel == "" {
		return true
	}
	for _, in := range p.includes {
		if relUnder(rel, in) || relUnder(in, rel) {
			return true
		}
	}
	return false
}

// gitExcludes reports whether the operand is a pathspec that leaves a
// path out (:!x, :^x, :(exclude)x): it names what git does not read.
func gitExcludes(s string) bool {
	if strings.HasPrefix(s, ":!") || strings.HasPrefix(s, ":^") {
		return true
	}
	if magic, ok := strings.CutPrefix(s, ":("); ok {
		if end := strings.IndexByte(magic, ')'); end >= 0 {
			for _, m := range strings.Split(magic[:end], ",") {
				if m == "exclude" {
					return true
				}
			}
		}
	}
	return false
}

// gitSpecReads is gitReadOps for the operands of a command that takes
// pathspecs: an exclusion is not a read (git log -p -- . ':!.env' reads
// everything but .env, which the object check then leaves out).
func (a *analyzer) gitSpecReads(prog string, ws []*syntax.Word, c ctx) {
	kept := make([]*syntax.Word, 0, len(ws))
	for _, w := range ws {
		if l, ok := staticWord(w); ok && gitExcludes(l.s) {
			continue
		}
		kept = append(kept, w)
	}
	a.gitReadOps(prog, kept, c)
}
