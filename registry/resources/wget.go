package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wgetRun is what a wget line asks for; getopt permutes, so every option
// applies to every URL.
type wgetRun struct {
	urls                                  []netArg
	outputDoc, logGiven                   bool
	prefix                                netArg
	defaultPage                           string
	recursive, dirstruct, noDirs, noHost  bool
	protoDirs, spanHosts, adjustExt, glob bool
	background, debug, noNetrc            bool
	lower, upper, windows                 bool
	warcFile                              *netArg
	warcMaxSize                           bool
}

// wget models wget option by option (see wgetOpts): the hosts of its
// URLs, the files it reads (--post-file, certificates) and writes (-O,
// logs, cookies, and the file it names after each URL, or the tree -r
// fills). What the gate cannot model (a .wgetrc command, URLs from a
// file, a program to run, names the server chooses, other hosts under -r)
// is refused.
func (a *analyzer) wget(prog string, args []*syntax.Word, c ctx) {
	xs, ok := a.netArgs(prog, args)
	if !ok {
		return
	}
	r := &wgetRun{glob: true, prefix: attached(".")}
	afterDD := false
	for i := 0; i < len(xs) && a.err == nil; i++ {
		x := xs[i]
		if afterDD || !mayBeOption(x) || x.l.s == "-" {
			r.urls = append(r.urls, x)
			continue
		}
		if !x.static {
			a.failf("cannot tell what %s does: %s may expand to an option", prog, x.text())
			return
		}
		if x.l.s == "--" {
			afterDD = true
			continue
		}
		var next *netArg
		if i+1 < len(xs) {
			next = &xs[i+1]
		}
		i += a.wgetOption(prog, x.l.s, next, r, c)
	}
	if a.err == nil {
		a.wgetFinish(prog, r, c)
	}
}

// wgetOption handles one option word the way getopt_long does and
// returns how many following words it used.
func (a *analyzer) wgetOption(prog, word string, next *netArg, r *wgetRun, c ctx) int {
	if strings.HasPrefix(word, "--") {
		given, val, hasVal := strings.Cut(word[2:], "=")
		name, neg, ok := wgetLong(given)
		if !ok {
			a.failf("refused: %s --%s is not an option the gate knows (or names more than one)", prog, given)
			return 0
		}
		kind := wgetArg(name)
		if neg {
			kind = 0
		}
		switch {
		case hasVal && kind != 0:
			a.wgetValueOpt(prog, name, neg, attached(val), true, r, c)
		case kind == 1 && next == nil:
			a.failf("cannot tell what %s does: --%s needs a value", prog, name)
		case kind == 1:
			a.wgetValueOpt(prog, name, neg, *next, true, r, c)
			return 1
		default:
			a.wgetValueOpt(prog, name, neg, netArg{}, false, r, c)
		}
		return 0
	}
	for j := 1; j < len(word); j++ {
		name := wgetShort[word[j]]
		switch {
		case name == "":
			a.failf("refused: %s -%c is not an option the gate knows", prog, word[j])
			return 0
		case strings.IndexByte(wgetShortValue, word[j]) < 0:
			a.wgetValueOpt(prog, name, false, netArg{}, false, r, c)
			continue
		case j+1 < len(word):
			a.wgetValueOpt(prog, name, false, attached(word[j+1:]), true, r, c)
		case next == nil:
			a.failf("cannot tell what %s does: -%c needs a value", prog, word[j])
		default:
			a.wgetValueOpt(prog, name, false, *next, true, r, c)
			return 1
		}
		return 0
	}
	return 0
}

