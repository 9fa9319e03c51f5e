package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// git fsck --lost-found (refused) writes the content of every dangling
// object, a denied file once staged and unstaged among them, to
// .git/lost-found as plain files named by their ids, which no deny entry
// names: a read there is a read of content the gate cannot tell, and is
// refused whatever the lease says.
func lostFoundRead(use resources.Use) string {
	for _, list := range [...][]resources.PathRef{use.Reads, use.Mentions} {
		for _, p := range list {
			if inLostFound(p.Abs) {
				return fmt.Sprintf("%s is refused: git fsck --lost-found wrote it from a dangling object, and the gate cannot tell which file's content it holds", displayPath(p))
			}
		}
	}
	for _, t := range use.TreeReads {
		root := t.Root.Abs
		for _, dir := range []string{filepath.Join(root, ".git", "lost-found"), filepath.Join(root, "lost-found")} {
			if filepath.Base(filepath.Dir(dir)) != ".git" {
				continue
			}
			if _, err := os.Lstat(dir); err == nil {
				return fmt.Sprintf("%s reads everything below %s, which holds %s: files git fsck --lost-found wrote from dangling objects, whose content the gate cannot tell", t.Program, displayPath(t.Root), dir)
			}
		}
		if inLostFound(root) {
			return fmt.Sprintf("%s reads %s, which git fsck --lost-found wrote from dangling objects", t.Program, displayPath(t.Root))
		}
	}
	return ""
}

// inLostFound reports whether p lies in (or is) a git directory's
// lost-found.
func inLostFound(p string) bool {
	p = filepath.ToSlash(p)
	i := strings.Index(p, "/.git/lost-found")
	return i >= 0 && (len(p) == i+len("/.git/lost-found") || p[i+len("/.git/lost-found")] == '/')
}
