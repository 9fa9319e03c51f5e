package resources

import (
	"strings"
)

// riskyVars are variables whose value makes the shell, the dynamic loader or
// a program run code the command line does not show, or changes what a name,
// a path or a host means: BASH_ENV is sourced by every non-interactive bash,
// PS4 is prompt-expanded under xtrace, BASH_CMDS and PATH rename programs,
// HOME and CDPATH move ~ and cd, GIT_SSH_COMMAND and EDITOR name programs,
// https_proxy and HOSTALIASES redirect connections. Assigning one is
// refused, wherever the assignment is (prefix, export, env, declare).
var riskyVars = map[string]string{
	"BASH_ENV": "is sourced by bash", "ENV": "is sourced by sh", "PS4": "is expanded as a prompt",
	"PROMPT_COMMAND": "runs as a command", "SHELLOPTS": "changes how bash reads the line",
	"BASHOPTS": "changes how bash reads the line", "POSIXLY_CORRECT": "changes how bash reads the line",
	"PATH": "renames programs", "path": "renames programs in zsh", "BASH_CMDS": "renames programs",
	"BASH_ALIASES": "renames programs", "EXECIGNORE": "renames programs", "FPATH": "loads functions",
	"fpath": "loads functions", "BASH_LOADABLES_PATH": "loads builtins", "HOME": "moves ~",
	"PWD": "moves the working directory", "OLDPWD": "moves ~-", "CDPATH": "moves cd", "cdpath": "moves cd",
	"SHELL": "names the shell programs run", "EDITOR": "names a program", "VISUAL": "names a program",
	"PAGER": "names a program", "MANPAGER": "names a program", "LESSOPEN": "runs a program",
	"LESSCLOSE": "runs a program", "BROWSER": "names a program", "SSH_ASKPASS": "names a program",
	"SUDO_ASKPASS": "names a program", "NODE_OPTIONS": "loads code into node", "PERL5OPT": "loads code into perl",
	"PERL5LIB": "loads code into perl", "PERLLIB": "loads code into perl", "RUBYOPT": "loads code into ruby",
	"PYTHONSTARTUP": "runs code in python", "MAKEFLAGS": "changes what make runs", "MFLAGS": "changes what make runs",
	"GNUMAKEFLAGS": "changes what make runs", "MAKEFILES": "changes what make runs", "CC": "names a compiler make and go run",
	"CXX": "names a compiler", "CPP": "names a program", "FC": "names a compiler", "LD": "names a linker",
	"AR": "names a program", "AS": "names a program", "GOFLAGS": "changes what go runs", "GOTOOLCHAIN": "downloads and runs a toolchain",
	"GOENV": "changes go's settings", "GOPROXY": "names a host", "CGO_CFLAGS": "changes what the compiler loads",
	"CGO_CPPFLAGS": "changes what the compiler loads", "CGO_CXXFLAGS": "changes what the compiler loads",
	"CGO_LDFLAGS": "changes what the linker loads", "PKG_CONFIG": "names a program",
	"HOSTALIASES": "renames hosts", "LOCALDOMAIN": "renames hosts", "RES_OPTIONS": "changes name resolution",
	"XDG_CONFIG_HOME": "moves git's and other programs' configuration", "XDG_CONFIG_DIRS": "moves configuration",
	"CURL_HOME": "moves curl's configuration", "WGETRC": "moves wget's configuration",
	"SYSTEM_WGETRC": "moves wget's configuration", "NETRC": "moves curl's credentials file",
	"SSLKEYLOGFILE": "makes TLS libraries write their keys to a file", "QLOGDIR": "makes curl write files there",
	"WGET_ASKPASS": "names a program", "OPENSSL_CONF": "loads code into programs that use OpenSSL",
	"OPENSSL_ENGINES": "loads code into programs that use OpenSSL", "OPENSSL_MODULES": "loads code into programs that use OpenSSL",
	"GCONV_PATH": "loads code into programs that convert character sets", "GIT_DIR": "moves the repository",
	"GIT_WORK_TREE":        "moves the work tree",
	"SIMPLE_BACKUP_SUFFIX": "renames the backups cp, mv, ln and install write", "VERSION_CONTROL": "renames the backups cp, mv, ln and install write",
	// Programs the allowed ones start read these as code: git's editor
	// (vim runs VIMINIT and EXINIT as Ex commands, :!cmd among them), its
	// pager (less below), gpg for a signed commit, man and info for git
	// help, and the JVM, rustc and cargo that build tools start.
	"EXINIT": "runs editor commands", "VIMINIT": "runs editor commands", "GVIMINIT": "runs editor commands",
	"MYVIMRC": "loads the editor's commands", "MYGVIMRC": "loads the editor's commands", "VIM": "loads the editor's commands",
	"VIMRUNTIME": "loads the editor's commands", "EMACSLOADPATH": "loads the editor's code",
	"GNUPGHOME": "moves gpg's configuration, which names programs", "MANOPT": "gives man options that run programs",
	"MANPATH": "changes the pages man formats", "MANROFFOPT": "gives man's formatter options",
	"MANROFFSEQ": "changes what man's formatter runs", "INFOPATH": "changes the documents info reads",
	"JAVA_TOOL_OPTIONS": "loads code into the JVM", "_JAVA_OPTIONS": "loads code into the JVM",
	"JDK_JAVA_OPTIONS": "loads code into the JVM", "RUSTC": "names a compiler", "RUSTDOC": "names a program",
	"RUSTFLAGS": "gives the compiler options that run programs", "RUSTDOCFLAGS": "gives rustdoc options that run programs",
	"CARGO_HOME": "moves cargo's configuration, which names programs",
}

