package resources

import (
	"sort"
	"strings"
)

// wgetKind is what a wget option does with its value.
type wgetKind uint8

const (
	wgetBool      wgetKind = iota // a switch; --opt=off and --no-opt exist too
	wgetValue                     // a value that names no file, host or program
	wgetRead                      // a file read
	wgetWrite                     // a file written
	wgetReadWrite                 // a file read and written
	wgetSpecial                   // handled by name (see wgetValueOpt)
	wgetRefused                   // refused, with the reason in wgetRefusals
	wgetNone                      // takes no value and has no --no- form
	wgetOptional                  // an optional attached value (--clobber[=on])
)

// wgetOpts are every long option of wget 1.21 (its option_data table,
// builds with c-ares and metalink included). getopt_long also accepts a
// unique prefix of a name; wgetLong resolves one.
var wgetOpts = map[string]wgetKind{
	"accept": wgetValue, "accept-regex": wgetValue, "adjust-extension": wgetSpecial, "append-output": wgetWrite,
	"ask-password": wgetBool, "auth-no-challenge": wgetBool, "background": wgetSpecial,
	"backup-converted": wgetBool, "backups": wgetBool, "base": wgetValue, "bind-address": wgetValue,
	"bind-dns-address": wgetValue, "body-data": wgetValue, "body-file": wgetRead, "ca-certificate": wgetRead,
	"ca-directory": wgetRead, "cache": wgetBool, "certificate": wgetRead, "certificate-type": wgetValue,
	"check-certificate": wgetBool, "clobber": wgetOptional, "compression": wgetValue, "config": wgetRefused,
	"connect-timeout": wgetValue, "continue": wgetBool, "convert-file-only": wgetBool, "convert-links": wgetBool,
	"content-disposition": wgetRefused, "content-on-error": wgetBool, "cookies": wgetBool, "crl-file": wgetRead,
	"cut-dirs": wgetValue, "debug": wgetSpecial, "default-page": wgetSpecial, "delete-after": wgetBool,
	"directories": wgetSpecial, "directory-prefix": wgetSpecial, "dns-cache": wgetBool,
	"dns-servers": wgetRefused, "dns-timeout": wgetValue, "domains": wgetValue, "dont-remove-listing": wgetNone,
	"dot-style": wgetValue, "egd-file": wgetRefused, "exclude-directories": wgetValue, "exclude-domains": wgetValue,
	"execute": wgetRefused, "follow-ftp": wgetBool, "follow-tags": wgetValue, "force-directories": wgetSpecial,
	"force-html": wgetBool, "ftp-password": wgetValue, "ftp-user": wgetValue,
	"ftps-clear-data-connection": wgetBool, "ftps-fallback-to-ftp": wgetBool, "ftps-implicit": wgetBool,
	"ftps-resume-ssl": wgetBool, "glob": wgetBool, "header": wgetValue, "help": wgetNone,
	"host-directories": wgetSpecial, "hsts": wgetBool, "hsts-file": wgetReadWrite,
	"html-extension": wgetSpecial, "htmlify": wgetBool, "http-keep-alive": wgetBool, "http-passwd": wgetValue,
	"http-password": wgetValue, "http-user": wgetValue, "https-only": wgetBool, "ignore-case": wgetBool,
	"ignore-length": wgetBool, "ignore-tags": wgetValue, "include-directories": wgetValue,
	"inet4-only": wgetBool, "inet6-only": wgetBool, "input-file": wgetRefused, "input-metalink": wgetRefused,
	"iri": wgetBool, "keep-badhash": wgetBool, "keep-session-cookies": wgetBool, "level": wgetValue,
	"limit-rate": wgetValue, "load-cookies": wgetRead, "local-encoding": wgetSpecial, "rejected-log": wgetWrite,
	"max-redirect": wgetValue, "metalink-index": wgetValue, "metalink-over-http": wgetRefused,
	"method": wgetValue, "mirror": wgetSpecial, "netrc": wgetSpecial, "no": wgetSpecial,
	"no-clobber": wgetBool, "no-config": wgetBool, "no-parent": wgetBool, "output-document": wgetSpecial,
	"output-file": wgetWrite, "page-requisites": wgetSpecial, "parent": wgetOptional, "passive-ftp": wgetBool,
	"password": wgetValue, "pinnedpubkey": wgetSpecial, "post-data": wgetValue, "post-file": wgetRead,
	"prefer-family": wgetValue, "preferred-location": wgetValue, "preserve-permissions": wgetBool,
	"ciphers": wgetValue, "private-key": wgetRead, "private-key-type": wgetValue, "progress": wgetValue,
	"show-progress": wgetBool, "protocol-directories": wgetSpecial, "proxy": wgetBool,
	"proxy__compat": wgetValue, "proxy-passwd": wgetValue, "proxy-password": wgetValue, "proxy-user": wgetValue,
	"quiet": wgetBool, "quota": wgetValue, "random-file": wgetRead, "random-wait": wgetBool,
	"read-timeout": wgetValue, "recursive": wgetSpecial, "referer": wgetValue, "regex-type": wgetValue,
	"reject": wgetValue, "reject-regex": wgetValue, "relative": wgetBool, "remote-encoding": wgetSpecial,
	"remove-listing": wgetBool, "report-speed": wgetBool, "restrict-file-names": wgetSpecial,
	"retr-symlinks": wgetBool, "retry-connrefused": wgetBool, "retry-on-host-error": wgetBool,
	"retry-on-http-error": wgetValue, "save-cookies": wgetWrite, "save-headers": wgetBool,
	"secure-protocol": wgetValue, "server-response": wgetBool, "span-hosts": wgetSpecial, "spider": wgetBool,
	"start-pos": wgetValue, "strict-comments": wgetBool, "timeout": wgetValue, "timestamping": wgetBool,
	"if-modified-since": wgetBool, "tries": wgetValue, "unlink": wgetBool, "trust-server-names": wgetRefused,
	"use-askpass": wgetRefused, "use-server-timestamps": wgetBool, "user": wgetValue, "user-agent": wgetValue,
	"verbose": wgetBool, "version": wgetNone, "wait": wgetValue, "waitretry": wgetValue, "warc-cdx": wgetBool,
	"warc-compression": wgetBool, "warc-dedup": wgetRead, "warc-digests": wgetBool, "warc-file": wgetSpecial,
	"warc-header": wgetValue, "warc-keep-log": wgetBool, "warc-max-size": wgetSpecial,
	"warc-tempdir": wgetWrite, "xattr": wgetBool,
}

