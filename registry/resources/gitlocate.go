package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitReadRefs finds the repository of each git command of the line that
// prints contents (ShellUse.gitRuns with a reach), as git's discovery
// does from its working directory: --git-dir and --work-tree when given,
// else the nearest .git (a directory, or a .git file's gitdir) or bare
// repository at or above it, and its commondir. A command whose directory
// the gate cannot tell is held by gitRunHolds already; one whose
// repository the agent can write (any but the workspace's own .git inside
// the workspace) is not read: git's data there is the agent's, and the
// command is held for a human anyway.
func gitReadRefs(resolver *pathResolver, rebase func(string) string, runs []gitRun) []GitReadRef {
	var out []GitReadRef
	for _, run := range runs {
		if run.reach == nil || run.unknown != "" {
			continue
		}
		for _, d := range run.dirs {
			ref, ok := locateGitRead(resolver, rebase, run, d)
			if ok {
				out = append(out, ref)
			}
		}
	}
	return out
}

// locateGitRead is gitReadRefs for one working directory d; ok is false
// when git would find no repository (it prints nothing).
func locateGitRead(resolver *pathResolver, rebase func(string) string, run gitRun, d string) (GitReadRef, bool) {
	r := GitReadRef{Program: run.reach.program, reach: *run.reach}
	held := func(why string) (GitReadRef, bool) {
		r.Held = fmt.Sprintf("the gate cannot tell what %s prints: %s", r.Program, why)
		return r, true
	}
	cwd, err := resolver.resolve(rebase(orDot(d)))
	if err != nil {
		return held(err.Error())
	}
	if !cwd.dir {
		return r, false // git fails, or runs in a directory the line makes (held as such)
	}
	r.cwd = cwd.Abs
	top, gitDir, err := findGitDir(resolver, rebase, run, d, cwd.Abs)
	switch {
	case err != nil:
		return held(err.Error())
	case gitDir == "":
		return r, false
	}
	common, err := gitCommonDir(gitDir)
	if err != nil {
		return held(err.Error())
	}
	ws, err := resolver.resolve(".")
	if err != nil {
		return held(err.Error())
	}
	wsRoot := resolver.ws
	if wsRoot == "" {
		wsRoot = ws.Abs
	}
	for _, p := range []string{gitDir, common} {
		own := wsRoot + string(filepath.Separator) + ".git"
		if (p == wsRoot || isBelow(p, wsRoot)) && p != own && !isBelow(p, own) {
			return held("its repository lies in files the agent can write")
		}
	}
	if r.Top, err = resolver.resolve(top); err != nil {
		return held(err.Error())
	}
	r.gitDir, r.common = gitDir, common
	if rel, ok := relTo(top, cwd.Abs); ok && rel != "." {
		r.prefix = filepath.ToSlash(rel)
	}
	return r, true
}

// findGitDir is the work tree's top and the git directory a command uses
// from the resolved directory cwd ("" when there is none).
func findGitDir(resolver *pathResolver, rebase func(string) string, run gitRun, d, cwd string) (top, gitDir string, err error) {
	top = cwd
	if run.workTree != "" {
		wt, err := resolver.resolve(rebase(joinCwd(orDot(d), run.workTree)))
		if err != nil {
			return "", "", err
		}
		top = wt.Abs
	}
	if run.gitDir != "" {
		ref, err := resolver.resolve(rebase(joinCwd(orDot(d), run.gitDir)))
		if err != nil {
			return "", "", err
		}
		return top, ref.Abs, nil
	}
	for level := cwd; ; {
		dir, err := gitDirAtLevel(level)
		if err != nil {
			return "", "", err
		}
		if dir != "" {
			if run.workTree == "" && dir != level {
				top = level // a .git at this level; a bare repository has no work tree
			}
			return top, dir, nil
		}
		parent := filepath.Dir(level)
		if parent == level {
			return "", "", nil
		}
		level = parent
	}
}

// gitDirAtLevel is the git directory git's discovery finds at one level:
// its .git directory, the target of its .git file, or the level itself as
// a bare repository (HEAD and objects); "" when none.
func gitDirAtLevel(level string) (string, error) {
	dotgit := filepath.Join(level, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err == nil && fi.IsDir():
		return filepath.EvalSymlinks(dotgit)
	case err == nil && fi.Mode().IsRegular():
		target, err := readGitfile(dotgit)
		if err != nil {
			return "", fmt.Errorf("%s: %v", dotgit, err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(level, target)
		}
		return filepath.EvalSymlinks(target)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if _, err := os.Lstat(filepath.Join(level, "HEAD")); err == nil {
		if _, err := os.Lstat(filepath.Join(level, "objects")); err == nil {
			return level, nil
		}
	}
	return "", nil
}

// gitCommonDir is the common directory of gitDir: its commondir file's
// (relative to it), or gitDir itself.
func gitCommonDir(gitDir string) (string, error) {
	p := filepath.Join(gitDir, "commondir")
	data, err := readSmall(p, maxGitfile)
	if errors.Is(err, fs.ErrNotExist) {
		return gitDir, nil
	} else if err != nil {
		return "", err
	}
	common := strings.TrimRight(string(data), "\r\n")
	if common == "" || strings.ContainsAny(common, "\x00\n") {
		return "", errors.New("the repository's commondir is not one path")
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return filepath.EvalSymlinks(common)
}
