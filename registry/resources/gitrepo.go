package resources

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Git reads the configuration and runs the hooks of whatever repository it
// finds from its working directory, not only the workspace's own: a
// repository the agent made (git init d, a .git file pointing elsewhere, a
// bare repository of plain files) has a configuration the agent wrote, and
// that configuration names programs git runs on an ordinary command
// (core.fsmonitor on git status, hooks on git commit). The workspace
// root's .git is a protected write and a directory outside the workspace
// is one no lease writes; every other repository is held for a human.

// gitRepoCheck judges the git commands of one Bash call.
type gitRepoCheck struct {
	given   string                        // the workspace as given
	ws      string                        // the workspace, resolved ("" until needed: see realWS)
	start   func() (string, error)        // resolves the workspace
	resolve func(string) (PathRef, error) // resolves an analysis path as the call's other paths are
	// writesFor is what the line writes besides run itself: it may make
	// a repository before run looks for one.
	writesFor func(run gitRun) []PathRef
	writes    []PathRef // writesFor the run being judged
	home      string    // the home directory, for ~/ in configuration values; "" when unknown
	atStart   bool      // the call starts in the workspace itself
	// owned is ownRepo's last answer and what it was asked with: the next
	// git command of the line asking with the same writes and the same
	// workspace gets it without looking again (a line of many git
	// commands read .git and its configuration once per command).
	owned *ownedAnswer
}

// ownedAnswer is one answer of ownRepo and its inputs.
type ownedAnswer struct {
	writes []PathRef
	ws     string
	own    bool
	why    string
}

// shareOwnRepo lets the git commands of one call share ownRepo's answer;
// the test that compares the shared answers with the unshared ones turns
// it off.
var shareOwnRepo = true

// ownRepoOnce is ownRepo, asked again only when what it depends on
// changed: the workspace as given (the same for the whole call), the
// line's writes and the workspace's resolution. Nothing is kept past the
// call.
func (g *gitRepoCheck) ownRepoOnce() (bool, string) {
	if m := g.owned; shareOwnRepo && m != nil && m.ws == g.ws && sameRefs(m.writes, g.writes) {
		return m.own, m.why
	}
	m := &ownedAnswer{writes: g.writes, ws: g.ws}
	m.own, m.why = g.ownRepo()
	g.owned = m
	return m.own, m.why
}

// sameRefs reports whether a and b are the same list (not equal lists:
// the same one).
func sameRefs(a, b []PathRef) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// gitRunHolds judges the git commands of a Bash call whose paths resolver
// resolves (after rebase, as the call's other paths); writes are the
// line's writes, resolved, and sh the analysis they come from.
func gitRunHolds(resolver *pathResolver, rebase func(string) string, sh *ShellUse, writes []PathRef) []Hold {
	g := gitRepoCheck{
		given:   resolver.workspace,
		resolve: func(p string) (PathRef, error) { return resolver.resolve(rebase(p)) },
		atStart: rebase(".") == ".",
	}
	g.writesFor = func(run gitRun) []PathRef {
		if run.ownTo <= run.ownFrom {
			return writes
		}
		// Every write but the command's own, resolved again.
		var others []PathRef
		for i, list := range [][]string{sh.Writes, sh.WriteOperands[:run.ownFrom], sh.WriteOperands[run.ownTo:], sh.WritePatterns} {
			for _, p := range list {
				ref, err := resolver.resolve(rebase(p))
				if err != nil {
					continue // the call is refused for it already
				}
				ref.AnySuffix = i == 3
				others = append(others, ref)
			}
		}
		return others
	}
	g.start = func() (string, error) {
		if _, err := resolver.resolve("."); err != nil {
			return "", err
		}
		if resolver.homeErr == nil {
			g.home = resolver.home
		}
		return resolver.ws, nil
	}
	return g.holds(sh.gitRuns)
}

// realWS resolves the workspace the first time it is needed: a git status
// in the workspace's own repository does without.
func (g *gitRepoCheck) realWS() error {
	if g.ws != "" {
		return nil
	}
	ws, err := g.start()
	g.ws = ws
	return err
}

