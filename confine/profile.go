package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Profile is what one client needs besides the lease: its own state
// (read-write), the hook configuration that governs it (readable, never
// writable), the model API hosts the proxy lets it reach, and environment
// settings that keep its temporary files in the run's private directory.
// Measured per client under Landlock; README lists them.
type Profile struct {
	Client     string
	State      []string          // "~/…" directories, read-write (created when missing)
	StateFiles []string          // "~/…" files, read-write
	Caches     []string          // "~/…" directories, read-only (a writable cache would outlive the run)
	HookConfig []string          // "~/…" or workspace-relative, never writable
	APIHosts   []string          // host entries added to allow.hosts
	TempEnv    []string          // variables set to the private temporary directory
	Env        map[string]string // fixed variables
	Note       string            // said on run's first line
}

// Profiles by client name (the manifest's file name under agents/).
var profiles = map[string]Profile{
	"claude-code": {
		State: []string{"~/.claude"}, StateFiles: []string{"~/.claude.json"},
		HookConfig: []string{".claude", "~/.claude/settings.json", "~/.claude/settings.local.json"},
		APIHosts:   []string{"api.anthropic.com", "statsig.anthropic.com"},
		TempEnv:    []string{"CLAUDE_CODE_TMPDIR"},
	},
	"codex-cli": {
		State: []string{"~/.codex"}, Caches: []string{"~/.npm"},
		HookConfig: []string{".codex", "~/.codex/config.toml", "~/.codex/hooks.json"},
		APIHosts:   []string{"api.openai.com", "chatgpt.com"},
		Note:       "Codex's own sandbox cannot start inside Landlock: run it with -s danger-full-access",
	},
	"gemini-code-assist": {
		State: []string{"~/.gemini"}, Caches: []string{"~/.npm"},
		HookConfig: []string{".gemini", "~/.gemini/settings.json"},
		APIHosts:   []string{"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"},
	},
	"github-copilot": {
		State: []string{"~/.copilot"}, Caches: []string{"~/.npm"},
		HookConfig: []string{".github/hooks", ".vscode/settings.json", "~/.copilot/config.json"},
		APIHosts:   []string{"api.githubcopilot.com", "api.github.com"},
	},
}

// ProfileFor answers the client's profile; an unknown client gets none of
// its own state (only the lease and the system).
func ProfileFor(client string) Profile {
	p := profiles[client]
	p.Client = client
	return p
}

// Inputs are the facts of one run that, with the lease and the profile,
// decide the confinement.
type Inputs struct {
	Workspace   string   // the workspace root
	Home        string   // the user's home
	TempDir     string   // the run's private temporary directory (read-write)
	Executables []string // resolved programs the tree must run (the command, leasedeck for hooks)
	Protect     []string // leasedeck's own files: never writable
	// ProtectedWrites are the policy's protected-write globs and the
	// registry's implicit ones (see protectedGlobPaths).
	ProtectedWrites []string
	Hide            []string // leasedeck's secrets and state: never readable
	WritePaths      []string // the lease's allow.write_paths
	ReadPaths       []string // the lease's allow.read_paths
	DenyPaths       []string // the lease's deny.paths
	Namespace       bool
}

// credentialDirs are never readable, whatever the lease says.
var credentialDirs = []string{"~/.ssh", "~/.aws", "~/.gnupg"}

// userConfig is the user's configuration every tool may read: git dies
// when it cannot read its global configuration.
var userConfig = []string{"~/.gitconfig", "~/.config/git"}

// toolchains are per-user installs of interpreters and tools (pyenv and
// nvm shims, cargo, go), readable and executable, never writable.
var toolchains = []string{"~/.local/bin", "~/.pyenv", "~/.nvm", "~/.volta", "~/.cargo/bin", "~/.rustup", "~/go/bin", "~/.bun", "~/.deno"}

// gitProtected are never writable: a hook or a config entry there runs
// code outside the confinement the next time the human runs git.
var gitProtected = []string{".git/hooks", ".git/config"}

// maxDenyWalk bounds the walk that finds the existing matches of a deny
// glob with wildcards in its directories (such as **/*.pem).
const maxDenyWalk = 50000

