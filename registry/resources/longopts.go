package resources

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// genericLongSpec lists the long options of the GNU programs the generic
// model reads (coreutils 9.1's --help): a trailing "=" marks an option
// that takes a value (attached or the next word), "?" one whose value can
// only be attached. getopt_long takes any unambiguous prefix of a long
// option for the option (cp --target-dir=/tmp is --target-directory), so
// the model must know every option to read a line as the program will: an
// abbreviation is expanded, an ambiguous or unknown long option is refused.
var genericLongSpec = map[string]string{
	"rm":        "dir force interactive? no-preserve-root one-file-system preserve-root? recursive verbose",
	"rmdir":     "ignore-fail-on-non-empty parents verbose",
	"mv":        "backup? context force interactive no-clobber no-copy no-target-directory strip-trailing-slashes suffix= target-directory= update? verbose exchange debug",
	"cp":        "archive attributes-only backup? context? copy-contents dereference force interactive keep-directory-symlink link no-clobber no-dereference no-preserve= no-target-directory one-file-system parents preserve? recursive reflink? remove-destination sparse= strip-trailing-slashes suffix= symbolic-link target-directory= update? verbose debug",
	"touch":     "date= no-create no-dereference reference= time=",
	"mkdir":     "context? mode= parents verbose",
	"chmod":     "changes no-preserve-root preserve-root quiet recursive reference= silent verbose",
	"chown":     "changes dereference from= no-dereference no-preserve-root preserve-root quiet recursive reference= silent verbose",
	"chgrp":     "changes dereference no-dereference no-preserve-root preserve-root quiet recursive reference= silent verbose",
	"ln":        "backup? directory force interactive logical no-dereference no-target-directory physical relative suffix= symbolic target-directory= verbose",
	"tee":       "append ignore-interrupts output-error?",
	"truncate":  "io-blocks no-create reference= size=",
	"install":   "backup? compare context? debug directory group= mode= no-target-directory owner= preserve-context preserve-timestamps strip strip-program= suffix= target-directory= verbose",
	"shred":     "exact force iterations= random-source= remove? size= verbose zero",
	"cat":       "number number-nonblank show-all show-ends show-nonprinting show-tabs squeeze-blank",
	"head":      "bytes= lines= quiet silent verbose zero-terminated",
	"tail":      "bytes= follow? lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose zero-terminated debug",
	"nl":        "body-numbering= footer-numbering= header-numbering= join-blank-lines= line-increment= no-renumber number-format= number-separator= number-width= section-delimiter= starting-line-number=",
	"od":        "address-radix= endian= format= output-duplicates read-bytes= skip-bytes= strings? traditional width?",
	"base64":    "decode ignore-garbage wrap=",
	"tac":       "before regex separator=",
	"wc":        "bytes chars files0-from= lines max-line-length words total=",
	"md5sum":    "binary check ignore-missing quiet status strict tag text warn zero",
	"sha1sum":   "binary check ignore-missing quiet status strict tag text warn zero",
	"sha256sum": "binary check ignore-missing quiet status strict tag text warn zero",
	"sha512sum": "binary check ignore-missing quiet status strict tag text warn zero",
	"cut":       "bytes= characters= complement delimiter= fields= only-delimited output-delimiter= zero-terminated",
	"paste":     "delimiters= serial zero-terminated",
	"fold":      "bytes spaces width=",
	"fmt":       "crown-margin goal= prefix= split-only tagged-paragraph uniform-spacing width=",
	"expand":    "initial tabs=",
	"unexpand":  "all first-only tabs=",
	"comm":      "check-order nocheck-order output-delimiter= total zero-terminated",
	"join":      "check-order header ignore-case nocheck-order zero-terminated",
	"du":        "all apparent-size block-size= bytes count-links dereference dereference-args exclude-from= exclude= files0-from= human-readable inodes max-depth= no-dereference null one-file-system separate-dirs si summarize threshold= time? time-style= total",
	"ls":        "all almost-all author block-size= classify? color? context dereference dereference-command-line dereference-command-line-symlink-to-dir directory dired escape file-type format= full-time group-directories-first hide-control-chars hide= human-readable hyperlink? ignore-backups ignore= indicator-style= inode kibibytes literal no-group numeric-uid-gid quote-name quoting-style= recursive reverse show-control-chars si size sort= tabsize= time= time-style= width= zero",
}

// Every GNU program takes --help and --version.
const genericLongCommon = " help version"

