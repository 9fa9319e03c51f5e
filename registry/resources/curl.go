package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// curlSection is what one part of a curl line (up to --next) asks for:
// some options apply to every URL of the part wherever they stand.
type curlSection struct {
	urls, outputs, uploads []netArg
	outputDirs             []netArg
	globoff, remoteName    bool
	noClobber              bool // --no-clobber: NAME.1 … when NAME exists
	protoDefault           string
	afterDD                bool
}

// curl models curl option by option (see curlOpts): the hosts of its URLs
// and proxies, the files it reads (-T, @FILE data, certificates) and
// writes (-o, -O, -D, traces, caches). What the gate cannot model (a
// config file, a Unix socket, a name the server chooses, curl's own URL
// globs, variable expansion) is refused.
func (a *analyzer) curl(prog string, args []*syntax.Word, c ctx) {
	xs, ok := a.netArgs(prog, args)
	if !ok {
		return
	}
	s := &curlSection{}
	for i := 0; i < len(xs) && a.err == nil; i++ {
		x := xs[i]
		if s.afterDD || !mayBeOption(x) {
			s.urls = append(s.urls, x)
			continue
		}
		if !x.static {
			a.failf("cannot tell what %s does: %s may expand to an option", prog, x.text())
			return
		}
		if x.l.s == "--" {
			s.afterDD = true
			continue
		}
		var next *netArg
		if i+1 < len(xs) {
			next = &xs[i+1]
		}
		i += a.curlOption(prog, x.l.s, next, &s, c)
	}
	if a.err == nil {
		a.curlFinish(prog, s, c)
	}
}

// mayBeOption: a word that starts with "-", or one whose start is not
// known before it runs.
func mayBeOption(x netArg) bool {
	return strings.HasPrefix(x.l.s, "-") || (!x.static && x.l.s == "")
}

// curlOption handles one option word (a long option, or a cluster of
// letters) and returns how many following words it used. curl takes
// --opt=value only since 8.16; older versions refuse the word, so taking
// it as the value is the reading that covers both.
func (a *analyzer) curlOption(prog, word string, next *netArg, s **curlSection, c ctx) int {
	if strings.HasPrefix(word, "--") {
		name, val, hasVal := strings.Cut(word[2:], "=")
		if strings.HasPrefix(name, "expand-") {
			a.failf("refused: %s %s expands variables the gate does not model", prog, shorten(word))
			return 0
		}
		neg := false
		if _, known := curlOpts[name]; !known && strings.HasPrefix(name, "no-") && !curlTakesValue(name[3:]) {
			if _, known := curlOpts[name[3:]]; known {
				name, neg = name[3:], true
			}
		}
		if _, known := curlOpts[name]; !known {
			a.failf("refused: %s --%s is not an option the gate knows (curl reads files, writes files and reaches hosts by its options)", prog, name)
			return 0
		}
		switch {
		case !curlTakesValue(name):
			a.curlFlagOpt(prog, name, neg, s, c)
			return 0
		case hasVal:
			a.curlValueOpt(prog, name, attached(val), *s, c)
			return 0
		case next == nil:
			a.failf("cannot tell what %s does: --%s needs a value", prog, name)
			return 0
		}
		a.curlValueOpt(prog, name, *next, *s, c)
		return 1
	}
	for j := 1; j < len(word) || j == 1; j++ {
		var name string
		if j < len(word) {
			name = curlShort[word[j]]
		}
		if name == "" {
			a.failf("refused: %s %s is not an option the gate knows", prog, shorten(word))
			return 0
		}
		switch {
		case !curlTakesValue(name):
			a.curlFlagOpt(prog, name, false, s, c)
			continue
		case j+1 < len(word):
			a.curlValueOpt(prog, name, attached(word[j+1:]), *s, c)
			return 0
		case next == nil:
			a.failf("cannot tell what %s does: -%c needs a value", prog, word[j])
			return 0
		}
		a.curlValueOpt(prog, name, *next, *s, c)
		return 1
	}
	return 0
}

