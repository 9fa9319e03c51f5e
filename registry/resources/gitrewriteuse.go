package resources

import (
	"path/filepath"
	"strings"
)

// gitRewriteWrites are the writes and holds of the git commands of a line
// that move the work tree (ShellUse.gitRuns with a rewrite), resolved as
// the call's other paths are. In the workspace's own repository, when
// nothing earlier on the line changes the repository, they are the paths
// read from its objects (gitwrites.go); otherwise the whole work tree, as
// for any command the gate cannot read the writes of. A write the gate
// refuses outright (a submodule, a name git refuses) is an error.
func gitRewriteWrites(resolver *pathResolver, rebase func(string) string, cmd string, sh *ShellUse) ([]PathRef, []Hold, error) {
	var writes []PathRef
	var holds []Hold
	for i := range sh.gitRuns {
		run := &sh.gitRuns[i]
		rw := run.rewrite
		if rw == nil {
			continue
		}
		// Another git command running alongside (a pipe, &) may change
		// the repository while this one reads it.
		modelled := rw.before == 0 && (sh.gitChanges == 1 || !concurrentLine(cmd))
		for _, d := range run.dirs {
			top, cwd, gitDir, ok := "", "", "", false
			if modelled {
				top, cwd, gitDir, ok = ownRepoOf(resolver, rebase, *run, d)
			}
			if !ok && modelled && (rw.kind == rwPaths || rw.kind == rwAbort) {
				// No repository of the workspace's own: the paths named are
				// what the analysis counts, and an abort writes nothing (git
				// fails without one, and one the agent made is held).
				continue
			}
			if !ok {
				ref, err := workTreeWrite(resolver, rebase(orDot(d)))
				if err != nil {
					return nil, nil, err
				}
				writes = append(writes, ref)
				continue
			}
			res := computeGitWrites(top, cwd, gitDir, gitDir, rw)
			switch {
			case res.refuse != "":
				return nil, nil, fieldErr("/command", "%s: %s", rw.prog, res.refuse)
			case res.hold != "":
				holds = append(holds, Hold{Program: "git", Reason: res.hold, Approval: "git-objects", EveryCall: true})
				continue
			}
			more, err := resolveGitWrites(resolver, rw.prog, top, res)
			if err != nil {
				return nil, nil, err
			}
			writes = append(writes, more...)
			if res.pathOperand {
				ref, err := resolver.resolve(rebase(joinCwd(orDot(d), rw.revs[0])))
				if err != nil {
					return nil, nil, &FieldError{Pointer: "/command", Err: err}
				}
				writes = append(writes, ref)
			}
		}
	}
	return writes, holds, nil
}

// resolveGitWrites resolves what computeGitWrites found below top.
func resolveGitWrites(resolver *pathResolver, prog, top string, res gitWrites) ([]PathRef, error) {
	out := make([]PathRef, 0, len(res.paths)+len(res.links)+len(res.suffixed))
	// A link's target is written too: git writes the link, a later tool
	// follows it. One out of the workspace is refused here, naming the
	// link; one inside is judged as any write there.
	for _, l := range res.links {
		ref, err := resolver.resolve(l.target)
		if err != nil {
			return nil, &FieldError{Pointer: "/command", Err: err}
		}
		if !ref.Inside {
			return nil, fieldErr("/command", "%s would make %s a symbolic link to %s, outside the workspace (a later tool follows it)", prog, l.path, l.target)
		}
		out = append(out, ref)
	}
	for _, list := range []struct {
		paths  []string
		suffix string
	}{{res.paths, ""}, {res.suffixed, "~*"}} {
		for _, p := range list.paths {
			p = filepath.Join(top, filepath.FromSlash(p)) + list.suffix
			ref, err := resolver.resolve(p)
			if err != nil {
				return nil, &FieldError{Pointer: "/command", Err: err}
			}
			if list.suffix != "" {
				if !strings.Contains(ref.Abs, "*") {
					continue // the resolved name lost its pattern: the path itself is written already
				}
				ref.AnySuffix = true
			}
			out = append(out, ref)
		}
	}
	return out, nil
}

// concurrentLine reports whether a line may run commands side by side (a
// pipe, a background job, a process substitution): read from its text,
// erring towards yes.
func concurrentLine(cmd string) bool {
	s := strings.ReplaceAll(strings.ReplaceAll(cmd, "||", ""), "&&", "")
	return strings.ContainsAny(s, "|&") || strings.Contains(s, "coproc")
}

// ownRepoOf is the workspace's top, the resolved directory d and the
// workspace's own .git directory when a git command run from d uses them
// (discovered, not named by options); ok is false for any other
// repository.
func ownRepoOf(resolver *pathResolver, rebase func(string) string, run gitRun, d string) (top, cwd, gitDir string, ok bool) {
	ref, err := resolver.resolve(rebase(orDot(d)))
	if err != nil || !ref.dir {
		return "", "", "", false
	}
	if _, err := resolver.resolve("."); err != nil || resolver.ws == "" {
		return "", "", "", false
	}
	ws := resolver.ws
	t, g, err := findGitDir(resolver, rebase, run, d, ref.Abs)
	if err != nil || t != ws || g != filepath.Join(ws, ".git") {
		return "", "", "", false
	}
	if common, err := gitCommonDir(g); err != nil || common != g {
		return "", "", "", false
	}
	return ws, ref.Abs, g, true
}
