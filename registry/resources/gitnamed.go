package resources

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"mvdan.cc/sh/v3/syntax"
)

// Commands that give an object a new name (a note, a tag, a ref, an index
// entry, a tree read in under a prefix) make its content printable by a
// later command under that name: a blob named by its id, whose path the
// gate cannot tell, is refused; a blob named as REV:path, or a tree, is
// refused when it holds a denied file's content (gitdenied.go) under a
// name the deny list does not match. Commands that read the objects they
// name from their input are refused: the gate cannot tell what they name.

// setGitReach records r as the reach of the git command being analysed.
func (a *analyzer) setGitReach(r *gitReach) {
	if a.err != nil || len(a.use.gitRuns) == 0 {
		return
	}
	a.use.gitRuns[len(a.use.gitRuns)-1].reach = r
}

// staticTexts are the static texts of ws; ok is false (and the line
// refused) when one is not known before it runs.
func (a *analyzer) staticTexts(prog string, ws []*syntax.Word) ([]string, bool) {
	var out []string
	for _, w := range ws {
		l, ok := staticWord(w)
		if !ok {
			a.failf("cannot tell which object %s names: %s is not known before it runs", prog, wordText(w))
			return nil, false
		}
		out = append(out, l.s)
	}
	return out, true
}

// gitNamed records the objects prog names (texts; a dynamic value is
// refused) as its reach.
func (a *analyzer) gitNamed(prog string, texts []string) {
	for _, t := range texts {
		if strings.IndexByte(t, 0) >= 0 {
			a.failf("cannot tell which object %s names: a value is not known before it runs", prog)
			return
		}
	}
	if len(texts) > 0 {
		a.setGitReach(&gitReach{program: prog, mode: gitModeNamed, named: texts})
	}
}

// gitNotesCmd: add and append take a note from an object (-C, -c); show
// prints a note; copy --stdin reads the objects from its input.
func gitNotesCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitNoPaths(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " m message F file C c ref ")
	if !ok || a.err != nil {
		return
	}
	verb := ""
	if len(g.before) > 0 {
		l, _ := staticWord(g.before[0])
		verb = l.s
	}
	switch {
	case g.has("stdin"):
		a.failf("cannot tell which objects %s reads: --stdin names them on its input", prog)
	case verb == "add" || verb == "append":
		var named []string
		for _, n := range []string{"C", "c", "reuse-message", "reedit-message"} {
			named = append(named, g.opts[n]...)
		}
		a.gitNamed(prog+" "+verb, named)
	case verb == "show":
		a.setGitReach(&gitReach{program: prog + " show", mode: gitModeNotes})
	}
}

// gitTagCmd: a tag made names its object; a listing with a format that
// prints contents prints the objects the tags name.
func gitTagCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitTag(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " m message F file u local-user cleanup trailer ")
	if !ok || a.err != nil {
		return
	}
	if g.has("l", "list", "n", "contains", "no-contains", "merged", "no-merged", "points-at", "format") || len(g.before) == 0 {
		a.gitRefFormat(prog, g)
		return
	}
	if g.has("d", "delete", "v", "verify") || len(g.before) < 2 {
		return
	}
	if texts, ok := a.staticTexts(prog, g.before[1:2]); ok {
		a.gitNamed(prog, texts)
	}
}

// gitRefFormat records a listing's reach when its format prints the
// contents of the objects listed (git tag -n prints each tag's message).
func (a *analyzer) gitRefFormat(prog string, g gitArgs) {
	prints := g.has("n")
	for _, f := range g.opts["format"] {
		if gitFormatPrintsContent(f) {
			prints = true
		}
	}
	if prints {
		a.setGitReach(&gitReach{program: prog, mode: gitModeRefFormat})
	}
}

// gitFormatPrintsContent reports whether a for-each-ref format prints an
// object's content: %(raw), %(contents…), %(body), %(subject),
// %(trailers), with or without "*" (the peeled object).
func gitFormatPrintsContent(f string) bool {
	if strings.IndexByte(f, 0) >= 0 {
		return true // not known before it runs
	}
	for _, atom := range []string{"raw", "contents", "body", "subject", "trailers", "signature"} {
		if strings.Contains(f, "%("+atom) || strings.Contains(f, "%(*"+atom) {
			return true
		}
	}
	return false
}

