package resources

import (
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitTopLevel is the top level of the work tree that holds dir, an
// absolute path with its links resolved: the nearest directory at or above
// it with a .git entry (a directory or a gitfile), as git's own discovery
// finds it. ok is false when there is none, and git would find no
// repository to rewrite. Missing directories are walked through: git -C
// of a directory that does not exist yet fails, but what an earlier
// command on the line creates may lie inside a repository above it.
func gitTopLevel(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// workTreeWrite is the write a rewrite of the whole work tree from dir
// makes (ShellUse.WorkTrees): the top level of the repository holding dir,
// or dir itself when there is none.
func workTreeWrite(resolver *pathResolver, dir string) (PathRef, error) {
	ref, err := resolver.resolve(dir)
	if err != nil {
		return PathRef{}, &FieldError{Pointer: "/command", Err: err}
	}
	if top, ok := gitTopLevel(ref.Abs); ok && top != ref.Abs {
		if ref, err = resolver.resolve(top); err != nil {
			return PathRef{}, &FieldError{Pointer: "/command", Err: err}
		}
	}
	return ref, nil
}

// gitUpdateIndex: the index entries it sets are what a later checkout,
// reset or stash writes into the work tree, so every path it names
// (operands, and the path of --cacheinfo MODE,OBJECT,PATH) is checked as
// a write of that path: `git update-index --add --cacheinfo
// 100644,SHA,.mcp.json` plants a protected file as surely as writing it.
// Paths read from its input (--stdin, --index-info) cannot be known.
func gitUpdateIndex(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " cacheinfo chmod index-version ")
	if !ok {
		return
	}
	if g.has("stdin", "index-info") {
		a.failf("cannot tell which paths %s sets: --stdin and --index-info read them from its input", prog)
		return
	}
	for _, v := range g.opts["cacheinfo"] {
		if parts := strings.SplitN(v, ",", 3); len(parts) == 3 {
			a.writeArg(prog+" --cacheinfo", valueWord(parts[2]), c)
		}
	}
	a.gitWriteOps(prog, g.all(), c)
}