// curlFlagOpt handles an option without a value; neg is its --no- form.
func (a *analyzer) curlFlagOpt(prog, name string, neg bool, s **curlSection, c ctx) {
	switch name {
	case "globoff":
		(*s).globoff = !neg
	case "clobber":
		(*s).noClobber = neg
	case "remote-name", "remote-name-all":
		(*s).remoteName = (*s).remoteName || !neg
	case "netrc", "netrc-optional":
		if !neg {
			// ~/.netrc holds the user's credentials for other hosts too;
			// curl -v prints what it sends.
			a.readArg(prog, valueWord("~/.netrc"), c)
		}
	case "remote-header-name":
		if !neg {
			a.failf("refused: %s --%s %s", prog, name, curlRefusals[name])
		}
	case "next":
		a.curlFinish(prog, *s, c)
		*s = &curlSection{}
	}
}

// curlValueOpt handles an option with its value v.
func (a *analyzer) curlValueOpt(prog, name string, v netArg, s *curlSection, c ctx) {
	switch curlOpts[name] {
	case curlValue:
	case curlRead:
		a.netFile(prog, v, false, c)
	case curlWrite:
		a.netFile(prog, v, true, c)
	case curlReadWrite:
		a.netFile(prog, v, false, c)
		a.netFile(prog, v, true, c)
	case curlURL:
		a.curlURLArg(prog, v, &curlSection{globoff: true}, c)
	case curlProxy:
		a.netProxy(prog, v)
	case curlAtFile:
		a.curlAtFile(prog, name, v, c)
	case curlEncoded:
		a.curlEncoded(prog, name, v, c)
	case curlRefused:
		a.failf("refused: %s --%s %s", prog, name, curlRefusals[name])
	case curlSpecial:
		a.curlSpecialValue(prog, name, v, s, c)
	}
}

// curlSpecialValue handles the options whose value needs its own reading.
func (a *analyzer) curlSpecialValue(prog, name string, v netArg, s *curlSection, c ctx) {
	val := v.l.s
	switch name {
	case "output":
		s.outputs = append(s.outputs, v)
	case "upload-file":
		s.uploads = append(s.uploads, v)
	case "output-dir":
		if !v.static {
			a.failf("cannot tell which file %s writes: the directory %s is not known before it runs", prog, v.text())
			return
		}
		s.outputDirs = append(s.outputDirs, v)
	case "url":
		if strings.HasPrefix(val, "@") {
			a.failf("refused: %s --url @FILE reads its URLs from a file the gate cannot see", prog)
			return
		}
		s.urls = append(s.urls, v)
	case "proto-default":
		if !v.static {
			a.failf("cannot tell which protocol %s uses: %s is not known before it runs", prog, v.text())
		}
		s.protoDefault = strings.ToLower(val)
	case "proto-redir":
		a.curlProtoRedir(prog, v)
	case "engine":
		if !v.static || val != "list" {
			a.failf("the gate cannot tell what this runs: %s --engine loads a crypto engine, code the gate cannot see", prog)
		}
	default:
		a.curlDataValue(prog, name, v, c)
	}
}

// curlDataValue handles the options whose value may name a file inside
// it: forms, cookies, -w, --variable, --url-query, certificates.
func (a *analyzer) curlDataValue(prog, name string, v netArg, c ctx) {
	val := v.l.s
	switch name {
	case "url-query":
		if strings.HasPrefix(val, "+") {
			return // sent as it is
		}
		a.curlEncoded(prog, name, v, c)
	case "form":
		a.curlForm(prog, v, c)
	case "cookie":
		a.curlCookie(prog, v, c)
	case "write-out":
		if !v.static {
			a.failf("cannot tell what %s -w writes: %s is not known before it runs (%%output{FILE} writes a file)", prog, v.text())
			return
		}
		if strings.HasPrefix(val, "@") {
			a.netFile(prog, attached(val[1:]), false, c)
			return
		}
		if strings.Contains(strings.ToLower(val), "%output{") {
			a.failf("refused: %s -w %%output{…} writes a file the gate does not model", prog)
		}
	case "variable":
		a.curlVariable(prog, v, c)
	case "cert", "proxy-cert", "key", "proxy-key":
		a.curlCert(prog, name, v, c)
	case "pinnedpubkey", "proxy-pinnedpubkey":
		if v.static && strings.HasPrefix(val, "sha256//") {
			return
		}
		a.netFile(prog, v, false, c)
	case "time-cond":
		// A date, or a file whose time is used (after a +, - or =).
		if v.static && val != "" && strings.ContainsRune("+-=", rune(val[0])) {
			v = attached(val[1:])
		}
		a.netFile(prog, v, false, c)
	}
}
