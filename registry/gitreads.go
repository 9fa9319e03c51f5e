package registry

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// checkGitReads reads the repositories of the call's content-printing git
// commands (git log -p, git show, git diff, git grep …) against the
// lease's deny list (once: a check done before the lock for the same list
// is reused), and holds a call whose reach could not be checked. The
// entries that only guard writes are left out, as for tree reads: a
// tracked .vscode/settings.json does not make git diff a secret read.
func checkGitReads(g *Manifest, use resources.Use) resources.Use {
	if len(use.GitReads) == 0 {
		return use
	}
	deny := treeDeny(g.Deny.Paths)
	if use.GitChecked == nil || !slices.Equal(use.GitChecked.Deny, deny) {
		use.GitChecked = &resources.GitCheck{Deny: deny, Result: resources.CheckGitReads(use.GitReads, deny)}
	}
	if r := use.GitChecked.Result; r.Hold != "" {
		use.Holds = append(use.Holds[:len(use.Holds):len(use.Holds)], resources.Hold{Program: "git", Reason: r.Hold,
			// The repository may hold a denied file by the next call: a
			// human answers each one.
			Approval: "git-objects", EveryCall: true})
	}
	return use
}

// gitDenied is the reason a git command that would print a denied file is
// refused: what it prints, where that is, which entry denies it, and how
// to go on without it.
func gitDenied(f *resources.GitFinding) string {
	prog := f.Read.Program
	if f.Reason != "" {
		return f.Reason
	}
	if f.Content != "" {
		return fmt.Sprintf("%s prints the content of %s (blob %s, denied by %s in deny.paths) under the name %s, from %s: %s",
			prog, f.Content, f.Blob, f.Pattern, gitShown(f), f.Where, gitContentHint(prog))
	}
	if f.Path == "" {
		return fmt.Sprintf("%s would print the blob %s, and the gate cannot tell which file it is (it may be one deny.paths denies): name the file instead (%s REV:path)",
			prog, f.Blob, prog)
	}
	return fmt.Sprintf("%s prints %s from %s, and it is denied by %s (deny.paths): %s", prog, gitShown(f), f.Where, f.Pattern, gitHint(prog, f.Path))
}

// gitShown is the finding's path as the agent names it (below the
// workspace when the work tree lies inside it).
func gitShown(f *resources.GitFinding) string {
	if f.Read.Top.Inside && f.Read.Top.Rel != "." {
		return f.Read.Top.Rel + "/" + f.Path
	}
	return f.Path
}

// gitContentHint tells the agent how to go on when a file holds the
// content of a denied one.
func gitContentHint(prog string) string {
	if prog == "git checkout-index" || prog == "git read-tree" {
		return "it would write the denied file's bytes where the gate no longer knows them; leave that path out"
	}
	return "the same bytes are the denied file whatever their name; leave that path out (a pathspec such as ':!PATH'), or remove the copy (git rm --cached, git notes remove, git tag -d)"
}

// gitHint tells the agent how to run the command without the denied
// file: a pathspec that leaves it out, or the files it wants.
func gitHint(prog, rel string) string {
	exclude := "':!:" + rel + "'"
	if strings.ContainsAny(rel, "'\\*?[") {
		exclude = "':(exclude,literal)" + path.Base(rel) + "'"
	}
	switch prog {
	case "git archive":
		return fmt.Sprintf("name the paths to archive, leaving it out (git archive REV . %s)", exclude)
	case "git stash", "git bundle", "git format-patch", "git range-diff":
		return "the gate cannot leave a file out of what " + prog + " prints: keep denied files out of the history, or name the files you want with another command (git show REV -- PATH)"
	}
	return fmt.Sprintf("leave it out with a pathspec (end the command with -- . %s) or name the files you want", exclude)
}
