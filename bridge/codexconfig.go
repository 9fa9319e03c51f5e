package bridge

import (
	"errors"
	"fmt"
	"strings"
)

// ---- Codex config.toml ----

// CodexConfigOptions choose what CodexConfig ensures in config.toml.
type CodexConfigOptions struct {
	// TrustProject, when set, is an absolute project path to mark
	// trust_level = "trusted" (project .codex/hooks.json loads only then).
	TrustProject string
	// EnableHooks writes [features] hooks = true (needed before Codex 0.124).
	EnableHooks bool
}

// CodexConfig ensures the trust and feature settings Codex needs for hooks
// in a config.toml. It understands just enough TOML to find a table and a
// key in it: it never rewrites a line, only inserts a key under an existing
// table header or appends a new table, and leaves a key that is present
// alone whatever its value (a user's explicit choice; a note says so).
// Hook trust itself cannot be written: it is recorded against a hash only
// Codex computes (see the notes of Install).
func CodexConfig(existing []byte, opts CodexConfigOptions) (InstallResult, error) {
	text := string(existing)
	res := InstallResult{}
	ensure := func(table []string, key, value string) error {
		lines := strings.Split(text, "\n")
		headerAt := -1
		cur := []string(nil) // current table path; nil = root
		for i, l := range lines {
			t := strings.TrimSpace(stripTOMLComment(l))
			if strings.HasPrefix(t, "[") {
				path, arr, err := parseTOMLHeader(t)
				if err != nil {
					// Not a header after all (a line of a multi-line array
					// such as "  [1, 2],"): not ours to judge.
					continue
				}
				cur = path
				if !arr && equalPath(path, table) {
					headerAt = i
				}
				continue
			}
			k, v, ok := tomlKeyValue(t)
			if !ok {
				continue
			}
			full := append(append([]string(nil), cur...), k...)
			if equalPath(full, append(append([]string(nil), table...), key)) {
				if strings.TrimSpace(v) != value {
					res.Notes = append(res.Notes, fmt.Sprintf("config.toml already sets %s.%s = %s; left as it is", strings.Join(table, "."), key, strings.TrimSpace(v)))
				}
				return nil
			}
		}
		line := key + " = " + value
		if headerAt >= 0 {
			lines = append(lines[:headerAt+1], append([]string{line}, lines[headerAt+1:]...)...)
			text = strings.Join(lines, "\n")
		} else {
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			if text != "" {
				text += "\n"
			}
			text += "[" + tomlHeader(table) + "]\n" + line + "\n"
		}
		res.Added = append(res.Added, strings.Join(table, ".")+"."+key)
		return nil
	}
	if opts.EnableHooks {
		if err := ensure([]string{"features"}, "hooks", "true"); err != nil {
			return InstallResult{}, err
		}
	}
	if opts.TrustProject != "" {
		if err := ensure([]string{"projects", opts.TrustProject}, "trust_level", `"trusted"`); err != nil {
			return InstallResult{}, err
		}
	}
	res.Changed = len(res.Added) > 0
	res.Bytes = []byte(text)
	return res, nil
}

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// stripTOMLComment cuts a # comment that is outside quotes.
func stripTOMLComment(l string) string {
	var q byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case q != 0:
			if c == '\\' && q == '"' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '#':
			return l[:i]
		}
	}
	return l
}

// parseTOMLHeader reads "[a.b."c d"]" or "[[a.b]]" into its key path.
func parseTOMLHeader(t string) (path []string, array bool, err error) {
	inner := strings.TrimPrefix(t, "[")
	if strings.HasPrefix(inner, "[") {
		array = true
		inner = strings.TrimPrefix(inner, "[")
		if !strings.HasSuffix(inner, "]]") {
			return nil, false, fmt.Errorf("unterminated table header %q", t)
		}
		inner = strings.TrimSuffix(inner, "]]")
	} else {
		if !strings.HasSuffix(inner, "]") {
			return nil, false, fmt.Errorf("unterminated table header %q", t)
		}
		inner = strings.TrimSuffix(inner, "]")
	}
	path, rest, err := parseTOMLKey(inner)
	if err != nil {
		return nil, false, err
	}
	if strings.TrimSpace(rest) != "" {
		return nil, false, fmt.Errorf("bad table header %q", t)
	}
	return path, array, nil
}

// tomlKeyValue splits "a.b = v" into its key path and value text.
func tomlKeyValue(t string) ([]string, string, bool) {
	if t == "" {
		return nil, "", false
	}
	path, rest, err := parseTOMLKey(t)
	if err != nil || len(path) == 0 {
		return nil, "", false
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "=") {
		return nil, "", false
	}
	return path, strings.TrimSpace(rest[1:]), true
}

// parseTOMLKey reads a dotted key (bare, "basic" or 'literal' parts) and
// returns the text after it.
func parseTOMLKey(s string) ([]string, string, error) {
	var path []string
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	for {
		skip()
		if i >= len(s) {
			return nil, "", errors.New("empty key")
		}
		switch s[i] {
		case '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, "", errors.New("unterminated quoted key")
			}
			path = append(path, b.String())
			i = j + 1
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "", errors.New("unterminated quoted key")
			}
			path = append(path, s[i+1:i+1+j])
			i = i + 2 + j
		default:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '-' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j == i {
				return nil, "", fmt.Errorf("bad key at %q", s[i:])
			}
			path = append(path, s[i:j])
			i = j
		}
		skip()
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return path, s[i:], nil
	}
}

func tomlHeader(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		bare := p != ""
		for _, c := range p {
			if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				bare = false
			}
		}
		if bare {
			parts[i] = p
		} else {
			parts[i] = `"` + strings.ReplaceAll(strings.ReplaceAll(p, `\`, `\\`), `"`, `\"`) + `"`
		}
	}
	return strings.Join(parts, ".")
}
