package resources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A path is judged against the file system as it is when the gate looks,
// but a line can change it before a later command of the same line runs:
// "cp -P /proc/self/cwd r && cat r/.env" makes r a symbolic link to the
// workspace, so cat reads .env although the gate saw r/.env, a file that
// does not exist; "git clone URL d && cat d/link" reads whatever d/link,
// a link in the cloned tree, points to. A path below one that a program of
// the line makes — a copy, move or link (cp, mv, ln, install, rsync), an
// archive or repository unpacked (tar, git) or a work tree git rewrites —
// is therefore refused: the gate cannot tell what it is. The same path in
// a call of its own is judged against what the line made.

// plainWriters write regular files (or directories they create empty)
// where they write: a path below what they write is what it was. Every
// other program that writes counts as one that may make a link or a tree.
var plainWriters = map[string]bool{
	"sed": true, "find": true, "sort": true, "uniq": true, "dd": true, "split": true, "tee": true,
	"touch": true, "mkdir": true, "rm": true, "rmdir": true, "unlink": true, "truncate": true,
	"shred": true, "chmod": true, "chown": true, "chgrp": true, "curl": true, "time": true, "awk": true,
	"gawk": true, "mawk": true, "nawk": true, "npm": true, "go": true, "zip": true,
}

// plainGit are git's writers of plain files and directories: git init
// makes a repository from no template (--template is refused), and the
// others write one file each.
var plainGit = map[string]bool{"git init": true, "git bundle create": true, "git config -f": true,
	"git config --global": true, "git format-patch -o": true}

// noteMade records p, written by prog, when prog may make a link or a tree.
func (a *analyzer) noteMade(prog string, p string) {
	if plainGit[prog] || strings.HasPrefix(prog, "git ") && (strings.HasSuffix(prog, " --output") || strings.HasSuffix(prog, " --index-output")) {
		return // git init DIR, git log --output=FILE …
	}
	name := prog
	for i := 0; i < len(prog); i++ {
		if prog[i] == ' ' {
			name = prog[:i]
			break
		}
	}
	switch {
	case name == "mkdir":
		a.use.madeDirs = append(a.use.madeDirs, p)
	case !plainWriters[name]:
		a.use.made = append(a.use.made, p)
	}
}

// madeKind is how a path a line makes shadows the paths below it.
type madeKind int

const (
	madeNew   madeKind = iota // it is made, or replaced: anything below it is new
	madeInDir                 // an existing directory things are made in: its entries are new
)

// checkMade refuses a path of the line (read, written, named, or the root
// of a tree read) that lies below one the line makes (sh.made, and the
// work trees git rewrites); reads and writes are the line's, resolved.
func checkMade(resolver *pathResolver, rebase func(string) string, sh *ShellUse, use *Use, reads, writes []PathRef) error {
	made := map[string]madeKind{}
	note := func(p string, kind madeKind) {
		if strings.HasSuffix(p, "/") || slices.Contains(sh.madeDirs, p) {
			kind = madeInDir // cp x dir/, mkdir d && cp x d: d is a directory
		}
		ref, err := resolver.resolve(rebase(p))
		if err != nil {
			return // the call is refused for it already
		}
		if kind == madeNew && ref.dir {
			if fi, err := os.Lstat(ref.Abs); err == nil && fi.IsDir() {
				kind = madeInDir // cp x dir/: dir stays, dir/x is made
			}
		}
		for _, abs := range []string{ref.Abs, ref.lexAbs} {
			if k, ok := made[abs]; abs != "" && (!ok || kind < k) {
				made[abs] = kind
			}
		}
	}
	for _, p := range sh.made {
		note(p, madeNew)
	}
	for _, d := range sh.WorkTrees {
		note(d, madeNew) // git may check out a link at any depth
	}
	check := func(ref PathRef, tree bool) error {
		for _, abs := range []string{ref.Abs, ref.lexAbs} {
			if abs == "" {
				continue
			}
			depth := 0
			for dir := abs; ; depth++ {
				if k, ok := made[dir]; ok && shadows(k, depth, tree) {
					return fieldErr("/command", "cannot tell what %s is: an earlier command of the line makes %s, which may be a symbolic link or a tree the gate cannot see; run it as a call of its own", shorten(ref.Abs), shorten(dir))
				}
				up := filepath.Dir(dir)
				if up == dir {
					break
				}
				dir = up
			}
		}
		return nil
	}
	for _, list := range [][]PathRef{reads, writes, use.Mentions} {
		for _, ref := range list {
			if err := check(ref, false); err != nil {
				return err
			}
		}
	}
	for _, t := range use.TreeReads {
		if err := check(t.Root, true); err != nil {
			return err
		}
	}
	return nil
}

// shadows reports whether a path depth levels below one made as kind
// (0: the path itself) may be something the gate cannot see. A tree read
// reads below its root, so its root counts one level deeper.
func shadows(kind madeKind, depth int, tree bool) bool {
	if tree {
		depth++
	}
	if kind == madeInDir {
		return depth >= 2
	}
	return depth >= 1
}