// SpecFor assembles the spec: the lease's hierarchies, the system, the
// client's profile, and the carve-outs.
func SpecFor(in Inputs, prof Profile) (Spec, error) {
	exp := func(p string) string { return expand(p, in.Workspace, in.Home) }
	spec := Spec{Namespace: in.Namespace, Placeholders: true}
	spec.Rules = append(spec.Rules, systemRules()...)
	for _, p := range in.ReadPaths {
		spec.Rules = append(spec.Rules, Rule{Path: GlobBase(p, in.Workspace, in.Home), Access: Read})
	}
	for _, p := range in.WritePaths {
		spec.Rules = append(spec.Rules, Rule{Path: GlobBase(p, in.Workspace, in.Home), Access: Read | Write})
	}
	var own []string // the client's own state: the lease's deny does not hide it from the client
	for _, d := range prof.State {
		d = exp(d)
		if err := os.MkdirAll(d, 0o700); err != nil {
			return Spec{}, fmt.Errorf("client state %s: %w", d, err)
		}
		spec.Rules = append(spec.Rules, Rule{Path: d, Access: Read | Write})
		own = append(own, d)
	}
	for _, f := range prof.StateFiles {
		// A rule needs the file to exist; the client writes it in place
		// (it cannot create siblings in the home directory).
		if err := createIfMissing(exp(f)); err != nil {
			return Spec{}, fmt.Errorf("client state %s: %w", exp(f), err)
		}
		spec.Rules = append(spec.Rules, Rule{Path: exp(f), Access: Read | Write})
		own = append(own, exp(f))
	}
	for _, f := range userConfig {
		spec.Rules = append(spec.Rules, Rule{Path: exp(f), Access: Read})
	}
	for _, d := range toolchains {
		spec.Rules = append(spec.Rules, Rule{Path: exp(d), Access: Read | Exec})
	}
	for _, d := range prof.Caches {
		spec.Rules = append(spec.Rules, Rule{Path: exp(d), Access: Read})
	}
	if in.TempDir != "" {
		spec.Rules = append(spec.Rules, Rule{Path: in.TempDir, Access: Read | Write})
	}
	for _, x := range in.Executables {
		spec.Rules = append(spec.Rules, Rule{Path: x, Access: Read | Exec})
	}
	for _, h := range prof.HookConfig {
		spec.Protect = append(spec.Protect, exp(h))
		own = append(own, exp(h))
	}
	for _, g := range gitProtected {
		spec.Protect = append(spec.Protect, exp(g))
	}
	protected, perr := protectedGlobPaths(in.ProtectedWrites, in.Workspace, in.Home, stateOf(prof, in.Workspace, in.Home))
	if perr != nil {
		return Spec{}, perr
	}
	spec.Protect = append(spec.Protect, protected...)
	spec.Protect = append(spec.Protect, in.Protect...)
	// leasedeck's own files stay readable to the tree (its hooks read the
	// policy and the manifests and reach the socket there); the secrets
	// among them are hidden one by one.
	own = append(own, in.Protect...)
	spec.Hide = append(spec.Hide, in.Hide...)
	for _, c := range credentialDirs {
		spec.Hide = append(spec.Hide, exp(c))
	}
	denied, err := denyMatches(in.DenyPaths, in.Workspace, in.Home)
	if err != nil {
		return Spec{}, err
	}
	for _, d := range denied {
		if !ownedBy(d, own) {
			spec.Hide = append(spec.Hide, d)
		}
	}
	return spec, nil
}

// createIfMissing creates an empty state file ("{}" for JSON), 0600.
func createIfMissing(p string) error {
	content := ""
	if strings.HasSuffix(p, ".json") {
		content = "{}\n"
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return errors.Join(werr, cerr)
	}
	return nil
}

// ownedBy: d is (inside) one of the client's own paths, which the client
// itself must reach; the hook still denies the agent's tool calls there.
func ownedBy(d string, own []string) bool {
	for _, o := range own {
		if within(d, o) {
			return true
		}
	}
	return false
}

// systemRules are the system's read-only and executable hierarchies and
// the device nodes a shell needs. /etc is listed file by file, so that
// an agent running as root cannot read /etc/shadow.
func systemRules() []Rule {
	var out []Rule
	for _, d := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		out = append(out, Rule{Path: d, Access: Read | Exec})
	}
	for _, f := range etcEntries {
		out = append(out, Rule{Path: "/etc/" + f, Access: Read})
	}
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"} {
		out = append(out, Rule{Path: d, Access: Dev})
	}
	return out
}

// etcEntries are what the measured clients, shells, git and the language
// runtimes read under /etc.
var etcEntries = []string{"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf",
	"resolv.conf", "hosts", "host.conf", "ssl", "ca-certificates", "ca-certificates.conf", "pki", "gitconfig",
	"localtime", "timezone", "machine-id", "bash.bashrc", "profile", "profile.d", "zsh", "locale.alias",
	"locale.gen", "alternatives", "terminfo", "inputrc", "mime.types", "os-release", "lsb-release",
	"debian_version", "environment", "python3", "shells", "services", "protocols", "magic", "magic.mime"}

// GlobBase is the directory hierarchy a path glob lies in, made absolute:
// its segments up to the first one with a wildcard ("src/**" → <ws>/src,
// "**" → <ws>, "~/notes/*.md" → <home>/notes). A glob without wildcards
// is the path itself.
func GlobBase(pattern, ws, home string) string {
	base, _ := splitGlob(pattern)
	return expand(base, ws, home)
}

// splitGlob splits a glob into its literal directory prefix and the rest
// ("" when the glob has no wildcard).
func splitGlob(pattern string) (string, string) {
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "*?[{") {
			base := strings.Join(segs[:i], "/")
			if base == "" && strings.HasPrefix(pattern, "/") {
				base = "/"
			}
			return base, strings.Join(segs[i:], "/")
		}
	}
	return pattern, ""
}

// expand makes a workspace-relative or ~-relative path absolute.
func expand(p, ws, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case p == "" || p == ".":
		return ws
	}
	return filepath.Join(ws, p)
}

// denyMatches turns deny.paths into paths: a glob without wildcards is
// its path, "dir/**" (or "dir/*") is dir, and any other glob is the
// existing files it matches now (the hook still refuses later ones).
func denyMatches(patterns []string, ws, home string) ([]string, error) {
	var out []string
	for _, pat := range patterns {
		base, rest := splitGlob(pat)
		abs := expand(base, ws, home)
		if rest == "" || rest == "**" || rest == "*" || rest == "**/*" {
			out = append(out, abs)
			continue
		}
		full := filepath.ToSlash(filepath.Join(abs, rest))
		if !strings.Contains(rest, "**") {
			// Without "**" only the named levels are read.
			m, err := doublestar.FilepathGlob(filepath.FromSlash(full))
			if err != nil {
				return nil, fmt.Errorf("deny path %q: %w", pat, err)
			}
			out = append(out, m...)
			continue
		}
		visited := 0
		err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			visited++
			if visited > maxDenyWalk {
				return fmt.Errorf("deny path %q: more than %d entries under %s to search; give it a directory prefix", pat, maxDenyWalk, abs)
			}
			if ok, _ := doublestar.Match(full, filepath.ToSlash(p)); ok {
				out = append(out, p)
				if d.IsDir() {
					return filepath.SkipDir
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
