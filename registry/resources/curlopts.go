package resources

// curlKind is what a curl option does with its value.
type curlKind uint8

const (
	curlFlag      curlKind = iota // takes no value
	curlValue                     // a value that names no file, host or program
	curlRead                      // a file read
	curlWrite                     // a file written
	curlReadWrite                 // a file read and written (a cache)
	curlURL                       // a URL reached
	curlProxy                     // a proxy reached: [scheme://]host[:port]
	curlAtFile                    // @FILE at the start reads FILE (-d, -H, --json)
	curlEncoded                   // NAME@FILE reads FILE unless an = comes first (--data-urlencode)
	curlSpecial                   // handled by name (see curlSpecialValue)
	curlRefused                   // refused, with the reason in curlRefusals
)

// curlOpts are every long option of curl 7.88 and of curl 8.x up to 8.22
// (docs/options-in-versions), classified by what the option does with its
// value. Boolean options also take a --no- prefix. An option not here is
// refused: a new option is a decision, not a silent pass.
var curlOpts = map[string]curlKind{
	// Flags.
	"alpn": curlFlag, "anyauth": curlFlag, "append": curlFlag, "basic": curlFlag, "buffer": curlFlag,
	"ca-native": curlFlag, "cert-status": curlFlag, "clobber": curlFlag, "compressed": curlFlag,
	"compressed-ssh": curlFlag, "create-dirs": curlFlag, "crlf": curlFlag, "digest": curlFlag,
	"disable": curlFlag, "disable-eprt": curlFlag, "disable-epsv": curlFlag, "disallow-username-in-url": curlFlag,
	"doh-cert-status": curlFlag, "doh-insecure": curlFlag, "dump-ca-embed": curlFlag, "eprt": curlFlag,
	"epsv": curlFlag, "fail": curlFlag, "fail-early": curlFlag, "fail-with-body": curlFlag, "false-start": curlFlag,
	"follow": curlFlag, "form-escape": curlFlag, "ftp-create-dirs": curlFlag, "ftp-pasv": curlFlag,
	"ftp-pret": curlFlag, "ftp-skip-pasv-ip": curlFlag, "ftp-ssl": curlFlag, "ftp-ssl-ccc": curlFlag,
	"ftp-ssl-control": curlFlag, "ftp-ssl-reqd": curlFlag, "get": curlFlag, "globoff": curlFlag,
	"haproxy-protocol": curlFlag, "head": curlFlag, "help": curlFlag, "http0.9": curlFlag, "http1.0": curlFlag,
	"http1.1": curlFlag, "http2": curlFlag, "http2-prior-knowledge": curlFlag, "http3": curlFlag,
	"http3-only": curlFlag, "ignore-content-length": curlFlag, "include": curlFlag, "insecure": curlFlag,
	"ipv4": curlFlag, "ipv6": curlFlag, "junk-session-cookies": curlFlag, "keepalive": curlFlag,
	"list-only": curlFlag, "location": curlFlag, "location-trusted": curlFlag, "mail-rcpt-allowfails": curlFlag,
	"manual": curlFlag, "metalink": curlFlag, "mptcp": curlFlag, "negotiate": curlFlag, "netrc": curlSpecial,
	"netrc-optional": curlSpecial, "next": curlSpecial, "npn": curlFlag, "ntlm": curlFlag, "ntlm-wb": curlFlag,
	"out-null": curlFlag, "parallel": curlFlag, "parallel-immediate": curlFlag, "path-as-is": curlFlag,
	"post301": curlFlag, "post302": curlFlag, "post303": curlFlag, "progress-bar": curlFlag,
	"progress-meter": curlFlag, "proxy-anyauth": curlFlag, "proxy-basic": curlFlag, "proxy-ca-native": curlFlag,
	"proxy-digest": curlFlag, "proxy-http2": curlFlag, "proxy-http3": curlFlag, "proxy-insecure": curlFlag,
	"proxy-negotiate": curlFlag, "proxy-ntlm": curlFlag, "proxy-ssl-allow-beast": curlFlag,
	"proxy-ssl-auto-client-cert": curlFlag, "proxy-tlsv1": curlFlag, "proxytunnel": curlFlag, "raw": curlFlag,
	"remote-header-name": curlRefused, "remote-name": curlSpecial, "remote-name-all": curlSpecial,
	"remote-time": curlFlag, "remove-on-error": curlFlag, "retry-all-errors": curlFlag,
	"retry-connrefused": curlFlag, "sasl-ir": curlFlag, "sessionid": curlFlag, "show-error": curlFlag,
	"show-headers": curlFlag, "silent": curlFlag, "skip-existing": curlFlag, "socks5-basic": curlFlag,
	"socks5-gssapi": curlFlag, "socks5-gssapi-nec": curlFlag, "ssl": curlFlag, "ssl-allow-beast": curlFlag,
	"ssl-auto-client-cert": curlFlag, "ssl-no-revoke": curlFlag, "ssl-reqd": curlFlag,
	"ssl-revoke-best-effort": curlFlag, "sslv2": curlFlag, "sslv3": curlFlag, "styled-output": curlFlag,
	"suppress-connect-headers": curlFlag, "tcp-fastopen": curlFlag, "tcp-nodelay": curlFlag,
	"test-event": curlFlag, "tftp-no-options": curlFlag, "tls-earlydata": curlFlag, "tlsv1": curlFlag,
	"tlsv1.0": curlFlag, "tlsv1.1": curlFlag, "tlsv1.2": curlFlag, "tlsv1.3": curlFlag, "tr-encoding": curlFlag,
	"trace-ids": curlFlag, "trace-time": curlFlag, "use-ascii": curlFlag, "verbose": curlFlag,
	"version": curlFlag, "xattr": curlFlag,

	// Values that name no file, host or program.
	"aws-sigv4": curlValue, "cert-type": curlValue, "ciphers": curlValue, "connect-timeout": curlValue,
	"continue-at": curlValue, "create-file-mode": curlValue, "curves": curlValue, "data-raw": curlValue,
	"delegation": curlValue, "dns-interface": curlValue, "dns-ipv4-addr": curlValue, "dns-ipv6-addr": curlValue,
	"ech": curlValue, "expect100-timeout": curlValue, "form-string": curlValue, "ftp-account": curlValue,
	"ftp-alternative-to-user": curlValue, "ftp-method": curlValue, "ftp-port": curlValue,
	"ftp-ssl-ccc-mode": curlValue, "haproxy-clientip": curlValue, "happy-eyeballs-timeout-ms": curlValue,
	"hostpubmd5": curlValue, "hostpubsha256": curlValue, "httpsig-algo": curlValue, "httpsig-headers": curlValue,
	"httpsig-keyid": curlValue, "interface": curlValue, "ip-tos": curlValue, "keepalive-cnt": curlValue,
	"keepalive-time": curlValue, "key-type": curlValue, "krb": curlValue, "krb4": curlValue,
	"limit-rate": curlValue, "local-port": curlValue, "login-options": curlValue, "mail-auth": curlValue,
	"mail-from": curlValue, "mail-rcpt": curlValue, "max-filesize": curlValue, "max-redirs": curlValue,
	"max-time": curlValue, "noproxy": curlValue, "oauth2-bearer": curlValue, "parallel-max": curlValue,
	"parallel-max-host": curlValue, "pass": curlValue, "proto": curlValue, "proxy-cert-type": curlValue,
	"proxy-ciphers": curlValue, "proxy-key-type": curlValue, "proxy-pass": curlValue,
	"proxy-service-name": curlValue, "proxy-tls13-ciphers": curlValue, "proxy-tlsauthtype": curlValue,
	"proxy-tlspassword": curlValue, "proxy-tlsuser": curlValue, "proxy-user": curlValue, "quote": curlValue,
	"range": curlValue, "rate": curlValue, "referer": curlValue, "request": curlValue,
	"request-target": curlValue, "retry": curlValue, "retry-delay": curlValue, "retry-max-time": curlValue,
	"sasl-authzid": curlValue, "service-name": curlValue, "sigalgs": curlValue,
	"socks5-gssapi-service": curlValue, "speed-limit": curlValue, "speed-time": curlValue,
	"telnet-option": curlValue, "tftp-blksize": curlValue, "tls-max": curlValue, "tls13-ciphers": curlValue,
	"tlsauthtype": curlValue, "tlspassword": curlValue, "tlsuser": curlValue, "trace-config": curlValue,
	"upload-flags": curlValue, "user": curlValue, "user-agent": curlValue, "vlan-priority": curlValue,

	// Files read, written, or both.
	"cacert": curlRead, "capath": curlRead, "crlfile": curlRead, "egd-file": curlRefused, "etag-compare": curlRead,
	"httpsig-key": curlRead, "knownhosts": curlRead, "netrc-file": curlRead, "proxy-cacert": curlRead,
	"proxy-capath": curlRead, "proxy-crlfile": curlRead, "pubkey": curlRead, "random-file": curlRead,
	"cookie-jar": curlWrite, "dump-header": curlWrite, "etag-save": curlWrite, "libcurl": curlWrite,
	"stderr": curlWrite, "trace": curlWrite, "trace-ascii": curlWrite,
	"alt-svc": curlReadWrite, "hsts": curlReadWrite, "ssl-sessions": curlReadWrite,

	// Hosts.
	"ipfs-gateway": curlURL, "preproxy": curlProxy, "proxy": curlProxy, "proxy1.0": curlProxy,
	"socks4": curlProxy, "socks4a": curlProxy, "socks5": curlProxy, "socks5-hostname": curlProxy,

	// Data that may come from a file.
	"data": curlAtFile, "data-ascii": curlAtFile, "data-binary": curlAtFile, "json": curlAtFile,
	"header": curlAtFile, "proxy-header": curlAtFile, "data-urlencode": curlEncoded,

	// Handled by name.
	"output": curlSpecial, "output-dir": curlSpecial, "upload-file": curlSpecial, "url": curlSpecial,
	"url-query": curlSpecial, "form": curlSpecial, "cookie": curlSpecial, "write-out": curlSpecial,
	"variable": curlSpecial, "cert": curlSpecial, "proxy-cert": curlSpecial, "key": curlSpecial,
	"proxy-key": curlSpecial, "engine": curlSpecial, "pinnedpubkey": curlSpecial,
	"proxy-pinnedpubkey": curlSpecial, "time-cond": curlSpecial, "proto-redir": curlSpecial,
	"proto-default": curlSpecial,

	// Refused.
	"config": curlRefused, "unix-socket": curlRefused, "abstract-unix-socket": curlRefused,
	"resolve": curlRefused, "connect-to": curlRefused, "dns-servers": curlRefused, "doh-url": curlRefused,
}