// gitHold is the hold for a git command that would use a repository the
// gate cannot vouch for.
func gitHold(why string) Hold {
	return Hold{Program: "git", Reason: why, Approval: "git-repository", EveryCall: true}
}

// holds are the holds for runs, at most one per distinct reason.
func (g *gitRepoCheck) holds(runs []gitRun) []Hold {
	var out []Hold
	for _, run := range runs {
		why := g.run(run)
		if why == "" {
			continue
		}
		dup := false
		for _, h := range out {
			dup = dup || h.Reason == why
		}
		if !dup {
			out = append(out, gitHold(why))
		}
	}
	return out
}

// run is why one git command is held, or "".
func (g *gitRepoCheck) run(run gitRun) string {
	if run.unknown != "" {
		return "the gate cannot tell which repository git would use: " + run.unknown
	}
	g.writes = g.writesFor(run)
	for _, d := range run.dirs {
		if d == "" && g.atStart && run.gitDir == "" && run.workTree == "" {
			if own, why := g.ownRepoOnce(); own {
				return why
			}
		}
		if err := g.realWS(); err != nil {
			return "the gate cannot tell which repository git would use: " + err.Error()
		}
		if why := g.dir(run, d); why != "" {
			return why
		}
	}
	return ""
}

// ownRepo is the common case: git run in the workspace, which holds its
// own .git directory (one lstat, not a walk). own is false when the
// workspace holds no .git directory, and the general walk decides.
func (g *gitRepoCheck) ownRepo() (own bool, why string) {
	dir := g.given + string(filepath.Separator) + ".git"
	link, isDir, err := lstatKind(dir)
	if errors.Is(err, fs.ErrNotExist) && len(g.writes) == 0 {
		// No .git, no bare repository in the workspace itself and nothing
		// written that could make one: the walk would end here.
		if _, _, err := lstatKind(g.given + string(filepath.Separator) + "HEAD"); errors.Is(err, fs.ErrNotExist) {
			return true, ""
		}
	}
	if err != nil || link || !isDir {
		return false, ""
	}
	repo, why := g.repoAt(dir, true)
	if why != "" {
		return true, why
	}
	return true, g.judge(repo, g.given)
}

// dir judges one candidate working directory of run.
func (g *gitRepoCheck) dir(run gitRun, d string) string {
	cwd, err := g.resolve(orDot(d))
	if err != nil {
		return "the gate cannot tell which repository git would use: " + err.Error()
	}
	if !cwd.dir {
		if run.creates && run.gitDir == "" {
			return "" // git init / clone in a directory the line makes
		}
		return fmt.Sprintf("git would run in %s, which does not exist yet: the gate cannot see the repository it would use", g.show(cwd.Abs))
	}
	if run.workTree != "" || run.gitDir != "" {
		return g.explicit(run, d, cwd.Abs)
	}
	return g.discover(cwd.Abs, run.creates)
}

// explicit judges a command given --git-dir or --work-tree: the git
// directory (discovered when only --work-tree is given) and the work tree
// a relative core.hooksPath is taken from.
func (g *gitRepoCheck) explicit(run gitRun, d, cwd string) string {
	top := ""
	if run.workTree != "" {
		wt, err := g.resolve(joinCwd(orDot(d), run.workTree))
		if err != nil || !wt.dir {
			return fmt.Sprintf("git --work-tree=%s names a directory the gate cannot see", run.workTree)
		}
		top = wt.Abs
	}
	if run.gitDir == "" {
		return g.discover(cwd, run.creates)
	}
	ref, err := g.resolve(joinCwd(orDot(d), run.gitDir))
	if err != nil {
		return "the gate cannot tell which repository git would use: " + err.Error()
	}
	repo, why := g.gitDirAt(ref.Abs, filepath.Dir(ref.Abs))
	if why != "" {
		return why
	}
	if repo.dir == "" {
		return fmt.Sprintf("git --git-dir=%s names no repository the gate can see (the line may make one)", run.gitDir)
	}
	if top == "" {
		top = cwd
	}
	return g.judge(repo, top)
}

// gitRepo is a repository git would use: its git directory and the
// common directory its configuration, hooks and objects are in. own: it
// is the workspace's own .git, a protected write.
type gitRepo struct {
	dir, common string
	own         bool
}