// gitListFormat: for-each-ref and branch list refs; a format may print
// what they name.
func gitListFormat(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitNoPaths(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " format sort contains no-contains merged no-merged points-at count ")
	if !ok || a.err != nil {
		return
	}
	if g.has("stdin") {
		a.failf("cannot tell which refs %s lists: --stdin names them on its input", prog)
		return
	}
	a.gitRefFormat(prog, g)
}

// gitUpdateRefCmd: the new value names an object; --stdin reads them.
func gitUpdateRefCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitNoPaths(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " m ")
	if !ok || a.err != nil {
		return
	}
	switch {
	case g.has("stdin"):
		a.failf("cannot tell which objects %s names: --stdin reads them from its input", prog)
	case g.has("d") || len(g.before) < 2:
	default:
		if texts, ok := a.staticTexts(prog, g.before[1:2]); ok {
			a.gitNamed(prog, texts)
		}
	}
}

// gitReplaceCmd: both objects are named (git shows the second for the
// first); -l lists and -d deletes.
func gitReplaceCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitNoPaths(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " format ")
	if !ok || a.err != nil || g.has("l", "list", "d", "delete") {
		return
	}
	if texts, ok := a.staticTexts(prog, g.before); ok {
		a.gitNamed(prog, texts)
	}
}

// gitMktree reads the entries of the tree it makes from its input: the
// objects they name cannot be told.
func gitMktree(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	a.failf("cannot tell which objects %s names: it reads them from its input", prog)
}

// gitHashObjectCmd: an object of another type than a blob (-t tree,
// commit, tag) is written from bytes that name other objects by id: a
// tree made so can hold a dangling copy of a denied file under any name,
// which the gate cannot tell. --literally writes what git would not.
func gitHashObjectCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " t path ")
	if !ok {
		return
	}
	for _, t := range g.opts["t"] {
		if t != "blob" {
			a.failf("cannot tell which objects %s -t %s names: the object it writes names others by id", prog, t)
			return
		}
	}
	if g.has("literally") {
		a.failf("cannot tell what %s --literally writes", prog)
		return
	}
	gitHashObject(a, prog, args, c)
}

// gitFsck: --lost-found writes the content of every dangling object to
// .git/lost-found as plain files, which no deny entry names.
func gitFsck(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, "")
	if !ok {
		return
	}
	if g.has("lost-found") {
		a.failf("refused: %s --lost-found writes the content of dangling objects (a denied file once staged among them) to .git/lost-found, where the gate cannot tell what they hold", prog)
		return
	}
	gitNoPaths(a, prog, args, c)
}

// gitUpdateIndexCmd: --cacheinfo MODE,OBJECT,PATH names the object of the
// entry it sets (the older three-word form is refused).
func gitUpdateIndexCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitUpdateIndex(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " cacheinfo chmod index-version ")
	if !ok || a.err != nil {
		return
	}
	var named []string
	for _, v := range g.opts["cacheinfo"] {
		parts := strings.SplitN(v, ",", 3)
		if len(parts) != 3 {
			a.failf("cannot tell which object %s --cacheinfo names: write it as MODE,OBJECT,PATH", prog)
			return
		}
		named = append(named, parts[1])
	}
	a.gitNamed(prog+" --cacheinfo", named)
}

// gitReadTreeCmd: the trees named are read into the index, below
// --prefix when given.
func gitReadTreeCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitReadTree(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " prefix index-output ")
	if !ok || a.err != nil {
		return
	}
	texts, ok := a.staticTexts(prog, g.before)
	if !ok || len(texts) == 0 {
		return
	}
	a.gitNamed(prog, texts)
	if r := a.lastGitReach(); r != nil {
		r.readsTree = true
		if p := g.opts["prefix"]; len(p) > 0 {
			r.rename = strings.TrimPrefix(path.Clean("/"+p[len(p)-1]), "/")
			if r.rename != "" {
				r.rename += "/"
			}
		}
	}
}

func (a *analyzer) lastGitReach() *gitReach {
	if len(a.use.gitRuns) == 0 {
		return nil
	}
	return a.use.gitRuns[len(a.use.gitRuns)-1].reach
}

// gitCheckoutIndexCmd: the index entries written are judged by content
// (a denied file's blob planted under another path), below --prefix.
func gitCheckoutIndexCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitCheckoutIndex(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " prefix stage ")
	if !ok || a.err != nil {
		return
	}
	r := &gitReach{program: prog, mode: gitModeIndexWrite}
	if !g.has("a", "all", "stdin") {
		texts, ok := a.staticTexts(prog, g.all())
		if !ok || len(texts) == 0 {
			return
		}
		r.paths = texts
	}
	if p := g.opts["prefix"]; len(p) > 0 {
		r.rename = p[len(p)-1]
	}
	a.setGitReach(r)
}

