package resources

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Use is everything one tool call touches.
//
// Reads and Writes are resolved paths; Hosts are normalised host names (see
// HostOf); Executables and PipesIntoInterpreter come from a Bash command
// (see ShellUse). Opaque is true for a tool outside Claude Code's vocabulary,
// mcp__<server>__<tool> included: the gate checks such a tool by its name only,
// and Use holds no resources for it.
type Use struct {
	Reads                []PathRef `json:"reads,omitempty"`
	Writes               []PathRef `json:"writes,omitempty"`
	Hosts                []string  `json:"hosts,omitempty"`
	Executables          []string  `json:"executables,omitempty"`
	PipesIntoInterpreter bool      `json:"pipes_into_interpreter,omitempty"`
	Opaque               bool      `json:"opaque,omitempty"`
	// Mentions are a shell command's arguments resolved as paths: not
	// known to be read or written, but checked against deny.paths.
	Mentions []PathRef `json:"mentions,omitempty"`
	// Globs are the file patterns a Glob or Grep call searches: checked
	// against deny.paths for every file they could match.
	Globs []GlobRef `json:"globs,omitempty"`
	// Holds are what a human must see before a shell command runs (see
	// ShellUse.Holds).
	Holds []Hold `json:"holds,omitempty"`
	// TreeReads are directories read with everything below them (a
	// recursive grep, the Grep tool on a directory): see CheckTrees.
	TreeReads []TreeRef `json:"tree_reads,omitempty"`
	// TreeChecked is the walk of TreeReads for a deny list, once done.
	TreeChecked *TreeCheck `json:"-"`
	// GitReads are git commands that print contents from the object
	// store or the index without naming the paths (git log -p, git show,
	// git diff, git grep …): see CheckGitReads.
	GitReads []GitReadRef `json:"git_reads,omitempty"`
	// GitChecked is CheckGitReads' answer for a deny list, once done.
	GitChecked *GitCheck `json:"-"`
	// Dequoted is a shell line's words with their quoting removed (see
	// ShellUse.Dequoted): scanned for secrets.
	Dequoted string `json:"-"`
	// Decoded is what a shell line decodes to (see ShellUse.Decoded):
	// scanned for secrets.
	Decoded []Decoded `json:"-"`
}

// FieldError is a tool input the gate cannot use. Pointer is the JSON pointer
// of the offending member ("/command", "/file_path", "/allowed_domains/2").
type FieldError struct {
	Pointer string
	Err     error
}

func (e *FieldError) Error() string { return fmt.Sprintf("tool input %s: %v", e.Pointer, e.Err) }

func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(pointer, format string, args ...any) error {
	return &FieldError{Pointer: pointer, Err: fmt.Errorf(format, args...)}
}

// FromToolCall derives the resources of one tool call in Claude Code's tool
// vocabulary (DESIGN "Tool vocabulary and exit codes"). workspace is the
// absolute workspace directory that relative paths are resolved against.
//
//   - Bash (command): Shell; redirection targets become Reads and Writes.
//   - Write, Edit, MultiEdit (file_path), NotebookEdit (notebook_path and/or
//     file_path): one write.
//   - Read (file_path): one read.
//   - Glob, Grep (path, default the workspace): one read. For Glob, the
//     literal leading directories of pattern are appended to path, so
//     {"pattern": "../../etc/*"} reads ../../etc, not the workspace. The
//     Glob tool's pattern and the Grep tool's glob become Globs (a Grep
//     glob without a slash matches at any depth, as ripgrep's does).
//   - WebFetch (url): one host.
//   - WebSearch: the hosts of allowed_domains when present, else none.
//   - Agent and its alias Task: no resources.
//   - mcp__<server>__<tool> and any other name: Opaque, no resources.
//
// A required member that is missing or has the wrong type, a path that cannot
// be resolved, a URL without a usable host and a shell command that cannot be
// analysed are all errors (a *FieldError naming the member): the gate
// refuses the call.
func FromToolCall(workspace, tool string, input map[string]any) (Use, error) {
	if tool == ToolBash {
		return bashUse(workspace, input)
	}
	b := &useBuilder{workspace: workspace, paths: newPathResolver(workspace)}
	var err error
	switch tool {
	case ToolWrite, ToolEdit, ToolMultiEdit, ToolRead:
		err = b.files(tool == ToolRead, input)
	case ToolNotebookEdit:
		err = b.notebook(input)
	case ToolGlob, ToolGrep:
		err = globUse(&b.use, workspace, tool, input, b.addRead)
	case ToolWebFetch:
		err = b.webFetch(input)
	case ToolWebSearch:
		err = b.webSearch(input)
	case ToolAgent, ToolTask:
	default:
		b.use.Opaque = true
	}
	if err != nil {
		return Use{}, err
	}
	return b.use, nil
}