// riskySuffixes end the names of variables that name a program to run
// (SVN_EDITOR, DIFF_PAGER, GIT_ASKPASS, RUSTC_WRAPPER, INFO_PRINT_COMMAND):
// whatever reads one runs it.
var riskySuffixes = []string{"EDITOR", "PAGER", "ASKPASS", "BROWSER", "_COMMAND", "_CMD", "_PROGRAM", "_WRAPPER", "_SHELL"}

// safeGitVars are the GIT_* variables that name no program, file or host.
var safeGitVars = map[string]bool{
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
	"GIT_TERMINAL_PROMPT": true, "GIT_MERGE_AUTOEDIT": true, "GIT_OPTIONAL_LOCKS": true,
	"GIT_FLUSH": true, "GIT_PROGRESS_DELAY": true, "GIT_CURL_VERBOSE": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_NOGLOB_PATHSPECS": true, "GIT_ADVICE": true,
}

// riskyVar says why assigning name is refused, or "" when it is not.
func riskyVar(name string) string {
	if why := riskyVars[name]; why != "" {
		return why
	}
	switch {
	case strings.HasPrefix(name, "LD_"), strings.HasPrefix(name, "DYLD_"):
		return "loads code into every program"
	case strings.HasPrefix(name, "LESS") && name != "LESSCHARSET":
		// LESS's +!cmd runs a command; LESSKEY* bind keys; LESSEDIT,
		// LESSOPEN and LESSCLOSE name programs; LESSHISTFILE is written.
		return "changes what the pager runs or writes"
	case strings.HasPrefix(name, "CARGO_BUILD_"), strings.HasPrefix(name, "CARGO_TARGET_"):
		return "changes what cargo runs"
	case hasRiskySuffix(name):
		return "names a program"
	case strings.HasPrefix(name, "GIT_") && !safeGitVars[name]:
		return "changes what git runs, reads or reaches"
	case strings.HasPrefix(name, "BASH_FUNC_"):
		return "defines a function that renames a program"
	case strings.HasPrefix(strings.ToLower(name), "npm_config_"):
		return "changes what npm runs or reaches"
	case strings.HasSuffix(strings.ToLower(name), "_proxy") && strings.ToLower(name) != "no_proxy":
		return "sends connections to another host"
	}
	return ""
}

// checkAssignName refuses assigning a risky variable.
func (a *analyzer) checkAssignName(name string) {
	if why := riskyVar(name); why != "" {
		a.failf("refused: assigning %s (it %s) changes what the command runs in a way the gate does not model", name, why)
	}
}

// checkLocale refuses a locale whose character set may read bytes of the
// line differently (in Big5 or GBK a backslash can be half of a
// character); C, POSIX and UTF-8 locales are fine.
func (a *analyzer) checkLocale(name string, value lit, static bool) {
	if name != "LC_ALL" && name != "LC_CTYPE" && name != "LANG" {
		return
	}
	v := strings.ToLower(value.s)
	if static && (v == "" || v == "c" || v == "posix" || strings.HasSuffix(v, ".utf-8") || strings.HasSuffix(v, ".utf8")) {
		return
	}
	a.failf("refused: %s=%s may make bash read the line's bytes differently from the gate", name, shorten(value.s))
}

// hasRiskySuffix: programs read their variables in capitals; a shell's
// own lower-case build_cmd is nothing to them.
func hasRiskySuffix(name string) bool {
	for _, suf := range riskySuffixes {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}