// discover walks up from the resolved directory cwd as git's setup does:
// at each level a .git directory or .git file, else the level itself as a
// bare repository. A level the line writes (a repository it may make
// there) is held. The walk ends at the workspace: a repository above it is
// outside, where no lease writes (a workspace inside a larger repository),
// and so is a working directory outside the workspace.
func (g *gitRepoCheck) discover(cwd string, creates bool) string {
	for level := cwd; level == g.ws || isBelow(level, g.ws); {
		if !creates {
			if w := g.writtenAt(level); w != "" {
				return fmt.Sprintf("the line writes %s before git looks for its repository there: the gate cannot see the repository git would use", w)
			}
		}
		repo, why := g.gitDirAt(level+string(filepath.Separator)+".git", level)
		if why != "" {
			return why
		}
		if repo.dir == "" {
			repo, why = g.bareAt(level)
			if why != "" {
				return why
			}
		}
		if repo.dir != "" {
			return g.judge(repo, level)
		}
		parent := filepath.Dir(level)
		if parent == level {
			break
		}
		level = parent
	}
	return ""
}

// gitDirAt is the repository p names as a git directory: a directory is
// one (whether or not git would accept it: counting more directories as
// repositories only holds more), a file is a gitfile ("gitdir: PATH",
// relative to base). repo.dir is "" when p does not exist.
func (g *gitRepoCheck) gitDirAt(p, base string) (gitRepo, string) {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitRepo{}, "" // nothing there, or a dangling link: git looks on
	case err != nil:
		return gitRepo{}, fmt.Sprintf("the gate cannot read %s, which git would read to find its repository: %v", g.show(p), err)
	case fi.Mode().IsRegular():
		target, err := readGitfile(p)
		if err != nil {
			return gitRepo{}, fmt.Sprintf("the gate cannot tell which repository git would use: %s: %v", g.show(p), err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(base, target)
		}
		return g.repoAt(target, false)
	case fi.IsDir():
		return g.repoAt(p, false)
	}
	return gitRepo{}, fmt.Sprintf("the gate cannot tell which repository git would use: %s is neither a directory nor a file", g.show(p))
}

// bareAt is level itself as a bare repository: a HEAD and one of objects,
// refs or commondir (git wants a valid HEAD and both objects and refs; any
// of them counts here).
func (g *gitRepoCheck) bareAt(level string) (gitRepo, string) {
	if _, _, err := lstatKind(level + string(filepath.Separator) + "HEAD"); err != nil {
		return gitRepo{}, ""
	}
	for _, name := range []string{"objects", "refs", "commondir"} {
		if _, _, err := lstatKind(filepath.Join(level, name)); err == nil {
			return g.repoAt(level, false)
		}
	}
	return gitRepo{}, ""
}

// repoAt resolves a git directory and its common directory (commondir,
// relative to the git directory). own: dir is the workspace's .git, a
// directory and not a link, which needs no resolving.
func (g *gitRepoCheck) repoAt(dir string, own bool) (gitRepo, string) {
	real := dir
	if !own {
		var err error
		if real, err = filepath.EvalSymlinks(dir); err != nil {
			return gitRepo{}, fmt.Sprintf("the gate cannot tell which repository git would use: %s: %v", g.show(dir), err)
		}
	}
	repo := gitRepo{dir: real, common: real, own: own}
	if !own && g.agentWritable(real) {
		return repo, "" // judged writable before its files are read
	}
	commondir := real + string(filepath.Separator) + "commondir"
	data, err := readSmall(commondir, maxGitfile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return repo, ""
	case err != nil:
		return repo, fmt.Sprintf("the gate cannot read %s: %v", g.show(commondir), err)
	}
	if err := g.realWS(); err != nil {
		return repo, "the gate cannot tell which repository git would use: " + err.Error()
	}
	common := strings.TrimRight(string(data), "\r\n")
	if common == "" || strings.ContainsAny(common, "\x00\n") {
		return repo, fmt.Sprintf("the gate cannot tell which repository git would use: %s is not one path", g.show(commondir))
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(real, common)
	}
	if repo.common, err = filepath.EvalSymlinks(common); err != nil {
		return repo, fmt.Sprintf("the gate cannot tell which repository git would use: %s names %s: %v", g.show(commondir), g.show(common), err)
	}
	return repo, ""
}

