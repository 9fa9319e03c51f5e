package resources

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// sedBackups records the backups sed -iSUFFIX (--in-place=SUFFIX) makes:
// each edited file is renamed to its name plus SUFFIX or, when SUFFIX holds
// a *, to SUFFIX with every * replaced by the file's name as given, a path
// of its own: GNU sed 4.9 renames src/a.go to ../src/a.go for -i'../*',
// and "cd src && sed -i'../.claude/*' s/x/x/ settings.json" puts the file
// in .claude. Older seds put SUFFIX with the base name in the file's
// directory; both names are counted. "" and "*" make no backup.
func (a *analyzer) sedBackups(suffixes, files []*syntax.Word, c ctx) {
	for _, sw := range suffixes {
		l, ok := staticWord(sw)
		if !ok {
			a.failf("cannot tell which backup sed -i writes: the suffix %s is not static", wordText(sw))
			return
		}
		suf := l.s
		if suf == "" || suf == "*" {
			continue
		}
		for _, f := range files {
			fl, ok := staticWord(f)
			if !ok {
				continue // writeArg has refused it already
			}
			if fl.hasGlob() || fl.hasBraces() || strings.HasPrefix(fl.s, "~") {
				if strings.Contains(suf, "*") || strings.Contains(suf, "/") {
					a.failf("cannot tell which backup sed -i%s writes of %s: name the file plainly", suf, wordText(f))
					return
				}
				a.sedGlobBackups(f, suf, c)
				continue
			}
			for _, name := range sedBackupNames(fl.s, suf) {
				a.writeArg("sed -i backup", quotedWord(name), c)
			}
		}
	}
}

// sedBackupNames are the names sed may give the backup of file for suffix.
func sedBackupNames(file, suf string) []string {
	if !strings.Contains(suf, "*") {
		return []string{file + suf}
	}
	names := []string{strings.ReplaceAll(suf, "*", file)}
	dir, base := path.Split(file)
	if alt := dir + strings.ReplaceAll(suf, "*", base); alt != names[0] {
		names = append(names, alt)
	}
	return names
}

// sedGlobBackups records file.SUFFIX for every file a pattern or a
// home-relative word names (a SUFFIX without * or /: beside each file).
func (a *analyzer) sedGlobBackups(f *syntax.Word, suf string, c ctx) {
	paths, ok := a.argPaths(f, c)
	if !ok {
		return // writeArg has refused it already
	}
	for _, p := range paths {
		a.add(&a.use.WriteOperands, "wo:", p+suf)
	}
}
