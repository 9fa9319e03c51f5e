package resources

import (
	"net/url"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// netArg is one argument as curl or wget receives it, after bash's brace
// expansion: l is its value, or for a word not known before it runs, the
// part of it that is (its static prefix).
type netArg struct {
	l      lit
	static bool
	w      *syntax.Word // the word it came from, when it is the whole word
}

// text is the argument for a message.
func (x netArg) text() string {
	if x.w != nil {
		return wordText(x.w)
	}
	return shorten(x.l.s)
}

// attached is the value given inside an option word (-oFILE, --opt=VALUE):
// bash expands nothing there, so every byte is literal.
func attached(s string) netArg {
	var l lit
	l.add(s, true)
	return netArg{l: l, static: true}
}

// netArgs expands a program's argument words the way bash will: braces
// make several arguments, and a pattern that matches files is refused
// (bash would hand the program the names of those files instead).
func (a *analyzer) netArgs(prog string, args []*syntax.Word) ([]netArg, bool) {
	out := make([]netArg, 0, len(args))
	for _, w := range args {
		if vals, ok := a.argValues(w); ok {
			for _, v := range vals {
				if v.hasGlob() && a.globMatches(v) {
					a.failf("cannot tell what %s is given: bash replaces %s with the names of the files it matches", prog, shorten(v.s))
					return nil, false
				}
				x := netArg{l: v, static: true}
				if len(vals) == 1 {
					x.w = w
				}
				out = append(out, x)
			}
			continue
		}
		if !singleField(w) && !isProcSubst(w) {
			a.failf("cannot tell what %s is given: %s may expand to several words", prog, wordText(w))
			return nil, false
		}
		out = append(out, netArg{l: staticPrefix(w), w: w})
	}
	return out, a.err == nil
}

// globMatches reports whether bash's pathname expansion of l may match
// a file (an unknown working directory may).
func (a *analyzer) globMatches(l lit) bool {
	if a.cwdUnknown && !isAbsOrHome(l.s) {
		return true
	}
	for _, full := range a.inCwds(l.s) {
		m, ok := a.glob(full, l, len(full)-len(l.s))
		if !ok || len(m) > 0 {
			return true
		}
	}
	return false
}

// staticPrefix is the value of the leading parts of w that are known
// before it runs: what staticParts has read when it meets the first part
// that is not.
func staticPrefix(w *syntax.Word) lit {
	l, _ := staticParts(w)
	return l
}

// quotedWord is a word whose value is s, with nothing left to expand.
func quotedWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: s}}}
}

// netFile records the file an option's value names as read or written.
// A value bash gave as a word of its own keeps its tilde; one taken from
// inside a word (-oFILE, @FILE) is literal.
func (a *analyzer) netFile(prog string, x netArg, write bool, c ctx) {
	if !x.static {
		if x.w != nil && isProcSubst(x.w) {
			return // a pipe
		}
		verb := "reads"
		if write {
			verb = "writes"
		}
		a.failf("cannot tell which file %s %s: %s is not known before it runs", prog, verb, x.text())
		return
	}
	w := quotedWord(x.l.s)
	if home, _ := x.l.tildeForm(); home {
		w = valueWord(x.l.s)
	}
	if write {
		a.writeArg(prog, w, c)
	} else {
		a.readArg(prog, w, c)
	}
}

// joinArg is the file name under the directory dir (an option's value),
// keeping the directory's tilde.
func joinArg(dir netArg, name string) netArg {
	if dir.static && (dir.l.s == "" || dir.l.s == ".") {
		return attached(name)
	}
	l := lit{s: dir.l.s, quoted: append([]bool(nil), dir.l.quoted...)}
	if !strings.HasSuffix(l.s, "/") {
		l.add("/", true)
	}
	l.add(name, true)
	return netArg{l: l, static: dir.static, w: nil}
}

// netNumbered records the numbered copies a program writes when the
// file exists (NAME.1, NAME.2 …) as one write of the pattern NAME.*.
func (a *analyzer) netNumbered(prog string, x netArg, c ctx) {
	if !x.static {
		return // netFile has refused it
	}
	w := quotedWord(x.l.s + ".")
	if home, _ := x.l.tildeForm(); home {
		w = valueWord(x.l.s + ".")
	}
	a.writePattern(prog, w, "", c)
}

