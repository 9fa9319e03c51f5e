package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// gitConfigEntry is one key of a git configuration file, as spelled:
// section and key compare without case (strings.EqualFold), the
// subsection exactly (the old [s.sub] form's without case, as git
// lower-cases it). The strings are slices of the file where they can be.
type gitConfigEntry struct {
	section, subsection, key, value string
	dotted                          bool // [s.sub]: the subsection compares without case
	quoted                          bool // [s "sub"], even with an empty sub
	valueless                       bool // "key" alone: boolean true
}

// parseGitConfig reads git's configuration format as git's config.c does,
// as far as the gate needs: sections ([s], [s "sub"], the old [s.sub]),
// keys with or without values, quoting, the escapes git knows, comments
// and backslash-newline continuations, a CR LF read as a newline.
// Anything git would reject is an error, so that the gate never reads a
// file differently from git. fn sees each entry in order; its error stops
// the parse.
func parseGitConfig(data []byte, fn func(gitConfigEntry) error) error {
	p := gitConfigParser{s: strings.TrimPrefix(string(data), "\ufeff"), line: 1}
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return nil
		case isConfigSpace(c) || c == '\n':
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return err
			}
		case isAlpha(c):
			e, err := p.entry()
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		default:
			return p.errorf("unexpected %q", c)
		}
	}
}

type gitConfigParser struct {
	s                   string
	i, line             int
	section, subsection string
	dotted, quoted      bool
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

// isConfigSpace is git's isspace (its own ctype: space, tab, CR and the
// newline, which ends a line here) without the newline.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r'
}

// header reads a section header after its "[".
func (p *gitConfigParser) header() error {
	start := p.i
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return p.errorf("unterminated section header")
		case c == ']':
			name := p.s[start : p.i-1]
			if name == "" {
				return p.errorf("empty section name")
			}
			sec, sub, dotted := strings.Cut(name, ".")
			p.section, p.subsection, p.dotted, p.quoted = sec, sub, dotted, false
			return nil
		case c == ' ' || c == '\t':
			return p.extendedHeader(p.s[start : p.i-1])
		case isKeyChar(c) || c == '.':
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
	start := p.i
	var sub []byte // only when an escape makes it differ from the text
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return p.errorf("unterminated subsection name")
		case c == '"':
			if c, ok := p.next(); !ok || c != ']' {
				return p.errorf(`expected "]" after the subsection name`)
			}
			p.section, p.subsection, p.dotted, p.quoted = section, p.s[start:p.i-2], false, true
			if sub != nil {
				p.subsection = string(sub)
			}
			return nil
		case c == '\\':
			if sub == nil {
				sub = []byte(p.s[start : p.i-1])
			}
			c, ok = p.next()
			if !ok || c == '\n' {
				return p.errorf("unterminated subsection name")
			}
			sub = append(sub, c)
		case sub != nil:
			sub = append(sub, c)
		}
	}
}