// wgetBoolSpecial are the switches handled by name: they take an optional
// attached value and have a --no- form like every switch.
var wgetBoolSpecial = map[string]bool{"adjust-extension": true, "background": true, "debug": true,
	"directories": true, "force-directories": true, "host-directories": true, "html-extension": true,
	"mirror": true, "netrc": true, "page-requisites": true, "protocol-directories": true, "recursive": true,
	"restrict-file-names": true, "span-hosts": true}

// wgetRefusals say why an option is refused.
var wgetRefusals = map[string]string{
	"config":              "reads its instructions from a file the gate cannot see",
	"execute":             "runs a .wgetrc command the gate does not model",
	"input-file":          "reads its instructions from a file the gate cannot see",
	"input-metalink":      "reads its instructions from a file the gate cannot see",
	"metalink-over-http":  "downloads the files a metalink names, to names the server chooses",
	"use-askpass":         "runs a program",
	"content-disposition": "names the file it writes after what the server sends",
	"trust-server-names":  "names the file it writes after where the server redirects",
	"dns-servers":         "changes which address a host name reaches",
	"egd-file":            "connects to a Unix socket, not to a host",
}

// wgetShort maps wget's one-letter options to their long names;
// wgetShortValue are the letters that take a value.
var (
	wgetShort = map[byte]string{
		'A': "accept", 'a': "append-output", 'E': "adjust-extension", 'b': "background", 'K': "backup-converted",
		'B': "base", 'c': "continue", 'k': "convert-links", 'd': "debug", 'P': "directory-prefix",
		'D': "domains", 'X': "exclude-directories", 'e': "execute", 'x': "force-directories", 'F': "force-html",
		'h': "help", 'I': "include-directories", '4': "inet4-only", '6': "inet6-only", 'i': "input-file",
		'l': "level", 'm': "mirror", 'n': "no", 'O': "output-document", 'o': "output-file",
		'p': "page-requisites", 'Y': "proxy__compat", 'q': "quiet", 'Q': "quota", 'r': "recursive",
		'R': "reject", 'L': "relative", 'S': "server-response", 'H': "span-hosts", 'T': "timeout",
		'N': "timestamping", 't': "tries", 'U': "user-agent", 'v': "verbose", 'V': "version", 'w': "wait",
	}
	wgetShortValue = "AaBPDXeIilnOoYQRTtUw"
)

// wgetArg is how an option takes its value: 0 none, 1 required (attached
// or the next word), 2 optional (attached only).
func wgetArg(name string) int {
	switch wgetOpts[name] {
	case wgetBool, wgetOptional:
		return 2
	case wgetNone:
		return 0
	case wgetSpecial:
		if wgetBoolSpecial[name] {
			return 2
		}
	}
	return 1
}

// wgetLongNames are every name getopt_long knows, --no- forms included,
// sorted.
var wgetLongNames = func() []string {
	var out []string
	for name, k := range wgetOpts {
		out = append(out, name)
		if k == wgetBool || wgetBoolSpecial[name] {
			out = append(out, "no-"+name)
		}
	}
	sort.Strings(out)
	return out
}()

// wgetLong resolves a long option as getopt_long does: the exact name, or
// the only name it is a prefix of. neg is a switch's --no- form.
func wgetLong(name string) (full string, neg, ok bool) {
	i := sort.SearchStrings(wgetLongNames, name)
	switch {
	case i < len(wgetLongNames) && wgetLongNames[i] == name:
		full = name
	case i < len(wgetLongNames) && strings.HasPrefix(wgetLongNames[i], name) &&
		(i+1 == len(wgetLongNames) || !strings.HasPrefix(wgetLongNames[i+1], name)):
		full = wgetLongNames[i]
	default:
		return "", false, false
	}
	if _, real := wgetOpts[full]; !real {
		return full[3:], true, true
	}
	return full, false, true
}
