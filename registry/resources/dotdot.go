package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxDotDotForms bounds the files one path with ".." components may name
// (see resolveEach); past it the path is refused.
const maxDotDotForms = 16

// resolveEach resolves p and calls each with every file p can name.
//
// The kernel applies a ".." to where a symbolic link before it leads
// (resolve does the same), but not everything that reads a path does:
// bash's cd and $PWD drop the last component of the directory as spelled
// (cd link/.. stays where the link is), git normalises a pathspec before
// it looks at the file system, and a client cleans a file path before it
// opens it. A path such as link/../.env names the file beside the link for
// those and the file beside the link's target for the kernel; a line may
// mix both (cd link/.. && cat other/../x). So each ".." of a path after a
// component that is a symbolic link (or below one) is applied both ways,
// and each file the combinations name is a file the call touches. A path
// without ".." names one file.
func (r *pathResolver) resolveEach(p string, each func(PathRef) error) error {
	ref, err := r.resolve(p)
	if err != nil {
		return err
	}
	if err := each(ref); err != nil {
		return err
	}
	if !hasDotDot(p) {
		return nil
	}
	forms, err := r.dotDotForms(p)
	if err != nil {
		return err
	}
	seen := []string{ref.Abs}
	for _, f := range forms {
		alt, err := r.resolve(f)
		if err != nil {
			return err
		}
		if contains(seen, alt.Abs) {
			continue
		}
		seen = append(seen, alt.Abs)
		if err := each(alt); err != nil {
			return err
		}
	}
	return nil
}

// hasDotDot reports whether p has a ".." component.
func hasDotDot(p string) bool {
	p = filepath.ToSlash(p)
	for i := strings.Index(p, ".."); i >= 0; {
		end := i + 2
		if (i == 0 || p[i-1] == '/') && (end == len(p) || p[end] == '/') {
			return true
		}
		j := strings.Index(p[end:], "..")
		if j < 0 {
			return false
		}
		i = end + j
	}
	return false
}

// dotDotForms are the absolute spellings, without "..", of every file p
// names when each of its ".." components is applied either to the
// directory as spelled or to where its symbolic links lead.
func (r *pathResolver) dotDotForms(p string) ([]string, error) {
	spelled := filepath.ToSlash(p)
	switch {
	case spelled == "~" || strings.HasPrefix(spelled, "~/"):
		spelled = filepath.ToSlash(r.cleanHome) + spelled[1:]
	case !strings.HasPrefix(spelled, "/") && !filepath.IsAbs(p):
		spelled = filepath.ToSlash(r.cleanWS) + "/" + spelled
	}
	forms := []string{"/"}
	if vol := filepath.VolumeName(p); vol != "" {
		forms = []string{filepath.ToSlash(vol) + "/"}
		spelled = spelled[len(vol):]
	}
	for _, comp := range strings.Split(spelled, "/") {
		switch comp {
		case "", ".":
			continue
		case "..":
			var next []string
			for _, f := range forms {
				next = appendNew(next, path.Dir(f))
				phys, err := r.resolve(filepath.FromSlash(f))
				if err != nil {
					return nil, err
				}
				next = appendNew(next, path.Dir(filepath.ToSlash(phys.Abs)))
			}
			if len(next) > maxDotDotForms {
				return nil, fmt.Errorf("cannot tell which file %s names: its \"..\" climbs through symbolic links in more ways than the gate follows", shorten(p))
			}
			forms = next
		default:
			for i, f := range forms {
				forms[i] = strings.TrimSuffix(f, "/") + "/" + comp
			}
		}
	}
	for i, f := range forms {
		forms[i] = filepath.FromSlash(f)
	}
	return forms, nil
}

func appendNew(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

// globDotDot expands an absolute pattern with a ".." component as bash
// does: a directory is read where the kernel finds it (doublestar cleans
// the pattern first, which puts link/.. beside the link), and, since a
// working directory the line reached by a logical cd is spelled with its
// ".." too, also where a cleaning finds it. A ".." after a wildcard
// climbs out of directories only the match knows: ok is false.
func globDotDot(pattern string) (matches []string, ok bool) {
	comps := strings.Split(pattern, "/")
	wild := len(comps)
	for i, c := range comps {
		if hasGlobMeta(c) || strings.IndexByte(c, '\\') >= 0 {
			wild = i
			break
		}
	}
	for _, c := range comps[wild:] {
		if c == ".." {
			return nil, false
		}
	}
	rest := strings.Join(comps[wild:], "/")
	prefix := strings.Join(comps[:wild], "/")
	if prefix == "" {
		prefix = "/"
	}
	r := newPathResolver(string(filepath.Separator))
	dirs := []string{}
	err := r.resolveEach(filepath.FromSlash(prefix), func(ref PathRef) error {
		dirs = appendNew(dirs, ref.Abs)
		return nil
	})
	if err != nil {
		return nil, false
	}
	for _, d := range dirs {
		if rest == "" {
			matches = appendNew(matches, d)
			continue
		}
		found, err := doublestar.Glob(os.DirFS(d), rest, doublestar.WithFailOnIOErrors())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		for _, m := range found {
			matches = appendNew(matches, filepath.Join(d, m))
		}
	}
	return matches, true
}
