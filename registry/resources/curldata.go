package resources

import (
	"net/url"
	"strings"
)

// curlFinish judges what one part of a curl line asks for, once all its
// options are known: -g, -O and --output-dir apply to every URL of the
// part wherever they stand.
func (a *analyzer) curlFinish(prog string, s *curlSection, c ctx) {
	for _, u := range s.uploads {
		if !s.globoff && u.static && strings.ContainsAny(u.l.s, "{}[]") {
			a.failf("refused: curl expands {…} and […] in -T %s itself; give -g (--globoff) or name each file", shorten(u.l.s))
			return
		}
		if u.static && u.l.s == "." {
			continue // standard input
		}
		a.netFile(prog, u, false, c)
	}
	for _, o := range s.outputs {
		if !s.globoff && o.static && strings.Contains(o.l.s, "#") {
			a.failf("refused: curl fills #N in -o %s from its URL globs; give -g (--globoff)", shorten(o.l.s))
			return
		}
		a.netFile(prog, o, true, c)
		if s.noClobber && o.l.s != "-" {
			a.netNumbered(prog, o, c)
		}
		if o.static && o.l.s != "-" {
			for _, d := range s.outputDirs {
				a.netFile(prog, joinArg(d, o.l.s), true, c)
			}
		}
	}
	for _, u := range s.urls {
		if a.err != nil {
			return
		}
		a.curlURLArg(prog, u, s, c)
	}
}

// curlURLArg judges one URL: its host is checked, file: reads (or with
// -T writes) a local path, other protocols are refused, and -O writes a
// file named after the URL.
func (a *analyzer) curlURLArg(prog string, x netArg, s *curlSection, c ctx) {
	text := x.l.s
	if !x.static {
		a.curlDynamicURL(prog, x, s)
		return
	}
	if !s.globoff && strings.ContainsAny(text, "{}[]") {
		a.failf("refused: curl expands {…} and […] in the URL %s itself; give -g (--globoff) or name each URL", shorten(text))
		return
	}
	def := "http"
	if s.protoDefault != "" {
		def = s.protoDefault
	}
	u, ok := parseNetURL(text, def)
	if !ok {
		a.failf("cannot tell which host %s reaches: %s names no host", prog, shorten(text))
		return
	}
	switch {
	case u.scheme == "file":
		a.curlFileURL(prog, u, len(s.uploads) > 0, c)
	case !curlSchemes[u.scheme]:
		a.failf("refused: %s reaches %s by %s:, a protocol the gate does not model (http, https, ftp, ftps, ws, wss and file are)", prog, shorten(text), u.scheme)
		return
	default:
		h, err := u.host()
		if err != nil {
			a.failf("cannot tell which host %s reaches: %v", prog, err)
			return
		}
		a.add(&a.use.Hosts, "h:", h)
	}
	if s.remoteName {
		for _, name := range curlRemoteNames(u.path) {
			a.curlRemoteWrite(prog, name, s, c)
		}
	}
}

// curlRemoteWrite records the file -O writes: in the working directory,
// or in --output-dir.
func (a *analyzer) curlRemoteWrite(prog, name string, s *curlSection, c ctx) {
	dirs := s.outputDirs
	if len(dirs) == 0 {
		dirs = []netArg{attached(".")}
	}
	for _, d := range dirs {
		a.netFile(prog, joinArg(d, name), true, c)
		if s.noClobber {
			a.netNumbered(prog, joinArg(d, name), c)
		}
	}
}

// curlDynamicURL accepts a URL not known before it runs only when its
// known start fixes the protocol and the host, and no file is named
// after it.
func (a *analyzer) curlDynamicURL(prog string, x netArg, s *curlSection) {
	p := x.l.s
	i := strings.Index(p, "://")
	if i < 0 || strings.IndexAny(p[i+3:], "/?#") < 0 {
		a.failf("cannot tell which host %s reaches: %s is not known before it runs", prog, x.text())
		return
	}
	if s.remoteName {
		a.failf("cannot tell which file %s -O writes: %s is not known before it runs", prog, x.text())
		return
	}
	end := i + 3 + strings.IndexAny(p[i+3:], "/?#")
	u, ok := parseNetURL(p[:end]+"/", "http")
	if !ok || !curlSchemes[u.scheme] {
		a.failf("refused: %s reaches %s by a protocol the gate does not model", prog, x.text())
		return
	}
	h, err := u.host()
	if err != nil {
		a.failf("cannot tell which host %s reaches: %v", prog, err)
		return
	}
	a.add(&a.use.Hosts, "h:", h)
}

