package resources

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// bashUse derives the resources of a Bash call: the command line analysed
// by ShellAt, its paths resolved where the shell starts. That is the
// workspace, or the call's cwd member (the directory the client's shell is
// in, which the bridge sets from the hook payload; relative to the
// workspace when relative).
func bashUse(workspace string, input map[string]any) (Use, error) {
	cmd, err := requiredString(input, "command")
	if err != nil {
		return Use{}, err
	}
	start, rebase, err := shellStart(workspace, input)
	if err != nil {
		return Use{}, err
	}
	sh, err := ShellAt(cmd, start)
	if err != nil {
		return Use{}, &FieldError{Pointer: "/command", Err: err}
	}
	use := Use{Dequoted: sh.Dequoted, Decoded: sh.Decoded}
	resolver := newPathResolver(workspace)
	var resolved []string // raw paths already resolved as reads or writes
	var reads, writes refSet
	add := func(list *refSet, paths ...[]string) error {
		for _, ps := range paths {
			for _, p := range ps {
				resolved = append(resolved, p)
				err := resolver.resolveEach(rebase(p), func(ref PathRef) error {
					list.add(ref)
					return nil
				})
				if err != nil {
					return &FieldError{Pointer: "/command", Err: err}
				}
			}
		}
		return nil
	}
	if err := add(&reads, sh.Reads, sh.ReadOperands); err != nil {
		return Use{}, err
	}
	if err := add(&writes, sh.Writes, sh.WriteOperands); err != nil {
		return Use{}, err
	}
	for _, t := range sh.TreeReads {
		err := resolver.resolveEach(rebase(t.Root), func(ref PathRef) error {
			use.TreeReads = append(use.TreeReads, newTreeRef(t, ref, workspace))
			return nil
		})
		if err != nil {
			return Use{}, &FieldError{Pointer: "/command", Err: err}
		}
	}
	resolved = append(resolved, sh.WritePatterns...)
	if err := addWritePatterns(&resolver, rebase, sh.WritePatterns, &writes); err != nil {
		return Use{}, err
	}
	for _, d := range sh.WorkTrees {
		resolved = append(resolved, d)
		ref, err := workTreeWrite(&resolver, rebase(d))
		if err != nil {
			return Use{}, err
		}
		writes.add(ref)
	}
	if len(sh.gitRuns) > 0 {
		more, holds, err := gitRewriteWrites(&resolver, rebase, cmd, &sh)
		if err != nil {
			return Use{}, err
		}
		for _, ref := range more {
			writes.add(ref)
		}
		sh.Holds = append(sh.Holds, holds...)
	}
	use.Mentions = mentionsOf(&resolver, rebase, sh.Operands, resolved)
	if len(sh.made) > 0 || len(sh.WorkTrees) > 0 {
		if err := checkMade(&resolver, rebase, &sh, &use, reads.list, writes.list); err != nil {
			return Use{}, err
		}
	}
	// A line that runs apply_patch (Codex's patch tool, also a program
	// on its PATH) writes the files its patches name; a patch the gate
	// cannot read (from a file, a variable) could write anything.
	if contains(sh.Executables, "apply_patch") || contains(sh.Executables, "applypatch") {
		patched, err := patchWritesIn(cmd)
		if err != nil {
			return Use{}, &FieldError{Pointer: "/command", Err: fmt.Errorf("apply_patch: %w", err)}
		}
		if err := add(&writes, patched); err != nil {
			return Use{}, err
		}
	}
	use.Reads, use.Writes = reads.list, writes.list
	use.Executables = sh.Executables
	use.PipesIntoInterpreter = sh.PipesIntoInterpreter
	use.Hosts = sh.Hosts
	use.Holds = sh.Holds
	if len(sh.gitRuns) > 0 {
		use.Holds = append(use.Holds, gitRunHolds(&resolver, rebase, &sh, writes.list)...)
		use.GitReads = gitReadRefs(&resolver, rebase, sh.gitRuns)
	}
	return use, nil
}

