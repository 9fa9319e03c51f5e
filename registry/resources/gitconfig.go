package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// gitConfigEntry is one key of a git configuration file: section and key
// lower-cased, the subsection as written (git compares it exactly).
type gitConfigEntry struct {
	section, subsection, key, value string
	valueless                       bool // "key" alone: boolean true
}

// parseGitConfig reads git's configuration format as git's config.c does,
// as far as the gate needs: sections ([s], [s "sub"], the old [s.sub]),
// keys with or without values, quoting, the escapes git knows, comments
// and backslash-newline continuations. Anything git would reject is an
// error, so that the gate never reads a file differently from git.
func parseGitConfig(data []byte) ([]gitConfigEntry, error) {
	p := gitConfigParser{s: strings.TrimPrefix(string(data), "\ufeff"), line: 1}
	var out []gitConfigEntry
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return out, nil
		case isConfigSpace(c) || c == '\n':
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			e, err := p.entry(c)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		default:
			return nil, p.errorf("unexpected %q", c)
		}
	}
}

type gitConfigParser struct {
	s                   string
	i, line             int
	section, subsection string
	inSection           bool
}

func (p *gitConfigParser) next() (byte, bool) {
	if p.i >= len(p.s) {
		return 0, false
	}
	c := p.s[p.i]
	p.i++
	if c == '\n' {
		p.line++
	}
	return c, true
}

func (p *gitConfigParser) peek() (byte, bool) {
	if p.i >= len(p.s) {
		return 0, false
	}
	return p.s[p.i], true
}

func (p *gitConfigParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *gitConfigParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

// header reads a section header after its "[".
func (p *gitConfigParser) header() error {
	var name strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return p.errorf("unterminated section header")
		case c == ']':
			if name.Len() == 0 {
				return p.errorf("empty section name")
			}
			sec, sub, dotted := strings.Cut(name.String(), ".")
			p.section, p.subsection, p.inSection = strings.ToLower(sec), "", true
			if dotted {
				p.subsection = strings.ToLower(sub) // [s.sub]: git lower-cases it
			}
			return nil
		case c == ' ' || c == '\t':
			return p.extendedHeader(strings.ToLower(name.String()))
		case isKeyChar(c) || c == '.':
			name.WriteByte(c)
		default:
			return p.errorf("invalid character %q in a section name", c)
		}
	}
}

// extendedHeader reads the rest of [section "subsection"] after the
// section name and a blank.
func (p *gitConfigParser) extendedHeader(section string) error {
	if strings.Contains(section, ".") || section == "" {
		return p.errorf("invalid section name %q", section)
	}
	c, ok := p.next()
	for ok && (c == ' ' || c == '\t') {
		c, ok = p.next()
	}
	if !ok || c != '"' {
		return p.errorf(`expected a quoted subsection name`)
	}
	var sub strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return p.errorf("unterminated subsection name")
		case c == '"':
			if c, ok := p.next(); !ok || c != ']' {
				return p.errorf(`expected "]" after the subsection name`)
			}
			p.section, p.subsection, p.inSection = section, sub.String(), true
			return nil
		case c == '\\':
			c, ok = p.next()
			if !ok || c == '\n' {
				return p.errorf("unterminated subsection name")
			}
			sub.WriteByte(c)
		default:
			sub.WriteByte(c)
		}
	}
}

// entry reads "key", "key = value" or "key value…" after its first letter.
func (p *gitConfigParser) entry(first byte) (gitConfigEntry, error) {
	if !p.inSection {
		return gitConfigEntry{}, p.errorf("a key before any section")
	}
	key := []byte{first}
	for {
		c, ok := p.peek()
		if !ok || !isKeyChar(c) {
			break
		}
		p.i++
		key = append(key, c)
	}
	e := gitConfigEntry{section: p.section, subsection: p.subsection, key: strings.ToLower(string(key))}
	for {
		c, ok := p.peek()
		if !ok || (c != ' ' && c != '\t') {
			break
		}
		p.i++
	}
	c, ok := p.next()
	switch {
	case !ok || c == '\n':
		e.valueless = true
		return e, nil
	case c == '\r':
		if c, ok := p.next(); !ok || c == '\n' {
			e.valueless = true
			return e, nil
		}
		return e, p.errorf("stray carriage return after key %s", e.key)
	case c != '=':
		return e, p.errorf("invalid key %s%c", e.key, c)
	}
	v, err := p.value()
	e.value = v
	return e, err
}

// value reads a value after "=", as git's parse_value: leading blanks
// dropped, trailing unquoted blanks dropped, quotes removed, \\ \" \n \t
// \b unescaped, backslash-newline joining lines, an unquoted # or ; ending
// it. A CR LF is a newline, as git reads it.
func (p *gitConfigParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	var pending []byte // unquoted blanks not yet known to be inside the value
	for {
		c, ok := p.nextCRLF()
		if !ok || c == '\n' {
			if quoted {
				return "", p.errorf("unterminated quote")
			}
			return b.String(), nil
		}
		if !quoted && isConfigSpace(c) {
			if b.Len() > 0 {
				pending = append(pending, c)
			}
			continue
		}
		if !quoted && (c == '#' || c == ';') {
			p.skipLine()
			return b.String(), nil
		}
		b.Write(pending)
		pending = pending[:0]
		switch c {
		case '\\':
			c, ok = p.nextCRLF()
			switch {
			case !ok:
				return b.String(), nil // git reads the end as a newline
			case c == '\n':
				continue
			case c == 't':
				c = '\t'
			case c == 'b':
				c = '\b'
			case c == 'n':
				c = '\n'
			case c == '\\' || c == '"':
			default:
				return "", p.errorf("invalid escape \\%c", c)
			}
			b.WriteByte(c)
		case '"':
			quoted = !quoted
		default:
			b.WriteByte(c)
		}
	}
}