// curlFileURL is a file: URL: curl reads the local path (percent-decoded),
// or writes it when the part uploads. Only the local host is allowed.
func (a *analyzer) curlFileURL(prog string, u netURL, upload bool, c ctx) {
	if h := strings.ToLower(u.authority); h != "" && h != "localhost" && h != "127.0.0.1" {
		a.failf("refused: %s file://%s/ names another machine", prog, shorten(u.authority))
		return
	}
	decoded, err := url.PathUnescape(u.path)
	if err != nil {
		decoded = u.path
	}
	for _, p := range uniq(u.path, decoded) {
		a.netPath(prog, p, upload, c)
	}
}

// curlRemoteNames are the names -O may give the file for a URL path: curl
// takes the last segment after removing dot segments; curl 7 keeps an
// empty one (and fails), curl 8 drops trailing slashes and names an empty
// path curl_response. The decoded spelling is checked too.
func curlRemoteNames(path string) []string {
	p := removeDots(path)
	var names []string
	last := func(p string) string {
		seg := p[strings.LastIndexByte(p, '/')+1:]
		return seg[strings.LastIndexByte(seg, '\\')+1:]
	}
	if n := last(p); n != "" {
		names = append(names, n)
	}
	trimmed := strings.TrimRight(p, "/")
	switch {
	case trimmed == "":
		names = append(names, "curl_response")
	default:
		names = append(names, last(trimmed))
	}
	var out []string
	for _, n := range names {
		out = append(out, uniq(n, decodedName(n))...)
	}
	return uniq(out...)
}