// entry reads "key" or "key = value"; its first letter is read.
func (p *gitConfigParser) entry() (gitConfigEntry, error) {
	start := p.i - 1
	for {
		c, ok := p.peek()
		if !ok || !isKeyChar(c) {
			break
		}
		p.i++
	}
	e := gitConfigEntry{section: p.section, subsection: p.subsection, dotted: p.dotted, quoted: p.quoted, key: p.s[start:p.i]}
	for {
		c, ok := p.peek()
		if !ok || (c != ' ' && c != '\t') {
			break
		}
		p.i++
	}
	c, ok := p.nextCRLF()
	switch {
	case !ok || c == '\n':
		e.valueless = true
		return e, nil
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
// it. A line without quotes or backslashes is a slice of the file.
func (p *gitConfigParser) value() (string, error) {
	end := strings.IndexByte(p.s[p.i:], '\n')
	if end < 0 {
		end = len(p.s) - p.i
	}
	line := p.s[p.i : p.i+end]
	if !strings.ContainsAny(line, "\"\\") {
		if j := strings.IndexAny(line, "#;"); j >= 0 {
			line = line[:j]
		}
		v := strings.TrimFunc(line, func(r rune) bool { return r < 0x80 && isConfigSpace(byte(r)) })
		if !strings.ContainsAny(v, "\t\r") {
			p.i += end
			return v, nil
		}
	}
	var b strings.Builder
	quoted := false
	pending := 0 // where unquoted blanks not yet known to be inside the value begin
	for {
		c, ok := p.nextCRLF()
		if !ok || c == '\n' {
			if quoted {
				return "", p.errorf("unterminated quote")
			}
			return b.String()[:b.Len()-pending], nil
		}
		if !quoted && isConfigSpace(c) {
			if b.Len() > 0 {
				b.WriteByte(' ') // git keeps an inner blank as a space
				pending++
			}
			continue
		}
		if !quoted && (c == '#' || c == ';') {
			p.skipLine()
			return b.String()[:b.Len()-pending], nil
		}
		pending = 0
		switch c {
		case '\\':
			c, ok = p.nextCRLF()
			switch {
			case !ok && quoted:
				return "", p.errorf("unterminated quote")
			case !ok:
				return b.String()[:b.Len()-pending], nil // git reads the end as a newline
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

// errConfigHeld stops reading a configuration that already holds git.
var errConfigHeld = errors.New("held")

// maxGitConfig is the most of one configuration file the gate reads.
const maxGitConfig = 1 << 20

// maxGitIncludeDepth is git's own limit on nested includes.
const maxGitIncludeDepth = 10

// gitConfigFacts are what the gate takes from a repository's
// configuration: hooks directories and work trees named, as written.
type gitConfigFacts struct {
	hooksPaths     []string // core.hooksPath values, ~ expanded, relative or absolute
	workTrees      []string // core.worktree values, ~ expanded, relative or absolute
	worktreeConfig bool     // extensions.worktreeConfig is set (to anything but false)
	programs       []string // the programs named by path in keys git runs as commands (core.fsmonitor = ./x)
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
	var why string
	err = parseGitConfig(data, func(e gitConfigEntry) error {
		if why = g.configEntry(p, e, depth, facts); why != "" {
			return errConfigHeld
		}
		return nil
	})
	if err != nil && why == "" {
		return fmt.Sprintf("the gate cannot read %s as git would, and it configures what git runs: %v", g.show(p), err)
	}
	return why
}

// configEntry takes what the gate needs from one entry of the
// configuration file p into facts, or says why git is held.
func (g *gitRepoCheck) configEntry(p string, e gitConfigEntry, depth int, facts *gitConfigFacts) string {
	section := func(name string) bool { return strings.EqualFold(e.section, name) }
	key := func(name string) bool { return strings.EqualFold(e.key, name) }
	switch {
	case (section("include") || section("includeif")) && key("path"):
		if e.valueless || e.value == "" {
			return "" // git ignores an empty include
		}
		inc, ok := g.expandPath(e.value)
		if !ok {
			return fmt.Sprintf("%s includes %s, which the gate cannot resolve", g.show(p), e.value)
		}
		if !filepath.IsAbs(inc) {
			inc = filepath.Join(filepath.Dir(p), inc)
		}
		inc, ok = g.real(inc)
		if !ok || g.agentWritable(inc) {
			return fmt.Sprintf("the configuration of the repository includes %s, a file an agent can write; it decides what git runs", g.show(inc))
		}
		return g.readConfig(inc, depth+1, facts)
	case section("extensions") && key("worktreeconfig"):
		facts.worktreeConfig = facts.worktreeConfig || !isGitFalse(e)
	case section("core") && !e.quoted && !e.dotted && !e.valueless && (key("hookspath") || key("worktree")):
		v, ok := g.expandPath(e.value)
		if !ok {
			return fmt.Sprintf("core.%s %s in %s is a path the gate cannot resolve", e.key, e.value, g.show(p))
		}
		if key("hookspath") {
			facts.hooksPaths = append(facts.hooksPaths, v)
		} else {
			facts.workTrees = append(facts.workTrees, v)
		}
	case !e.valueless && gitCommandKey(e):
		if prog := commandProgram(e.value); strings.Contains(prog, "/") {
			v, ok := g.expandPath(prog)
			if !ok {
				return fmt.Sprintf("%s.%s in %s runs %s, which the gate cannot resolve", e.section, e.key, g.show(p), prog)
			}
			facts.programs = append(facts.programs, v)
		}
	}
	return ""
}

// gitCommandKey reports whether git runs the value of e as a command (or
// a program): then a program named by a path in the work tree is one the
// agent can replace.
func gitCommandKey(e gitConfigEntry) bool {
	sub := e.quoted || e.dotted
	is := func(section, key string) bool {
		return strings.EqualFold(e.section, section) && strings.EqualFold(e.key, key)
	}
	switch {
	case !sub && (is("core", "fsmonitor") || is("core", "sshcommand") || is("core", "pager") || is("core", "editor") ||
		is("core", "askpass") || is("core", "gitproxy") || is("sequence", "editor") || is("diff", "external") ||
		is("gpg", "program") || is("credential", "helper") || is("interactive", "difffilter") || is("sendemail", "smtpserver")):
		return true
	case sub && (is("filter", "clean") || is("filter", "smudge") || is("filter", "process") || is("diff", "command") ||
		is("diff", "textconv") || is("merge", "driver") || is("gpg", "program") || is("credential", "helper") ||
		is("difftool", "cmd") || is("mergetool", "cmd")):
		return true
	case strings.EqualFold(e.section, "pager"), strings.EqualFold(e.section, "alias") && strings.HasPrefix(e.value, "!"):
		return true
	}
	return false
}

// commandProgram is the program a command value starts with: its first
// word, without an alias's "!" or the quotes around it.
func commandProgram(v string) string {
	v = strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(v), "!"), " \t")
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		if j := strings.IndexByte(v[1:], v[0]); j >= 0 {
			return v[1 : j+1]
		}
		return v[1:]
	}
	if j := strings.IndexAny(v, " \t;|&"); j >= 0 {
		return v[:j]
	}
	return v
}

// expandPath expands a configuration path as git's pathname type does:
// "~/" is the home directory; "~user/" and "%(prefix)/" are not expanded
// here (ok is false: the gate does not guess whose home or which prefix).
func (g *gitRepoCheck) expandPath(v string) (string, bool) {
	if g.realWS() != nil {
		return "", false
	}
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
		if repo.own && d == repo.dir {
			continue // the workspace's own .git
		}
		if g.agentWritable(d) {
			return fmt.Sprintf("git would use the repository at %s, whose configuration and hooks an agent can write; they decide what git runs", g.show(d))
		}
	}
	var facts gitConfigFacts
	if why := g.readConfig(repo.common+string(filepath.Separator)+"config", 0, &facts); why != "" {
		return why
	}
	// config.worktree is read when extensions.worktreeConfig says so.
	if facts.worktreeConfig {
		if why := g.readConfig(repo.dir+string(filepath.Separator)+"config.worktree", 0, &facts); why != "" {
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
	if c := g.writableBelow(facts.hooksPaths, bases); c != "" {
		return fmt.Sprintf("core.hooksPath makes git run the hooks in %s, a directory an agent can write", g.show(c))
	}
	if c := g.writableBelow(facts.programs, bases); c != "" {
		return fmt.Sprintf("the configuration of the repository makes git run %s, a program an agent can write", g.show(c))
	}
	return ""
}

// writableBelow is the first of paths (absolute, or relative to any of
// bases) that an agent can write, or "".
func (g *gitRepoCheck) writableBelow(paths, bases []string) string {
	for _, p := range paths {
		cands := []string{p}
		if !filepath.IsAbs(p) {
			cands = cands[:0]
			for _, b := range bases {
				cands = append(cands, filepath.Join(b, p))
			}
		}
		for _, c := range cands {
			if real, ok := g.real(c); !ok || g.agentWritable(real) {
				return c
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

// isGitFalse reports whether an entry is a boolean false as git spells it
// (false, no, off, 0, or an empty value).
func isGitFalse(e gitConfigEntry) bool {
	if e.valueless {
		return false
	}
	switch strings.ToLower(e.value) {
	case "false", "no", "off", "0", "":
		return true
	}
	return false
}
