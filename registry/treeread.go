package registry

import (
	"fmt"
	"path"
	"slices"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// WriteGuardPaths are the root policy's deny entries inside the workspace
// that guard leasedeck's own files (.leasedeck/) and the clients' hook
// settings: what is there decides what runs, so no agent may write it,
// but it is not secret (the key and the token live in the state
// directory, outside the workspace). A recursive read of a directory
// above them (grep -rn TODO .) does not count them; a read that names
// them (cat .leasedeck/policy.json, grep x .codex/config.toml) is refused
// as before. A deny entry spelled otherwise (".claude/settings.local.json")
// counts for recursive reads like any other.
var WriteGuardPaths = []string{".leasedeck/**", ".claude/settings*.json", ".codex/**", ".gemini/**",
	".github/hooks/**", ".vscode/settings.json", ".qwen/**"}

// treeDeny is the deny list a tree read is checked against: deny less
// WriteGuardPaths.
func treeDeny(deny []string) []string {
	out := make([]string, 0, len(deny))
	for _, p := range deny {
		if !slices.Contains(WriteGuardPaths, p) {
			out = append(out, p)
		}
	}
	return out
}

// checkTrees walks the call's tree reads against the lease's deny list
// (once: a walk done before the lock for the same list is reused), adds
// the targets of links that lead out of a root to the call's reads, and
// holds a call whose trees could not be checked.
func checkTrees(g *Manifest, use resources.Use) resources.Use {
	if len(use.TreeReads) == 0 {
		return use
	}
	deny := treeDeny(g.Deny.Paths)
	if use.TreeChecked == nil || !slices.Equal(use.TreeChecked.Deny, deny) {
		use.TreeChecked = &resources.TreeCheck{Deny: deny, Result: resources.CheckTrees(use.TreeReads, deny)}
	}
	r := use.TreeChecked.Result
	if len(r.Targets) > 0 {
		use.Reads = append(use.Reads[:len(use.Reads):len(use.Reads)], r.Targets...)
	}
	if r.Hold != "" {
		prog := use.TreeReads[0].Program
		use.Holds = append(use.Holds[:len(use.Holds):len(use.Holds)], resources.Hold{Program: prog, Reason: r.Hold,
			// The tree may hold a denied file by the next call: a human
			// answers each one.
			Approval: "tree:" + prog, EveryCall: true})
	}
	return use
}

// treeDenied is the reason a tree read is refused: what it would read,
// which entry denies it, and how to search without it.
func treeDenied(f *resources.TreeFinding) string {
	what := displayPath(f.Entry)
	if f.Link != "" {
		what += " (through the link " + f.Link + ")"
	}
	return fmt.Sprintf("%s reads everything below %s, and %s there is denied by %s (deny.paths): %s",
		f.Tree.Program, displayPath(f.Tree.Root), what, f.Pattern, treeHint(f))
}

// treeHint tells the agent how to read the tree without the denied entry.
func treeHint(f *resources.TreeFinding) string {
	base := path.Base(displayPath(f.Entry))
	if f.Link != "" {
		base = path.Base(f.Link)
	}
	switch f.Tree.Program {
	case "grep", "egrep", "fgrep", "rgrep":
		opt := "--exclude=" + base
		if f.Entry.IsDir() && f.Link == "" {
			opt = "--exclude-dir=" + base
		}
		return fmt.Sprintf("search a directory that does not hold it, or leave it out (%s %s)", f.Tree.Program, opt)
	case "rg":
		return fmt.Sprintf("search a directory that does not hold it, or leave it out (rg -g '!%s')", base)
	case "Grep":
		return fmt.Sprintf("search a path that does not hold it, or give a glob that leaves it out (\"!%s\")", base)
	}
	return "name the files or directories to read rather than a directory above it"
}

// leaseDeny is a copy of the deny.paths of lease id, if it exists. The
// caller holds s.mu.
func (s *Service) leaseDeny(id string) ([]string, bool) {
	l := s.st.Leases[id]
	if l == nil || l.Granted == nil {
		return nil, false
	}
	return slices.Clone(l.Granted.Deny.Paths), true
}