// wgetValueOpt handles option name (neg: its --no- form) with its value v
// when has is set.
func (a *analyzer) wgetValueOpt(prog, name string, neg bool, v netArg, has bool, r *wgetRun, c ctx) {
	on := !neg && !(has && isOff(v.l.s))
	switch wgetOpts[name] {
	case wgetRead:
		a.netFile(prog, v, false, c)
	case wgetWrite:
		a.netFile(prog, v, true, c)
		r.logGiven = r.logGiven || name == "output-file" || name == "append-output"
	case wgetReadWrite:
		a.netFile(prog, v, false, c)
		a.netFile(prog, v, true, c)
	case wgetRefused:
		if on {
			a.failf("refused: %s --%s %s", prog, name, wgetRefusals[name])
		}
	case wgetSpecial:
		a.wgetSpecial(prog, name, on, v, has, r, c)
	}
}

// isOff is a switch's value that turns it off (--recursive=off).
func isOff(v string) bool {
	switch strings.ToLower(v) {
	case "0", "off", "no", "false":
		return true
	}
	return false
}

// wgetSpecial handles the options that change which files wget writes.
func (a *analyzer) wgetSpecial(prog, name string, on bool, v netArg, has bool, r *wgetRun, c ctx) {
	switch name {
	case "output-document":
		r.outputDoc = true
		a.netFile(prog, v, true, c)
	case "directory-prefix", "default-page":
		if !v.static {
			a.failf("cannot tell which file %s writes: %s is not known before it runs", prog, v.text())
			return
		}
		if name == "default-page" {
			r.defaultPage = v.l.s
		} else {
			r.prefix = v
		}
	case "no":
		a.wgetNo(prog, v, r)
	case "recursive", "mirror", "page-requisites":
		r.recursive = r.recursive || on
	case "force-directories", "directories":
		r.dirstruct, r.noDirs = on, !on
	case "host-directories":
		r.noHost = !on
	case "protocol-directories":
		r.protoDirs = on
	case "span-hosts":
		r.spanHosts = on
	case "adjust-extension", "html-extension":
		r.adjustExt = on
	case "background":
		r.background = on
	case "debug":
		r.debug = on
	case "netrc":
		r.noNetrc = !on
	case "glob":
		r.glob = on
	default:
		a.wgetSpecialValue(prog, name, v, has, r, c)
	}
}

// wgetSpecialValue handles the options whose value needs its own reading.
func (a *analyzer) wgetSpecialValue(prog, name string, v netArg, has bool, r *wgetRun, c ctx) {
	switch name {
	case "restrict-file-names":
		if !has {
			return
		}
		for _, mode := range strings.Split(strings.ToLower(v.l.s), ",") {
			switch mode {
			case "unix", "nocontrol", "ascii":
			case "lowercase":
				r.lower = true
			case "uppercase":
				r.upper = true
			case "windows":
				r.windows = true
			default:
				a.failf("refused: %s --restrict-file-names=%s names files in a way the gate does not model", prog, shorten(v.l.s))
				return
			}
		}
	case "remote-encoding", "local-encoding":
		switch strings.ToLower(v.l.s) {
		case "utf-8", "utf8", "ascii", "us-ascii":
		default:
			a.failf("refused: %s --%s=%s converts the names of the files it writes in a way the gate does not model", prog, name, shorten(v.l.s))
		}
	case "pinnedpubkey":
		if !v.static || !strings.HasPrefix(v.l.s, "sha256//") {
			a.netFile(prog, v, false, c)
		}
	case "warc-file":
		r.warcFile = &v
	case "warc-max-size":
		r.warcMaxSize = true
	}
}

// wgetNo handles -n LETTERS: v (not verbose), H (no host directories), d
// (no directories), c (no clobber), p (no parent).
func (a *analyzer) wgetNo(prog string, v netArg, r *wgetRun) {
	if !v.static || v.l.s == "" {
		a.failf("cannot tell what %s -n does: %s is not known before it runs", prog, v.text())
		return
	}
	for i := 0; i < len(v.l.s); i++ {
		switch v.l.s[i] {
		case 'v', 'c', 'p':
		case 'H':
			r.noHost = true
		case 'd':
			r.noDirs, r.dirstruct = true, false
		default:
			a.failf("refused: %s -n%c is not an option the gate knows", prog, v.l.s[i])
			return
		}
	}
}