var (
	genericLongOnce  sync.Once
	genericLongTable map[string]map[string]int
)

// genericLong is the table of prog's long options (see optWalk's kinds: 0
// a flag, 1 a value attached or next, 2 a value only attached), or nil
// for a program the generic model reads without one.
func genericLong(prog string) map[string]int {
	genericLongOnce.Do(func() {
		genericLongTable = make(map[string]map[string]int, len(genericLongSpec))
		for p, spec := range genericLongSpec {
			m := map[string]int{}
			for _, f := range strings.Fields(spec + genericLongCommon) {
				switch {
				case strings.HasSuffix(f, "="):
					m[strings.TrimSuffix(f, "=")] = 1
				case strings.HasSuffix(f, "?"):
					m[strings.TrimSuffix(f, "?")] = 2
				default:
					m[f] = 0
				}
			}
			genericLongTable[p] = m
		}
	})
	return genericLongTable[prog]
}

// expandLong is the full name of the long option name for a program with
// the table opts, as getopt_long reads it: the name itself, or the one
// option it is an unambiguous prefix of. ok is false for an unknown name
// or an ambiguous prefix (getopt_long refuses those too, unless the
// candidates are the same option, which a table without aliases has not).
func expandLong(opts map[string]int, name string) (full string, ok bool) {
	if _, exact := opts[name]; exact {
		return name, true
	}
	for n := range opts {
		if strings.HasPrefix(n, name) {
			if full != "" {
				return "", false
			}
			full = n
		}
	}
	return full, full != ""
}

// emptyWord stands for a long option given without a value.
var emptyWord = &syntax.Word{}

// genericOptions handles the options of a generic program that read,
// write or run something of their own; false means the analysis failed.
func (a *analyzer) genericOptions(prog string, vals map[string][]*syntax.Word, c ctx) bool {
	switch {
	case len(vals["files0-from"]) > 0:
		a.failf("cannot tell which files %s reads: --files0-from takes their names from a file at run time", prog)
		return false
	case len(vals["strip-program"]) > 0:
		a.failf("refused: %s --strip-program runs a program, which the gate cannot see", prog)
		return false
	}
	for _, name := range []string{"exclude-from", "random-source"} {
		for _, w := range vals[name] {
			a.readArg(prog+" --"+name, w, c)
		}
	}
	if prog == "du" {
		for _, w := range vals["X"] {
			a.readArg(prog+" -X", w, c)
		}
	}
	return true
}

// backups records the backup copies cp, mv, ln and install make of the
// files they replace, when asked to (-b, --backup, -S, --suffix): DEST
// plus the suffix (SUFFIX, or "~"), or DEST.~N~ for numbered backups. A
// suffix names a file of its own: cp -S .json src/a.go .mcp writes
// .mcp.json.
func (a *analyzer) backups(prog string, args []*syntax.Word, vals map[string][]*syntax.Word, dests []*syntax.Word, c ctx) {
	suffixes := append(append([]*syntax.Word(nil), vals["S"]...), vals["suffix"]...)
	if len(suffixes) == 0 && len(vals["backup"]) == 0 && !shortFlag(args, genericArgOpts[prog], 'b') {
		return
	}
	sufs := []string{"~"}
	for _, w := range suffixes {
		l, ok := staticWord(w)
		if !ok || strings.ContainsAny(l.s, "/") {
			a.failf("cannot tell which backup %s writes: suffix %s", prog, wordText(w))
			return
		}
		sufs = append(sufs, l.s)
	}
	for _, d := range dests {
		l, ok := staticWord(d)
		if !ok {
			continue // writeArg has refused it already
		}
		for _, suf := range sufs {
			a.writeArg(prog+" backup", valueWord(l.s+suf), c)
		}
		a.writeArg(prog+" backup", valueWord(l.s+".~1~"), c)
	}
}

// shortFlag reports whether letter is given among the short options of
// args (clusters before "--"), whose letters in argOpts take a value.
func shortFlag(args []*syntax.Word, argOpts string, letter byte) bool {
	for i := 0; i < len(args); i++ {
		l, ok := staticWord(args[i])
		if !ok || len(l.s) < 2 || l.s[0] != '-' || strings.HasPrefix(l.s, "--") {
			if ok && l.s == "--" {
				return false
			}
			continue
		}
		for j := 1; j < len(l.s); j++ {
			if l.s[j] == letter {
				return true
			}
			if strings.IndexByte(argOpts, l.s[j]) >= 0 {
				if j == len(l.s)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	return false
}
