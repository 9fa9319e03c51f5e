package resources

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitWorktreeAddReach records what git worktree add PATH [COMMIT-ISH]
// writes: the whole tree of COMMIT-ISH under PATH, judged by content as
// read-tree --prefix is (a denied file's bytes under PATH/.env are the
// denied file, whatever the deny list says of PATH). Without COMMIT-ISH
// the tree is HEAD's, or, when no -b, -B or --detach is given, that of
// the branch named after PATH's last component if there is one (or of the
// one remote branch of that name git would track). ops are the
// subcommand's operands after "add".
func (a *analyzer) gitWorktreeAddReach(prog string, g gitArgs, ops []*syntax.Word) {
	if a.err != nil || len(ops) == 0 || g.has("no-checkout", "orphan") {
		return
	}
	target, ok := staticWord(ops[0])
	if !ok {
		return // writeArg has refused it
	}
	var named []string
	if len(ops) > 1 {
		texts, ok := a.staticTexts(prog, ops[1:2])
		if !ok {
			return
		}
		named = append(named, texts[0])
		if plainBranchName(texts[0]) {
			named = append(named, "origin/"+texts[0])
		}
	} else {
		named = append(named, "HEAD")
		if base := path.Base(target.s); !g.has("b", "B", "detach", "d") && plainBranchName(base) {
			named = append(named, base, "origin/"+base)
		}
	}
	rename := strings.TrimPrefix(path.Clean("/"+target.s), "/")
	if rename != "" {
		rename += "/"
	}
	a.setGitReach(&gitReach{program: prog, mode: gitModeNamed, named: named, readsTree: true, rename: rename})
}

// plainBranchName reports whether s can only be a branch's short name
// (no revision syntax, no path of a ref).
func plainBranchName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/:^~@{}[]*? \\")
}
