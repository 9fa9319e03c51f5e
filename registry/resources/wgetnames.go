package resources

import (
	"strings"
)

// wgetSchemes are the protocols wget speaks.
var wgetSchemes = map[string]bool{"http": true, "https": true, "ftp": true, "ftps": true}

// wgetFinish judges the URLs and the files wget names after them, once
// every option is known.
func (a *analyzer) wgetFinish(prog string, r *wgetRun, c ctx) {
	base := r.prefix
	if r.recursive && r.spanHosts {
		a.failf("refused: %s -r -H follows links to any host", prog)
		return
	}
	if r.warcFile != nil {
		a.wgetWarc(prog, *r.warcFile, r.warcMaxSize, c)
	}
	if r.background && !r.logGiven {
		a.netPath(prog, "wget-log", true, c) // in the working directory, whatever -P says
	}
	if r.debug && !r.noNetrc {
		// -d prints each request, with the credentials ~/.netrc gave.
		a.readArg(prog, valueWord("~/.netrc"), c)
	}
	for _, x := range r.urls {
		if a.err != nil {
			return
		}
		a.wgetURL(prog, x, r, base, c)
	}
}

// wgetURL checks one URL's host and records the file (or, for -r, -p, -m
// and -x, the tree) wget writes for it.
func (a *analyzer) wgetURL(prog string, x netArg, r *wgetRun, base netArg, c ctx) {
	if !x.static {
		a.failf("cannot tell which host %s reaches and which file it writes: %s is not known before it runs", prog, x.text())
		return
	}
	u, ok := parseNetURL(x.l.s, "http")
	if !ok || !wgetSchemes[u.scheme] {
		a.failf("refused: %s reaches %s by a protocol the gate does not model (http, https, ftp and ftps are)", prog, shorten(x.l.s))
		return
	}
	h, err := u.host()
	if err != nil {
		a.failf("cannot tell which host %s reaches: %v", prog, err)
		return
	}
	a.add(&a.use.Hosts, "h:", h)
	ftp := strings.HasPrefix(u.scheme, "ftp")
	if ftp && r.glob && strings.ContainsAny(u.path, "*?[") {
		a.failf("refused: %s expands %s against the server's listing and writes the files it names", prog, shorten(x.l.s))
		return
	}
	if r.recursive || (r.dirstruct && !r.noDirs) {
		a.netFile(prog, wgetTree(base, u, h, r), true, c)
		return
	}
	if r.outputDoc {
		return
	}
	if ftp {
		a.netFile(prog, joinArg(base, ".listing"), true, c)
	}
	for _, n := range wgetNames(u, r) {
		a.netFile(prog, joinArg(base, n), true, c)
		a.netNumbered(prog, joinArg(base, n), c) // the name is taken: NAME.1 …
	}
}

// wgetTree is the directory -r (or -x) fills with files whose names the
// server's links choose: the prefix, then the protocol and host unless
// turned off.
func wgetTree(base netArg, u netURL, host string, r *wgetRun) netArg {
	if r.noDirs {
		return base
	}
	var rel []string
	if r.protoDirs {
		rel = append(rel, u.scheme)
	}
	if !r.noHost {
		if p := u.port(); p != "" {
			host += ":" + p
		}
		rel = append(rel, host)
	}
	if len(rel) == 0 {
		return base
	}
	return joinArg(base, strings.Join(rel, "/"))
}

// wgetNames are the names wget may give the file for a URL: the last
// path segment (index.html, or --default-page, when it is empty) with
// "?query" appended, %XX decoded, then -E's extensions and
// --restrict-file-names' spellings.
func wgetNames(u netURL, r *wgetRun) []string {
	p := removeDots(u.path)
	name := p[strings.LastIndexByte(p, '/')+1:]
	if name == "" {
		name = "index.html"
		if r.defaultPage != "" {
			name = r.defaultPage
		}
	}
	var names []string
	for _, sep := range []string{"?", "@"} {
		if sep == "@" && !r.windows {
			continue
		}
		n := name
		if u.hasQuery {
			n += sep + u.query
		}
		names = append(names, n, decodedName(n))
	}
	for _, n := range names {
		if r.adjustExt {
			names = append(names, n+".html", n+".css")
		}
	}
	for _, n := range names {
		if r.lower {
			names = append(names, strings.ToLower(n))
		}
		if r.upper {
			names = append(names, strings.ToUpper(n))
		}
	}
	return uniq(names...)
}

// wgetWarc records the files --warc-file F writes: F.warc.gz (or F.warc),
// F-meta.warc.gz and F.cdx. With --warc-max-size the names are numbered.
func (a *analyzer) wgetWarc(prog string, v netArg, numbered bool, c ctx) {
	if numbered {
		a.failf("refused: %s --warc-max-size writes numbered files the gate does not list", prog)
		return
	}
	if !v.static {
		a.netFile(prog, v, true, c)
		return
	}
	for _, ext := range []string{".warc.gz", ".warc", "-meta.warc.gz", "-meta.warc", ".cdx"} {
		l := lit{s: v.l.s, quoted: append([]bool(nil), v.l.quoted...)}
		l.add(ext, true)
		a.netFile(prog, netArg{l: l, static: true}, true, c)
	}
}