// useBuilder gathers the resources of one tool call, each path resolved
// against the workspace once and named once.
type useBuilder struct {
	workspace string
	paths     pathResolver
	use       Use
}

func hasRef(list []PathRef, ref PathRef) bool {
	for _, r := range list {
		if r.Abs == ref.Abs && r.lexAbs == ref.lexAbs && r.AnySuffix == ref.AnySuffix {
			return true
		}
	}
	return false
}

func (b *useBuilder) add(list *[]PathRef, pointer, p string) error {
	err := b.paths.resolveEach(p, func(ref PathRef) error {
		if !hasRef(*list, ref) {
			*list = append(*list, ref)
		}
		return nil
	})
	if err != nil {
		return &FieldError{Pointer: pointer, Err: err}
	}
	return nil
}

func (b *useBuilder) addRead(pointer, p string) error  { return b.add(&b.use.Reads, pointer, p) }
func (b *useBuilder) addWrite(pointer, p string) error { return b.add(&b.use.Writes, pointer, p) }

// files is Read, Write, Edit and MultiEdit: file_path, and every entry of
// file_paths — a call that writes several files (apply_patch, multi-file
// edits, translated by the bridge) names each one there, and each is
// checked, not only the first.
func (b *useBuilder) files(read bool, input map[string]any) error {
	addPath := b.addWrite
	if read {
		addPath = b.addRead
	}
	p, err := requiredString(input, "file_path")
	if err != nil {
		return err
	}
	if err := addPath("/file_path", p); err != nil {
		return err
	}
	more, err := stringList(input, "file_paths")
	if err != nil {
		return err
	}
	for i, q := range more {
		if err := addPath("/file_paths/"+strconv.Itoa(i), q); err != nil {
			return err
		}
	}
	return nil
}

// notebook is NotebookEdit: notebook_path and/or file_path, at least one.
func (b *useBuilder) notebook(input map[string]any) error {
	found := false
	for _, name := range []string{"notebook_path", "file_path"} {
		p, ok, err := optionalString(input, name)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		found = true
		if err := b.addWrite("/"+name, p); err != nil {
			return err
		}
	}
	if !found {
		return fieldErr("/notebook_path", "required string is missing")
	}
	return nil
}

// webFetch is WebFetch: the host of url, and of every entry of urls.
func (b *useBuilder) webFetch(input map[string]any) error {
	u, err := requiredString(input, "url")
	if err != nil {
		return err
	}
	h, err := HostOf(u)
	if err != nil {
		return &FieldError{Pointer: "/url", Err: err}
	}
	b.use.Hosts = append(b.use.Hosts, h)
	more, err := stringList(input, "urls")
	if err != nil {
		return err
	}
	for i, u := range more {
		h, err := HostOf(u)
		if err != nil {
			return &FieldError{Pointer: "/urls/" + strconv.Itoa(i), Err: err}
		}
		b.use.Hosts = append(b.use.Hosts, h)
	}
	return nil
}

// webSearch is WebSearch: the hosts of allowed_domains when present.
func (b *useBuilder) webSearch(input map[string]any) error {
	raw, ok := input["allowed_domains"]
	if !ok || raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		ss, isStrings := raw.([]string)
		if !isStrings {
			return fieldErr("/allowed_domains", "must be an array of strings")
		}
		for _, s := range ss {
			list = append(list, s)
		}
	}
	for i, v := range list {
		pointer := "/allowed_domains/" + strconv.Itoa(i)
		s, ok := v.(string)
		if !ok {
			return fieldErr(pointer, "must be a string")
		}
		h, err := HostOf(s)
		if err != nil {
			return &FieldError{Pointer: pointer, Err: err}
		}
		b.use.Hosts = append(b.use.Hosts, h)
	}
	return nil
}

func requiredString(input map[string]any, name string) (string, error) {
	s, ok, err := optionalString(input, name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fieldErr("/"+name, "required string is missing")
	}
	return s, nil
}