// writtenAt names a path the line writes that could make level a
// repository, or a different one: level itself or a directory above it
// (replaced or moved there), or .git, HEAD, objects, refs or commondir in
// it. Writes outside the workspace are refused anyway.
func (g *gitRepoCheck) writtenAt(level string) string {
	for _, w := range g.writes {
		for _, p := range []string{w.Abs, w.lexAbs} {
			if p == "" {
				continue
			}
			if w.AnySuffix {
				p = filepath.Dir(p) // some name in that directory
				if p == level || isBelow(level, p) {
					return g.show(w.Abs)
				}
				continue
			}
			if p == level || isBelow(level, p) {
				return g.show(w.Abs)
			}
			if rest, ok := strings.CutPrefix(p, level+string(filepath.Separator)); ok {
				first, _, _ := strings.Cut(rest, string(filepath.Separator))
				switch first {
				case ".git", "HEAD", "objects", "refs", "commondir":
					return g.show(w.Abs)
				}
			}
		}
	}
	return ""
}

// isBelow reports whether p lies strictly below dir. It is asked for
// every write at every level git looks at: it builds no string.
func isBelow(p, dir string) bool {
	if dir == string(filepath.Separator) {
		return len(p) > 1 && strings.HasPrefix(p, dir)
	}
	return len(p) > len(dir) && p[len(dir)] == filepath.Separator && strings.HasPrefix(p, dir)
}

// agentWritable reports whether a lease may write p: inside the workspace
// and not in the workspace root's own .git (a protected write). It is
// asked only once the workspace is resolved (realWS); if it cannot be,
// every path counts as writable.
func (g *gitRepoCheck) agentWritable(p string) bool {
	if g.realWS() != nil {
		return true
	}
	if p != g.ws && !isBelow(p, g.ws) {
		return false
	}
	own := g.ws + string(filepath.Separator) + ".git"
	return p != own && !isBelow(p, own)
}

// show is p as a human reads it: relative to the workspace when inside.
func (g *gitRepoCheck) show(p string) string {
	for _, ws := range []string{g.ws, g.given} {
		if ws == "" {
			continue
		}
		if p == ws {
			return "the workspace"
		}
		if isBelow(p, ws) {
			return filepath.ToSlash(p[len(ws)+1:])
		}
	}
	return p
}

func orDot(d string) string {
	if d == "" {
		return "."
	}
	return d
}

// maxGitfile is the most the gate reads of a .git file or a commondir
// file: git's own limit on a gitfile is far larger, but no real one is
// longer than a path.
const maxGitfile = 64 << 10

// readGitfile is the path a .git file names ("gitdir: PATH", one line;
// git strips the trailing newline and carriage return).
func readGitfile(p string) (string, error) {
	data, err := readSmall(p, maxGitfile)
	if err != nil {
		return "", err
	}
	return parseGitfile(data)
}

// parseGitfile is readGitfile for the file's bytes.
func parseGitfile(data []byte) (string, error) {
	s, ok := strings.CutPrefix(string(data), "gitdir: ")
	if !ok {
		return "", errors.New(`not a .git file git reads ("gitdir: PATH")`)
	}
	s = strings.TrimRight(s, "\r\n")
	if s == "" || strings.ContainsAny(s, "\x00\r\n") {
		return "", errors.New("the .git file does not name one path")
	}
	return s, nil
}

// readSmall reads a regular file of at most limit bytes; a larger one,
// or anything but a regular file, is an error.
func readSmall(p string, limit int64) ([]byte, error) {
	f, err := openFileNoBlock(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(p))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	data := make([]byte, 0, fi.Size()+1)
	for int64(len(data)) <= limit {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		switch {
		case errors.Is(err, io.EOF) || (err == nil && n == 0):
			return data, nil
		case err != nil:
			return nil, err
		case len(data) == cap(data):
			data = append(data, 0)[:len(data)] // it grew since the stat
		case int64(len(data)) == fi.Size():
			return data, nil // all of it, in the common single read
		}
	}
	return nil, fmt.Errorf("larger than %d bytes", limit)
}