// gitCheckoutCmd: checkout [REV] -- PATH… writes the files from REV (or
// the index): judged by their content too, as checkout-index is.
func gitCheckoutCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitCheckout(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " b B c C create force-create orphan conflict pathspec-from-file ")
	if !ok || a.err != nil || len(g.after) == 0 || len(g.before) > 1 {
		return
	}
	a.gitContentWrites(prog, g.before, g.after)
}

// gitRestoreCmd: restore [--source=REV] PATH… writes the work tree's
// files from REV (or the index); --staged alone writes only the index,
// under the same names.
func gitRestoreCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitRestore(a, prog, args, c)
	g, ok := a.parseGit(prog, args, " s source pathspec-from-file ")
	if !ok || a.err != nil || g.has("S", "staged") && !g.has("W", "worktree") {
		return
	}
	var src []*syntax.Word
	for _, v := range append(g.opts["s"], g.opts["source"]...) {
		src = []*syntax.Word{valueWord(v)}
	}
	a.gitContentWrites(prog, src, g.all())
}

// gitContentWrites records the reach of a command that writes the files
// paths from the tree src names (the index when src is empty).
func (a *analyzer) gitContentWrites(prog string, src, paths []*syntax.Word) {
	texts, ok := a.staticTexts(prog, paths)
	if !ok || len(texts) == 0 {
		return
	}
	r := &gitReach{program: prog, mode: gitModeIndexWrite, paths: texts}
	if len(src) > 0 {
		named, ok := a.staticTexts(prog, src)
		if !ok {
			return
		}
		r.mode, r.named, r.readsTree = gitModeNamed, named, true
	}
	a.setGitReach(r)
}

// gitCatFileCmd: REV:path and :path operands print that blob, judged by
// content too.
func gitCatFileCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	gitCatFile(a, prog, args, c)
	g, ok := a.parseGit(prog, args, "")
	if !ok || a.err != nil || g.has("t", "s", "e") && !g.has("p", "textconv", "filters") {
		return
	}
	var revs []string
	for _, w := range g.all() {
		if l, ok := staticWord(w); ok && strings.Contains(l.s, ":") {
			revs = append(revs, l.s)
		}
	}
	if len(revs) > 0 {
		a.setGitReach(&gitReach{program: prog, mode: gitModeShow, revs: revs, noPatch: true})
	}
}

// gitShowsNotes reports whether a command prints the notes of the commits
// it shows: log, show, whatchanged and reflog do unless --no-notes;
// others (format-patch, rev-list) with --notes or a format's %N.
func gitShowsNotes(prog string, g gitArgs) bool {
	for _, f := range append(g.opts["format"], g.opts["pretty"]...) {
		if strings.Contains(f, "%N") || strings.IndexByte(f, 0) >= 0 {
			return true
		}
	}
	if g.has("notes", "show-notes", "standard-notes") {
		return true
	}
	switch prog {
	case "git log", "git show", "git whatchanged", "git reflog":
		return !g.has("no-notes", "no-standard-notes")
	}
	return false
}

// named checks the objects a gitModeNamed command names.
func (c *gitChecker) named(r *gitReach) error {
	c.contentOnly = true
	c.rename = r.rename
	for _, text := range r.named {
		c.spec = gitPathspec{}
		for _, p := range r.paths {
			c.spec.add(p, c.read.prefix) // checkout REV -- PATH…: only those
		}
		if err := c.namedOne(r, text); err != nil {
			return err
		}
	}
	return nil
}

