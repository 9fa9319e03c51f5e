package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// findArgs are find's primaries with their number of arguments; findRuns
// run a program; findWrites write the file they name. A primary find does
// not know here is refused: find runs programs, so an unknown word is not
// guessed at.
var (
	findArgs = map[string]int{
		"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1,
		"-iregex": 1, "-type": 1, "-xtype": 1, "-size": 1, "-perm": 1, "-user": 1, "-group": 1, "-uid": 1,
		"-gid": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1, "-newer": 1,
		"-anewer": 1, "-cnewer": 1, "-samefile": 1, "-inum": 1, "-links": 1, "-maxdepth": 1, "-mindepth": 1,
		"-used": 1, "-fstype": 1, "-context": 1, "-printf": 1, "-regextype": 1, "-lname": 1, "-ilname": 1,
		"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2,
		"-prune": 0, "-print": 0, "-print0": 0, "-ls": 0, "-quit": 0, "-true": 0, "-false": 0, "-empty": 0,
		"-executable": 0, "-readable": 0, "-writable": 0, "-nouser": 0, "-nogroup": 0, "-daystart": 0,
		"-depth": 0, "-d": 0, "-follow": 0, "-mount": 0, "-xdev": 0, "-noleaf": 0, "-ignore_readdir_race": 0,
		"-noignore_readdir_race": 0, "-warn": 0, "-nowarn": 0, "-not": 0, "-a": 0, "-and": 0, "-o": 0,
		"-or": 0, "!": 0, "(": 0, ")": 0, ",": 0, "-help": 0, "--help": 0, "-version": 0, "--version": 0,
		"-delete": 0,
	}
	findRuns   = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}
	findWrites = map[string]bool{"-fprint": true, "-fprint0": true, "-fls": true, "-fprintf": true}
)

// find models find: its starting points are directories read; -fprint,
// -fprint0, -fls and -fprintf write the file they name; -delete writes
// everything below the starting points; -exec, -execdir, -ok and -okdir
// run a program whose {} stands for files below the starting points
// (-execdir runs it in their directories, so its other relative operands
// cannot be placed); -files0-from reads the starting points from a file.
func (a *analyzer) find(args []*syntax.Word, c ctx) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok || l.hasGlob() || l.hasBraces() {
			// An unquoted expansion or pattern could produce -exec.
			a.failf("cannot determine what find runs: %s is not a static word", wordText(w))
			return
		}
	}
	i := 0
	for i < len(args) { // -H -L -P -D opts -O3
		l, _ := staticWord(args[i])
		if l.s == "-H" || l.s == "-L" || l.s == "-P" || strings.HasPrefix(l.s, "-O") {
			i++
		} else if l.s == "-D" {
			i += 2
		} else {
			break
		}
	}
	var roots []*syntax.Word
	for i < len(args) {
		l, _ := staticWord(args[i])
		if strings.HasPrefix(l.s, "-") || l.s == "!" || l.s == "(" || l.s == ")" || l.s == "," {
			break
		}
		roots = append(roots, args[i])
		i++
	}
	if len(roots) == 0 {
		roots = []*syntax.Word{dotWord}
	}
	var rootPaths []string
	for _, r := range roots {
		a.readArg("find", r, c)
		p, _ := a.argPaths(r, c)
		rootPaths = append(rootPaths, p...)
	}
	a.findExpr(args[i:], roots, rootPaths, c)
}

// findExpr walks find's expression.
func (a *analyzer) findExpr(args, roots []*syntax.Word, rootPaths []string, c ctx) {
	for i := 0; i < len(args) && a.err == nil; i++ {
		l, _ := staticWord(args[i])
		switch {
		case findRuns[l.s]:
			// The program is handed every file below the roots.
			for _, r := range rootPaths {
				a.addTree(TreeRead{Program: "find " + l.s, Root: r, Follow: true})
			}
			i = a.findExec(args, i, rootPaths, c)
		case l.s == "-delete":
			a.writeArgs("find -delete", roots, c)
		case l.s == "-files0-from":
			a.failf("cannot tell what find reads: -files0-from takes its starting points from a file")
		case findWrites[l.s]:
			if i+1 < len(args) {
				a.writeArg("find "+l.s, args[i+1], c)
			}
			i += findArgs[l.s]
		case strings.HasPrefix(l.s, "-newer") && len(l.s) == 8:
			i++ // -newerXY reference
		default:
			n, known := findArgs[l.s]
			if !known {
				a.failf("refused: find %s is not an option the gate knows, and find runs programs", l.s)
				return
			}
			i += n
		}
	}
}

// findExec analyses -exec and its kin starting at args[i] and returns the
// index of the word that ends it.
func (a *analyzer) findExec(args []*syntax.Word, i int, rootPaths []string, c ctx) int {
	l, _ := staticWord(args[i])
	start := i + 1
	end := start
	for end < len(args) {
		e, _ := staticWord(args[end])
		if e.s == ";" {
			break
		}
		if e.s == "+" && end > start {
			if p, _ := staticWord(args[end-1]); p.s == "{}" {
				break
			}
		}
		end++
	}
	if start >= len(args) || start == end {
		a.failf("cannot determine the program run by find %s", l.s)
		return end
	}
	inner := c
	inner.subst, inner.substPaths = "{}", rootPaths
	saved := a.cwdUnknown
	if l.s == "-execdir" || l.s == "-okdir" {
		a.cwdUnknown = true // it runs in each found file's directory
	}
	a.run(args[start:end], inner)
	if l.s == "-execdir" || l.s == "-okdir" {
		a.cwdUnknown = saved
	}
	return end
}
