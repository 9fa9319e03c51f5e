package workspace

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ProtectedDirs are the directories no agent may touch whatever
// policy.json says: leasedeck's per-user state (key, token, handshake
// secret, journal head, checkpoint key, socket) and the config directory
// where tokens used to live — each as the current environment spells it
// ($XDG_STATE_HOME, $XDG_CONFIG_HOME) and at its default place under the
// home directory. Absolute and clean; symlinks in them are not resolved
// (the gate resolves the paths it compares, in both forms).
func ProtectedDirs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		for _, form := range []string{d, resolved(d)} {
			if form != "" && !seen[form] {
				seen[form] = true
				out = append(out, form)
			}
		}
	}
	if s, err := StateHome(); err == nil {
		add(s)
	}
	if c, err := ConfigDir(); err == nil {
		add(c)
	}
	add(ShortSocketDir())
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		add(filepath.Join(home, ".local", "state", "leasedeck"))
		add(filepath.Join(home, ".config", "leasedeck"))
	}
	sort.Strings(out)
	return out
}

// resolved is d with its symbolic links resolved, or "" when it does not
// exist or has none.
func resolved(d string) string {
	r, err := filepath.EvalSymlinks(d)
	if err != nil || r == d {
		return ""
	}
	return r
}

// ImplicitDenyPaths are ProtectedDirs as deny globs the manifest schema
// accepts: home-relative ("~/.local/state/leasedeck/**"). The gate
// matches a home-relative deny against every spelling of a path inside
// the home directory (~/…, $HOME/… once expanded, absolute, through
// symlinks), so these cover the protected directories that lie in the
// home directory. One outside it cannot be written as a manifest deny (the
// schema refuses absolute globs); the gate refuses it through
// registry.CallRules.ProtectedDirs, which holds ProtectedDirs.
func ImplicitDenyPaths() []string {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return nil
	}
	homes := []string{filepath.Clean(home)}
	if r := resolved(homes[0]); r != "" {
		homes = append(homes, r)
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range ProtectedDirs() {
		for _, h := range homes {
			rel, err := filepath.Rel(h, d)
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			g := "~/" + filepath.ToSlash(rel) + "/**"
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// withImplicitDenies adds ImplicitDenyPaths to a root manifest's
// deny.paths (a parsed policy.json "root"), keeping what is there.
func withImplicitDenies(root any) {
	m, ok := root.(map[string]any)
	if !ok {
		return
	}
	deny, ok := m["deny"].(map[string]any)
	if !ok {
		if _, present := m["deny"]; present {
			return // not an object: the schema check names it
		}
		deny = map[string]any{}
		m["deny"] = deny
	}
	paths, ok := deny["paths"].([]any)
	if !ok {
		if _, present := deny["paths"]; present {
			return
		}
	}
	have := map[string]bool{}
	for _, p := range paths {
		if s, ok := p.(string); ok {
			have[s] = true
		}
	}
	for _, g := range ImplicitDenyPaths() {
		if !have[g] {
			paths = append(paths, g)
		}
	}
	deny["paths"] = paths
}
