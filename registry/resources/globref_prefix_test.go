package resources

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// randomGlob builds a pattern from segments chosen to make literal
// prefixes meet, differ, and hide behind wildcards, braces, classes and
// escapes.
func randomGlob(r *rand.Rand) string {
	segs := []string{"a", "b", ".git", "hooks", "src", "*", "**", "a*", "?", "[ab]", "{a,b}", `x\*`, "", ".", "..", "A", "x"}
	n := 1 + r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = segs[r.IntN(len(segs))]
	}
	p := strings.Join(parts, "/")
	if r.IntN(4) == 0 {
		p += "/**"
	}
	return p
}

// TestLiteralPrefixesDifferIsSound: the prefix test only ever answers
// "disjoint" where the witnesses find no common path, and globsIntersect
// answers what the witnesses alone answer, on random pattern pairs.
func TestLiteralPrefixesDifferIsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	disjoint := 0
	for range 20000 {
		d, g := randomGlob(r), randomGlob(r)
		want := true
		if doublestar.ValidatePattern(d) && doublestar.ValidatePattern(g) {
			want = globsIntersectByWitnesses(d, g)
		}
		if got := globsIntersect(d, g); got != want {
			t.Fatalf("globsIntersect(%q, %q) = %v, the witnesses say %v", d, g, got, want)
		}
		if literalPrefixesDiffer(d, g) {
			disjoint++
		}
	}
	if disjoint < 1000 {
		t.Fatalf("the prefix test decided only %d pairs: the generator does not exercise it", disjoint)
	}
}

// TestDenyWitnessesRemembered: a remembered pattern's witnesses are the
// ones computed afresh, and appending to them never changes the cache.
func TestDenyWitnessesRemembered(t *testing.T) {
	for _, p := range append(protectedTestPatterns, "{a,b}/*.env", "x/[!a]?/**") {
		first := denyWitnesses(p)
		if !slices.Equal(first, witnesses(p)) {
			t.Fatalf("%q: %q against %q", p, first, witnesses(p))
		}
		_ = append(first, "changed")
		if again := denyWitnesses(p); !slices.Equal(again, witnesses(p)) {
			t.Fatalf("%q: the cache changed to %q", p, again)
		}
	}
}

// protectedTestPatterns are protected patterns of the kind policy.json
// holds.
var protectedTestPatterns = []string{".leasedeck/**", ".claude/settings*.json", ".codex/**", ".git/hooks/**",
	".git/config", ".github/workflows/**", "~/.claude.json", ".vscode/settings.json", "opencode.json"}

// writeTouchesReference is WriteTouches as it was before the prefix test,
// the remembered witnesses and the skipped duplicate form: every form of
// ref, every witness of both patterns. The rules added since (a write to
// a pattern's root, below an existing directory at any depth, case
// folding) are the same on both sides.
func writeTouchesReference(pattern string, ref PathRef) bool {
	ws, home := ref.folding()
	if matchDenyPathEager(pattern, ref, ws, home) || holdsPatternRoot(pattern, ref) {
		return true
	}
	for _, form := range []PathRef{ref, {Rel: ref.lexRel, Home: ref.lexHome, Abs: ref.lexAbs}} {
		if d, dir := belowPattern(pattern), belowDir(pattern, form); ref.dir && form.Abs != "" && dir != "" && matchesBelow(d, dir) {
			return true
		}
	}
	if ws || home {
		if writeTouchesReference(strings.ToLower(pattern), foldedRef(ref, ws, home)) {
			return true
		}
	}
	for _, form := range []PathRef{ref, {Rel: ref.lexRel, Home: ref.lexHome, Abs: ref.lexAbs}} {
		if form.Abs == "" {
			continue
		}
		below := GlobRef{Pattern: form.Abs + "/**", Abs: escapeGlob(form.Abs) + "/**"}
		if form.Rel != "" && form.Rel != "." {
			below.Rel = escapeGlob(form.Rel) + "/**"
		}
		if h := strings.TrimPrefix(strings.TrimPrefix(form.Home, "~"), "/"); form.Home != "" && h != "" {
			below.Home = escapeGlob(h) + "/**"
		}
		intersect := func(a, b string) bool {
			if !doublestar.ValidatePattern(a) || !doublestar.ValidatePattern(b) {
				return true
			}
			for _, s := range witnesses(a) {
				if m, _ := doublestar.Match(b, s); m {
					return true
				}
			}
			for _, s := range witnesses(b) {
				if m, _ := doublestar.Match(a, s); m {
					return true
				}
			}
			return false
		}
		if matchDenyPattern(pattern, below, intersect) {
			return true
		}
	}
	return false
}

// TestWriteTouchesMatchesReference: on random paths (through a symbolic
// link, into the home directory, above the workspace) and random
// patterns, WriteTouches answers what the reference answers.
func TestWriteTouchesMatchesReference(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.Symlink(".git", filepath.Join(ws, "g"))
	r := rand.New(rand.NewPCG(3, 4))
	segs := []string{".git", "hooks", "src", "g", "a", "..", ".", "x*", ".claude", "settings.json", "~", "[x]", ""}
	patterns := append(slices.Clone(protectedTestPatterns), "**", "src/**", "~/**", "/**", "g/**", "[.]git/**",
		"~", "~/.ssh/**", "~/.claude/settings*.json", "/tmp/**", "*", "src", ".git")
	for range 3000 {
		parts := make([]string, 1+r.IntN(4))
		for i := range parts {
			parts[i] = segs[r.IntN(len(segs))]
		}
		p := strings.Join(parts, "/")
		ref, err := ResolvePath(ws, p)
		if err != nil {
			continue
		}
		for range 3 {
			pat := patterns[r.IntN(len(patterns))]
			if r.IntN(2) == 0 {
				pat = randomGlob(r)
			}
			if got, want := WriteTouches(pat, ref), writeTouchesReference(pat, ref); got != want {
				t.Fatalf("WriteTouches(%q, %q) = %v, the reference says %v", pat, p, got, want)
			}
		}
	}
}