// uniq is vs without repeats, in order.
func uniq(vs ...string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// curlAtFile handles -d, -H, --json and the like: "@FILE" reads FILE
// ("@-" is standard input).
func (a *analyzer) curlAtFile(prog, name string, v netArg, c ctx) {
	switch {
	case !v.static && v.l.s == "":
		a.failf("cannot tell whether %s --%s reads a file: %s is not known before it runs", prog, name, v.text())
	case strings.HasPrefix(v.l.s, "@"):
		a.curlAtName(prog, v, v.l.s[1:], c)
	}
}

// curlAtName reads the file named after an @ (or <) in a value.
func (a *analyzer) curlAtName(prog string, v netArg, name string, c ctx) {
	if !v.static {
		a.failf("cannot tell which file %s reads: %s is not known before it runs", prog, v.text())
		return
	}
	if name == "-" {
		return
	}
	a.netFile(prog, attached(name), false, c)
}

// curlEncoded handles --data-urlencode and --url-query: an = anywhere
// makes the rest content; otherwise NAME@FILE reads FILE.
func (a *analyzer) curlEncoded(prog, name string, v netArg, c ctx) {
	val := v.l.s
	switch {
	case strings.Contains(val, "="):
	case !v.static:
		a.failf("cannot tell whether %s --%s reads a file: %s is not known before it runs", prog, name, v.text())
	case strings.Contains(val, "@"):
		_, f, _ := strings.Cut(val, "@")
		a.curlAtName(prog, v, f, c)
	}
}

// curlCookie handles -b: a value with an = is cookies, any other names a
// file (curl 7 also reads "@FILE").
func (a *analyzer) curlCookie(prog string, v netArg, c ctx) {
	val := v.l.s
	switch {
	case strings.HasPrefix(val, "@"):
		a.curlAtName(prog, v, val[1:], c)
		if !strings.Contains(val, "=") {
			a.netFile(prog, v, false, c)
		}
	case strings.Contains(val, "="):
	default:
		a.netFile(prog, v, false, c)
	}
}

// curlVariable handles --variable: [%]NAME[[N-M]]@FILE reads FILE,
// NAME=CONTENT reads nothing.
func (a *analyzer) curlVariable(prog string, v netArg, c ctx) {
	s := strings.TrimPrefix(v.l.s, "%")
	i := 0
	for i < len(s) && (isAlnum(s[i]) || s[i] == '_') {
		i++
	}
	if i < len(s) && s[i] == '[' {
		if j := strings.IndexByte(s[i:], ']'); j >= 0 {
			i += j + 1
		}
	}
	switch {
	case i < len(s) && s[i] == '@':
		a.curlAtName(prog, v, s[i+1:], c)
	case i < len(s) && s[i] == '=':
	case !v.static:
		a.failf("cannot tell whether %s --variable reads a file: %s is not known before it runs", prog, v.text())
	}
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// curlForm handles -F NAME=CONTENT: "@FILE" attaches files (a comma
// list), "<FILE" sends a file's content, and ";headers=@FILE" (or <FILE)
// reads headers from a file. Quoted file names are refused: the gate
// does not split them as curl does.
func (a *analyzer) curlForm(prog string, v netArg, c ctx) {
	if !v.static {
		a.failf("cannot tell which files %s -F reads: %s is not known before it runs (use --form-string for literal text)", prog, v.text())
		return
	}
	_, content, ok := strings.Cut(v.l.s, "=")
	if !ok {
		return // curl refuses a field without a name
	}
	var files []string
	if strings.HasPrefix(content, "@") || strings.HasPrefix(content, "<") {
		list, _, _ := strings.Cut(content[1:], ";")
		files = append(files, strings.Split(list, ",")...)
	}
	low := strings.ToLower(content)
	for i := strings.Index(low, "headers="); i >= 0; {
		rest := strings.TrimLeft(content[i+len("headers="):], " \t")
		if strings.HasPrefix(rest, "@") || strings.HasPrefix(rest, "<") {
			f, _, _ := strings.Cut(rest[1:], ";")
			f, _, _ = strings.Cut(f, ",")
			files = append(files, f)
		}
		j := strings.Index(low[i+1:], "headers=")
		if j < 0 {
			break
		}
		i += j + 1
	}
	for _, f := range files {
		if strings.Contains(f, `"`) {
			a.failf("refused: %s -F names a quoted file (%s) the gate does not split as curl does", prog, shorten(f))
			return
		}
		if f != "-" && f != "" {
			a.netFile(prog, attached(f), false, c)
		}
	}
}

// curlCert handles --cert, --key and their proxy forms: FILE[:PASSWORD],
// both spellings read; a PKCS#11 URI may load a module and is refused.
func (a *analyzer) curlCert(prog, name string, v netArg, c ctx) {
	if strings.HasPrefix(strings.ToLower(v.l.s), "pkcs11:") {
		a.failf("the gate cannot tell what this runs: %s --%s pkcs11: may load a PKCS#11 module", prog, name)
		return
	}
	a.netFile(prog, v, false, c)
	if f, _, ok := strings.Cut(v.l.s, ":"); ok && v.static {
		a.netFile(prog, attached(f), false, c)
	}
}

// curlProtoRedir handles --proto-redir: it may only remove protocols or
// keep to the ones curl follows by default.
func (a *analyzer) curlProtoRedir(prog string, v netArg) {
	if !v.static {
		a.failf("cannot tell which protocols %s follows: %s is not known before it runs", prog, v.text())
		return
	}
	for _, t := range strings.Split(v.l.s, ",") {
		t = strings.TrimSpace(t)
		if strings.HasPrefix(t, "-") || t == "" {
			continue
		}
		if !curlSafeRedirects[strings.ToLower(strings.TrimLeft(t, "+="))] {
			a.failf("refused: %s --proto-redir %s lets a server redirect curl to a protocol the gate does not model", prog, shorten(v.l.s))
			return
		}
	}
}