// netPath records a file the program names itself (from a URL), literal.
func (a *analyzer) netPath(prog, p string, write bool, c ctx) {
	if write {
		a.writeArg(prog, quotedWord(p), c)
	} else {
		a.readArg(prog, quotedWord(p), c)
	}
}

// netURL is a URL as curl and wget read it.
type netURL struct {
	scheme    string // lower case
	authority string // user info, host and port
	path      string // as written, without query and fragment
	query     string
	hasQuery  bool
}

// parseNetURL splits s into its parts; a URL without a scheme gets def,
// or ftp for a host that begins with "ftp." (both programs guess so).
// One to three slashes may follow the scheme, as curl accepts.
func parseNetURL(s, def string) (netURL, bool) {
	var u netURL
	rest := s
	if i := schemeEnd(s); i > 0 {
		u.scheme, rest = strings.ToLower(s[:i]), s[i+1:]
		if u.scheme == "file" {
			return fileURL(u, rest)
		}
		rest = strings.TrimLeft(rest, "/")
	} else {
		u.scheme = def
		if strings.HasPrefix(strings.ToLower(s), "ftp.") && def == "http" {
			u.scheme = "ftp"
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	u.authority, rest = rest[:end], rest[end:]
	if u.authority == "" {
		return u, false
	}
	rest, _, _ = strings.Cut(rest, "#")
	u.path, u.query, u.hasQuery = strings.Cut(rest, "?")
	return u, true
}

// fileURL is the rest of a file: URL: file:/p, file:///p or
// file://host/p.
func fileURL(u netURL, rest string) (netURL, bool) {
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			return u, false
		}
		u.authority, rest = rest[:end], rest[end:]
	}
	if !strings.HasPrefix(rest, "/") {
		return u, false
	}
	rest, _, _ = strings.Cut(rest, "#")
	u.path, u.query, u.hasQuery = strings.Cut(rest, "?")
	return u, true
}

// schemeEnd is the index of the colon after a URL scheme followed by a
// slash, or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0 && i+1 < len(s) && s[i+1] == '/':
			return i
		default:
			return -1
		}
	}
	return -1
}

// host is the URL's host in the form allow.hosts compares.
func (u netURL) host() (string, error) {
	return HostOf("http://" + u.authority + "/")
}

// port is the URL's explicit port, or "".
func (u netURL) port() string {
	hp := u.authority
	if i := strings.LastIndexByte(hp, '@'); i >= 0 {
		hp = hp[i+1:]
	}
	if i := strings.LastIndexByte(hp, ':'); i >= 0 && !strings.HasSuffix(hp, "]") {
		return hp[i+1:]
	}
	return ""
}

// removeDots removes the . and .. segments of a URL path (RFC 3986
// 5.2.4), as both programs do before naming a file after it.
func removeDots(p string) string {
	var out []string
	segs := strings.Split(p, "/")
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// decodedName is a file name with its %XX escapes decoded, as wget
// writes it; a decoded slash stays escaped (wget escapes it again).
func decodedName(s string) string {
	d, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return strings.ReplaceAll(d, "/", "%2F")
}

// proxySchemes are the proxy kinds curl knows.
var proxySchemes = map[string]bool{"http": true, "https": true, "socks4": true, "socks4a": true,
	"socks5": true, "socks5h": true}

// netProxy records the host of a proxy ([scheme://][user@]host[:port]);
// a path after the host names a Unix socket (socks5h://localhost/path).
func (a *analyzer) netProxy(prog string, x netArg) {
	if !x.static {
		a.failf("cannot tell which host %s reaches: the proxy %s is not known before it runs", prog, x.text())
		return
	}
	s := x.l.s
	if s == "" {
		return // no proxy
	}
	scheme, rest := "http", s
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest = strings.ToLower(s[:i]), s[i+3:]
	}
	if !proxySchemes[scheme] {
		a.failf("refused: %s reaches the proxy %s by a protocol the gate does not model", prog, shorten(s))
		return
	}
	hostPart, path, _ := strings.Cut(rest, "/")
	if strings.Trim(path, "/") != "" {
		a.failf("refused: the proxy %s names a Unix socket, not a host", shorten(s))
		return
	}
	a.addHost(prog, "http://"+hostPart+"/")
}