// curlRefusals say why an option is refused.
var curlRefusals = map[string]string{
	"config":               "reads its instructions from a file the gate cannot see",
	"unix-socket":          "connects to a Unix socket, not to a host",
	"abstract-unix-socket": "connects to a Unix socket, not to a host",
	"resolve":              "changes which address a host name reaches",
	"connect-to":           "changes which address a host name reaches",
	"dns-servers":          "changes which address a host name reaches",
	"doh-url":              "changes which address a host name reaches",
	"remote-header-name":   "names the file it writes after what the server sends",
	"egd-file":             "connects to a Unix socket, not to a host",
}

// curlShort maps curl's one-letter options to their long names.
var curlShort = map[byte]string{
	'a': "append", 'A': "user-agent", 'b': "cookie", 'B': "use-ascii", 'c': "cookie-jar", 'C': "continue-at",
	'd': "data", 'D': "dump-header", 'e': "referer", 'E': "cert", 'f': "fail", 'F': "form", 'g': "globoff",
	'G': "get", 'h': "help", 'H': "header", 'i': "include", 'I': "head", 'j': "junk-session-cookies",
	'J': "remote-header-name", 'k': "insecure", 'K': "config", 'l': "list-only", 'L': "location",
	'm': "max-time", 'M': "manual", 'n': "netrc", 'N': "buffer", 'o': "output", 'O': "remote-name",
	'p': "proxytunnel", 'P': "ftp-port", 'q': "disable", 'Q': "quote", 'r': "range", 'R': "remote-time",
	's': "silent", 'S': "show-error", 't': "telnet-option", 'T': "upload-file", 'u': "user", 'U': "proxy-user",
	'v': "verbose", 'V': "version", 'w': "write-out", 'x': "proxy", 'X': "request", 'y': "speed-time",
	'Y': "speed-limit", 'z': "time-cond", 'Z': "parallel", '0': "http1.0", '1': "tlsv1", '2': "sslv2",
	'3': "sslv3", '4': "ipv4", '6': "ipv6", ':': "next", '#': "progress-bar",
}

// curlTakesValue reports whether the option takes a value.
func curlTakesValue(name string) bool {
	switch curlOpts[name] {
	case curlFlag:
		return false
	case curlSpecial:
		return !curlSpecialFlags[name]
	case curlRefused:
		return name != "remote-header-name"
	}
	return true
}

// curlSpecialFlags are the options handled by name that take no value.
var curlSpecialFlags = map[string]bool{"netrc": true, "netrc-optional": true, "next": true,
	"remote-name": true, "remote-name-all": true}

// curlSafeRedirects are the protocols curl follows a redirect to by
// default; --proto-redir may not add others (file:// would read a local
// file at the server's word).
var curlSafeRedirects = map[string]bool{"http": true, "https": true, "ftp": true, "ftps": true}

// curlSchemes are the protocols whose host the gate checks; file: is a
// read (or, with -T, a write) of a local path; any other is refused.
var curlSchemes = map[string]bool{"http": true, "https": true, "ftp": true, "ftps": true, "ws": true, "wss": true}