// nextCRLF is next with a CR LF read as one newline.
func (p *gitConfigParser) nextCRLF() (byte, bool) {
	c, ok := p.next()
	if ok && c == '\r' {
		if n, more := p.peek(); more && n == '\n' {
			return p.next()
		}
	}
	return c, ok
}

// isConfigSpace is C's isspace without the newline, which ends a line.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// maxGitConfig is the most of one configuration file the gate reads.
const maxGitConfig = 1 << 20

// maxGitIncludeDepth is git's own limit on nested includes.
const maxGitIncludeDepth = 10

// gitConfigFacts are what the gate takes from a repository's
// configuration: hooks directories and work trees named, as written.
type gitConfigFacts struct {
	hooksPaths []string // core.hooksPath values, ~ expanded, relative or absolute
	workTrees  []string // core.worktree values, made absolute
}

// readConfig reads the configuration file p and what it includes into
// facts. A missing file is no configuration (git ignores it). An include
// the agent can write, or a file the gate cannot read as git would, is
// the reason to hold.
func (g *gitRepoCheck) readConfig(p string, depth int, facts *gitConfigFacts) string {
	if depth > maxGitIncludeDepth {
		return fmt.Sprintf("the configuration of the repository nests includes deeper than git allows (%s)", g.show(p))
	}
	data, err := readSmall(p, maxGitConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return fmt.Sprintf("the gate cannot read %s, which configures what git runs: %v", g.show(p), err)
	}
	entries, err := parseGitConfig(data)
	if err != nil {
		return fmt.Sprintf("the gate cannot read %s as git would, and it configures what git runs: %v", g.show(p), err)
	}
	dir := filepath.Dir(p)
	for _, e := range entries {
		switch {
		case (e.section == "include" || e.section == "includeif") && e.key == "path":
			if e.valueless || e.value == "" {
				continue // git ignores an empty include
			}
			inc, ok := g.expandPath(e.value)
			if !ok {
				return fmt.Sprintf("%s includes %s, which the gate cannot resolve", g.show(p), e.value)
			}
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(dir, inc)
			}
			inc, ok = g.real(inc)
			if !ok || g.agentWritable(inc) {
				return fmt.Sprintf("the configuration of the repository includes %s, a file an agent can write; it decides what git runs", g.show(inc))
			}
			if why := g.readConfig(inc, depth+1, facts); why != "" {
				return why
			}
		case e.section == "core" && e.subsection == "" && e.key == "hookspath" && !e.valueless:
			hp, ok := g.expandPath(e.value)
			if !ok {
				return fmt.Sprintf("core.hooksPath %s in %s is a path the gate cannot resolve", e.value, g.show(p))
			}
			facts.hooksPaths = append(facts.hooksPaths, hp)
		case e.section == "core" && e.subsection == "" && e.key == "worktree" && !e.valueless:
			wt, ok := g.expandPath(e.value)
			if !ok {
				return fmt.Sprintf("core.worktree %s in %s is a path the gate cannot resolve", e.value, g.show(p))
			}
			facts.workTrees = append(facts.workTrees, wt)
		}
	}
	return ""
}

// expandPath expands a configuration path as git's pathname type does:
// "~/" is the home directory; "~user/" and "%(prefix)/" are not expanded
// here (ok is false: the gate does not guess whose home or which prefix).
func (g *gitRepoCheck) expandPath(v string) (string, bool) {
	switch {
	case v == "~" || strings.HasPrefix(v, "~/"):
		if g.home == "" {
			return "", false
		}
		return filepath.Join(g.home, v[1:]), true
	case strings.HasPrefix(v, "~"), strings.HasPrefix(v, "%(prefix)/"), strings.IndexByte(v, 0) >= 0:
		return "", false
	}
	return v, true
}

// judge decides whether git may use repo, whose work tree (when it has
// one) is top: the git and common directories must be ones no lease
// writes, and so must every file the configuration includes and every
// hooks directory it names.
func (g *gitRepoCheck) judge(repo gitRepo, top string) string {
	for _, d := range []string{repo.dir, repo.common} {
		if g.agentWritable(d) {
			return fmt.Sprintf("git would use the repository at %s, whose configuration and hooks an agent can write; they decide what git runs", g.show(d))
		}
	}
	var facts gitConfigFacts
	for _, p := range []string{filepath.Join(repo.common, "config"), filepath.Join(repo.dir, "config.worktree")} {
		if why := g.readConfig(p, 0, &facts); why != "" {
			return why
		}
	}
	bases := []string{top, repo.dir}
	for _, wt := range facts.workTrees {
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(repo.dir, wt)
		}
		bases = append(bases, wt)
	}
	for _, hp := range facts.hooksPaths {
		cands := []string{hp}
		if !filepath.IsAbs(hp) {
			cands = cands[:0]
			for _, b := range bases {
				cands = append(cands, filepath.Join(b, hp))
			}
		}
		for _, c := range cands {
			if real, ok := g.real(c); !ok || g.agentWritable(real) {
				return fmt.Sprintf("core.hooksPath makes git run the hooks in %s, a directory an agent can write", g.show(c))
			}
		}
	}
	return ""
}

// real is p with its symbolic links resolved as far as it exists (a
// missing rest is taken literally); ok is false when it cannot be.
func (g *gitRepoCheck) real(p string) (string, bool) {
	r, err := resolve(p)
	if err != nil {
		return "", false
	}
	return r, true
}