// addWritePatterns adds the writes of files not named yet (split's
// outputs): each pattern's last "*" stands for any suffix.
func addWritePatterns(resolver *pathResolver, rebase func(string) string, patterns []string, writes *refSet) error {
	for _, p := range patterns {
		ref, err := resolver.resolve(rebase(p))
		if err != nil {
			return &FieldError{Pointer: "/command", Err: err}
		}
		if !strings.Contains(ref.Abs, "*") {
			// The pattern itself exists and is a symbolic link: what
			// it stands for is no longer a suffix of a name.
			return fieldErr("/command", "cannot tell which files %s stands for", shorten(p))
		}
		ref.AnySuffix = true
		writes.add(ref)
	}
	return nil
}

// mentionsOf resolves the operands of a line that are not options and
// were not resolved already as reads or writes (resolved): the paths it
// names without the gate knowing what its programs do with them.
func mentionsOf(resolver *pathResolver, rebase func(string) string, operands, resolved []string) []PathRef {
	var isResolved func(string) bool
	if len(resolved) <= smallList {
		isResolved = func(o string) bool { return slices.Contains(resolved, o) }
	} else {
		set := make(map[string]bool, len(resolved))
		for _, p := range resolved {
			set[p] = true
		}
		isResolved = func(o string) bool { return set[o] }
	}
	var out []PathRef
	for _, o := range operands {
		if (strings.HasPrefix(o, "-") && !strings.Contains(o, "/")) || isResolved(o) {
			continue // an option, not a path; or already checked as a read or write
		}
		_ = resolver.resolveEach(rebase(o), func(ref PathRef) error {
			out = append(out, ref)
			return nil
		})
	}
	return out
}

// shellStart is the absolute directory a Bash call starts in (the
// workspace, or its cwd member) and how a path the analysis reports is
// handed to ResolvePath: relative paths stay relative to the workspace
// where they can (the call's resolver has resolved the workspace once and
// walks on from there); only a start outside it makes them absolute.
func shellStart(workspace string, input map[string]any) (string, func(string) string, error) {
	start := workspace
	cwd, _, err := optionalString(input, "cwd")
	if err != nil {
		return "", nil, err
	}
	if cwd != "" {
		if cwd == "~" || strings.HasPrefix(cwd, "~/") || strings.IndexByte(cwd, 0) >= 0 {
			return "", nil, fieldErr("/cwd", "must be a plain directory path")
		}
		if !filepath.IsAbs(cwd) {
			cwd = workspace + string(filepath.Separator) + cwd
		}
		// Not cleaned: a ".." after a symbolic link is applied where
		// the link leads by the kernel, and beside it by a cleaning
		// (see resolveEach); the resolver follows both.
		start = strings.TrimRight(cwd, string(filepath.Separator))
		if start == "" || filepath.Clean(start) == workspace && !hasDotDot(start) {
			start = filepath.Clean(cwd)
		}
	}
	prefix := ""
	if start != workspace {
		if rel, ok := strings.CutPrefix(start, workspace+string(filepath.Separator)); ok && !hasDotDot(rel) {
			prefix = rel
		} else {
			prefix = start
		}
	}
	if prefix == "" {
		return start, unchanged, nil // no closure to allocate on every call
	}
	rebase := func(p string) string {
		if filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") {
			return p
		}
		// Joined as spelled, not cleaned (see above).
		return prefix + string(filepath.Separator) + p
	}
	return start, rebase, nil
}

func unchanged(p string) string { return p }

// refSet is a list of paths without duplicates (the same path resolved and
// as spelled). A short list is looked through; past smallList a set of its
// paths takes over, so that a line of thousands of paths stays linear.
type refSet struct {
	list []PathRef
	set  map[refKey]bool
}

type refKey struct {
	abs, lexAbs string
	anySuffix   bool
}

func (s *refSet) add(ref PathRef) {
	if s.set == nil && len(s.list) < smallList {
		if !hasRef(s.list, ref) {
			s.list = append(s.list, ref)
		}
		return
	}
	if s.set == nil {
		s.set = make(map[refKey]bool, 2*len(s.list))
		for _, r := range s.list {
			s.set[refKey{r.Abs, r.lexAbs, r.AnySuffix}] = true
		}
	}
	if k := (refKey{ref.Abs, ref.lexAbs, ref.AnySuffix}); !s.set[k] {
		s.set[k] = true
		s.list = append(s.list, ref)
	}
}