func (c *gitChecker) namedOne(r *gitReach, text string) error {
	if strings.HasPrefix(text, ":") {
		return c.indexPath(text, true)
	}
	if revText, p, ok := strings.Cut(text, ":"); ok {
		c.spec = gitPathspec{}
		c.spec.add(p, c.read.prefix)
		rv, err := c.rev(revText)
		if errors.Is(err, errNotRev) {
			return nil // git refuses it
		} else if err != nil {
			return err
		}
		return c.trees([]gitRev{rv})
	}
	rv, err := c.rev(text)
	if errors.Is(err, errNotRev) {
		return nil
	} else if err != nil {
		return err
	}
	for _, h := range append(rv.tips, rv.stops...) {
		o, err := c.s.peel(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue // git refuses it
		} else if err != nil {
			return err
		}
		switch o.Type() {
		case plumbing.BlobObject:
			if o.Hash() == gitEmptyBlob {
				continue
			}
			c.found = &GitFinding{Read: *c.read, Blob: o.Hash().String()[:12], Reason: fmt.Sprintf(
				"%s names the blob %s, and the gate cannot tell which file's content it is (it may be one deny.paths denies, or a dangling copy of one): name a tracked file as REV:path instead",
				c.read.Program, o.Hash().String()[:12])}
			return errFound
		case plumbing.TreeObject:
			c.where = "tree " + o.Hash().String()[:12]
			if err := c.diffTrees(plumbing.ZeroHash, o.Hash(), ""); err != nil {
				return err
			}
		case plumbing.CommitObject:
			if !r.readsTree {
				continue
			}
			if err := c.tree(o.Hash()); err != nil {
				return err
			}
		}
	}
	return nil
}

// indexPath checks an index operand (:path, :N:path) against the denied
// blobs: the entries of that path, every stage.
func (c *gitChecker) indexPath(op string, contentOnly bool) error {
	if len(c.denied) == 0 {
		return nil
	}
	p := strings.TrimPrefix(op, ":")
	if len(p) > 2 && p[1] == ':' && p[0] >= '0' && p[0] <= '3' {
		p = p[2:]
	}
	var spec gitPathspec
	spec.add(p, c.read.prefix)
	if len(spec.includes) != 1 {
		return nil // a pathspec magic: not a file of the index
	}
	entries, err := gitIndexPaths(c.read.gitDir)
	if err != nil {
		return err
	}
	saved, savedOnly := c.spec, c.contentOnly
	defer func() { c.spec, c.contentOnly = saved, savedOnly }()
	c.spec, c.contentOnly, c.where = gitPathspec{}, contentOnly, "the index"
	for _, e := range entries {
		if e.name == spec.includes[0] {
			if err := c.file(e.name, e.hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// notes checks the notes the command prints: every note of every notes
// ref (git shows refs/notes/commits and those its configuration names,
// all below refs/notes) against the denied blobs. A configuration that
// names a notes ref is held: the gate does not follow it.
func (c *gitChecker) notes() error {
	if len(c.denied) == 0 {
		return nil
	}
	data, _ := readSmall(c.read.common+"/config", maxGitSmall)
	if low := strings.ToLower(string(data)); strings.Contains(low, "notesref") || strings.Contains(low, "displayref") {
		return errors.New("the repository's configuration names the notes refs git shows, which the gate does not follow")
	}
	iter, err := c.s.st.IterReferences()
	if err != nil {
		return err
	}
	defer iter.Close()
	var tips []plumbing.Hash
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), "refs/notes/") {
			tips = append(tips, ref.Hash())
		}
		return c.s.spend(false)
	})
	if err != nil {
		return err
	}
	saved := c.spec
	defer func() { c.spec, c.contentOnly = saved, false }()
	c.spec, c.contentOnly = gitPathspec{}, true
	for _, h := range tips {
		if err := c.tree(h); err != nil {
			return err
		}
	}
	return nil
}

// refTargets checks what a listing's format prints: a ref (or a tag it
// names) that names a blob prints the blob, whose file the gate cannot
// tell.
func (c *gitChecker) refTargets() error {
	iter, err := c.s.st.IterReferences()
	if err != nil {
		return err
	}
	defer iter.Close()
	return iter.ForEach(func(ref *plumbing.Reference) error {
		if err := c.s.spend(false); err != nil || ref.Type() != plumbing.HashReference {
			return err
		}
		o, err := c.s.peel(ref.Hash())
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if o.Type() == plumbing.BlobObject && o.Hash() != gitEmptyBlob {
			c.found = &GitFinding{Read: *c.read, Blob: o.Hash().String()[:12], Reason: fmt.Sprintf(
				"%s prints the blob %s that %s names, and the gate cannot tell which file's content it is (it may be one deny.paths denies): leave content atoms out of the format, or delete the ref",
				c.read.Program, o.Hash().String()[:12], ref.Name())}
			return errFound
		}
		return nil
	})
}

// indexWrite checks the index entries checkout-index writes (the paths
// named, every one with -a) by content.
func (c *gitChecker) indexWrite(r *gitReach) error {
	if len(c.denied) == 0 {
		return nil
	}
	for _, p := range r.paths {
		c.spec.add(p, c.read.prefix)
	}
	c.contentOnly, c.rename = true, r.rename
	return c.index()
}