// optionalString returns a member that must be a string when present. JSON
// null counts as absent.
func optionalString(input map[string]any, name string) (string, bool, error) {
	v, ok := input[name]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fieldErr("/"+escapePointer(name), "must be a string, not %T", v)
	}
	return s, true, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// globBase returns the leading segments of a glob pattern that contain no
// pattern syntax: the directory the glob reads ("" when the first segment is
// already a pattern). A fully literal pattern is returned whole.
func globBase(pattern string) string {
	segs := strings.Split(pattern, "/")
	keep := 0
	for keep < len(segs) && !strings.ContainsAny(segs[keep], "*?[]{}!\\") {
		keep++
	}
	base := strings.Join(segs[:keep], "/")
	if base == "" && strings.HasPrefix(pattern, "/") {
		return "/"
	}
	return base
}

// joinToolPath appends rel to the tool's base path unless rel is absolute or
// home-relative on its own.
func joinToolPath(base, rel string) string {
	if filepath.IsAbs(rel) || rel == "~" || strings.HasPrefix(rel, "~/") {
		return rel
	}
	return strings.TrimSuffix(base, "/") + "/" + rel
}

// stringList reads an optional array of strings.
func stringList(input map[string]any, name string) ([]string, error) {
	raw, ok := input[name]
	if !ok || raw == nil {
		return nil, nil
	}
	switch l := raw.(type) {
	case []string:
		return l, nil
	case []any:
		out := make([]string, 0, len(l))
		for i, v := range l {
			s, ok := v.(string)
			if !ok {
				return nil, fieldErr("/"+name+"/"+strconv.Itoa(i), "must be a string")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fieldErr("/"+name, "must be an array of strings")
}

// globUse derives what a Glob or Grep call reads: the directory it searches
// (path, with a Glob pattern's literal leading directories) and the
// patterns it matches files with.
func globUse(use *Use, workspace, tool string, input map[string]any, addRead func(pointer, p string) error) error {
	p, ok, err := optionalString(input, "path")
	if err != nil {
		return err
	}
	if !ok || p == "" {
		p = "."
	}
	name := "glob"
	if tool == "Glob" {
		name = "pattern"
	}
	pattern, hasPattern, err := optionalString(input, name)
	if err != nil {
		return err
	}
	if tool == "Grep" && hasPattern && !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern // ripgrep: a glob without a slash matches any depth
	}
	dir, pointer, rest := p, "/path", ""
	if hasPattern && pattern != "" {
		base := globBase(pattern)
		if base != "" {
			dir, pointer = joinToolPath(p, base), "/"+name
		}
		rest = strings.TrimPrefix(strings.TrimPrefix(pattern, base), "/")
		if filepath.IsAbs(pattern) && base == "" {
			dir = "/"
		}
	}
	if err := addRead(pointer, dir); err != nil {
		return err
	}
	if tool == ToolGrep {
		// ripgrep reads every file below the path it searches, less what
		// the glob provably leaves out.
		root, err := ResolvePath(workspace, p)
		if err != nil {
			return &FieldError{Pointer: "/path", Err: err}
		}
		var f TreeFilter
		if g, _, _ := optionalString(input, "glob"); g != "" {
			f.Globs = []string{g}
		}
		// Whether the client's search follows links is its own business.
		use.TreeReads = append(use.TreeReads, newTreeRef(TreeRead{Program: "Grep", Root: p, Filter: f, Follow: true}, root, workspace))
	}
	if rest == "" {
		return nil
	}
	ref, err := ResolvePath(workspace, dir)
	if err != nil {
		return &FieldError{Pointer: "/" + name, Err: err}
	}
	use.Globs = append(use.Globs, globRef(pattern, ref, rest))
	if ref.lexAbs != "" && ref.lexAbs != ref.Abs {
		lex := PathRef{Rel: ref.lexRel, Abs: ref.lexAbs, Home: ref.lexHome, Inside: ref.lexRel != ""}
		use.Globs = append(use.Globs, globRef(pattern, lex, rest))
	}
	return nil
}

// TreeCheck is CheckTrees' answer for one deny list, kept with the call's
// resources so that the walk is done once, before the registry's lock is
// taken, and again only if the lease's deny list turns out different.
type TreeCheck struct {
	Deny   []string
	Result TreeResult
}
