package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitCloneLocalReach records what git clone SRC DST checks out when SRC is
// a repository on this machine: the tree of SRC's HEAD (or of the branch
// -b names) under DST, judged by content in SRC's own repository, as if
// the line ran git -C SRC read-tree --prefix=DST HEAD. A clone of the
// workspace's own repository copies its denied files' bytes to names the
// deny list does not match (src/c/.env), and a repository the agent can
// write is held as any git command in one is. A bare or mirror clone, or
// one with --no-checkout, writes no files from the tree.
func (a *analyzer) gitCloneLocalReach(prog string, g gitArgs, src, dst *syntax.Word) {
	if a.err != nil || g.has("bare", "mirror", "n", "no-checkout") {
		return
	}
	s, ok := staticWord(src)
	d, okDst := staticWord(dst)
	if !ok || !okDst {
		return // refused already: the source or the target is not static
	}
	p := s.s
	switch {
	case strings.HasPrefix(p, "file://"):
		p = strings.TrimPrefix(p, "file://")
	case strings.Contains(p, "://") || strings.Contains(p, "::") || isScpLike(p):
		return // a remote: its content is not the workspace's
	case !strings.ContainsAny(p, "/.") && p != "~":
		return // a name git reads as neither a path nor a URL
	}
	p, ok = pathWord(valueWord(p))
	if !ok || p == "" {
		a.failf("cannot tell which repository %s copies: %s is not a plain path", prog, wordText(src))
		return
	}
	named := []string{"HEAD"}
	for _, b := range append(g.opts["b"], g.opts["branch"]...) {
		named = []string{b}
	}
	rename := strings.TrimSuffix(d.s, "/") + "/"
	run := gitRun{ownFrom: len(a.use.WriteOperands), ownTo: len(a.use.WriteOperands), ended: true}
	switch {
	case a.cwdUnknown:
		run.unknown = "the working directory changes in a way the gate cannot follow"
	case a.later > 0:
		run.unknown = "it runs at a time the gate cannot tell, wherever the shell is then"
	}
	for _, dir := range a.cwds {
		run.dirs = append(run.dirs, joinCwd(dir, p))
	}
	run.reach = &gitReach{program: prog, mode: gitModeNamed, named: named, readsTree: true, rename: rename}
	a.use.gitRuns = append(a.use.gitRuns, run)
}
