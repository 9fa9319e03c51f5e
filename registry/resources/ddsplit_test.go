package resources

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDdAndSplitFiles(t *testing.T) {
	for _, c := range []struct {
		line                string
		reads, writes, pats []string
		refused             bool
	}{
		{line: "dd if=a of=b bs=1M count=2 status=none", reads: []string{"a"}, writes: []string{"b"}},
		{line: `dd 'if'=a "of=b c"`, reads: []string{"a"}, writes: []string{"b c"}},
		{line: "dd of=b < a", reads: []string{"a"}, writes: []string{"b"}},
		{line: "dd if=a", reads: []string{"a"}},
		{line: "dd foo=x", refused: true},
		{line: "dd if=$f", refused: true},
		{line: "dd of=*.txt", refused: true},
		{line: "dd of={a,b}", refused: true},
		{line: "split -l 1 in out", reads: []string{"in"}, pats: []string{"out*"}},
		{line: "split in", reads: []string{"in"}, pats: []string{"x*"}},
		{line: "split -d -a 3 --additional-suffix=.part in sub/p", reads: []string{"in"}, pats: []string{"sub/p*.part"}},
		{line: "split -1000 - out", pats: []string{"out*"}},
		{line: "split --filter='cat > $FILE' in", refused: true},
		{line: "split --additional-suffix=/x in", refused: true},
		{line: "split in out extra", refused: true},
		{line: "split --bogus in", refused: true},
		{line: "split in out*", refused: true},
	} {
		use, err := ShellAt(c.line, "")
		if c.refused {
			if err == nil {
				t.Errorf("%q: allowed (%+v), want refused", c.line, use)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		reads := append(append([]string{}, use.Reads...), use.ReadOperands...)
		writes := append(append([]string{}, use.Writes...), use.WriteOperands...)
		if !slices.Equal(reads, c.reads) || !slices.Equal(writes, c.writes) || !slices.Equal(use.WritePatterns, c.pats) {
			t.Errorf("%q: reads %q writes %q patterns %q, want %q %q %q", c.line, reads, writes, use.WritePatterns, c.reads, c.writes, c.pats)
		}
	}
}

// split's outputs are matched against deny and protected patterns for
// every name the suffix can complete: -a 1 with a prefix ".en" creates
// ".env". An existing file the pattern matches (a planted link) is a write
// of its own, resolved.
func TestSplitPrefixNamesEveryOutput(t *testing.T) {
	f := newFixture(t)
	if err := os.Symlink(filepath.Join(f.home, ".bashrc"), filepath.Join(f.ws, "outab")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line, pattern string
		want          bool
	}{
		{"split -a 1 a.txt .en", ".env", true},
		{"split a.txt .e", ".env*", true},
		{"split a.txt sub/p", ".env", false},
		{"split a.txt .git/hooks/pre-", ".git/hooks/**", true},
		{"split -a 1 a.txt .mcp.jso", ".mcp.json", true},
		{"split --additional-suffix=.json a.txt .claude/settings", ".claude/settings*.json", true},
		{"split a.txt sub/settings", ".claude/settings*.json", false},
		{"split a.txt ~/.ss", "~/.ssh/**", true},
		{"split a.txt out", "~/.bashrc", true}, // through the planted outab
	} {
		use, err := FromToolCall(f.ws, ToolBash, map[string]any{"command": c.line})
		if err != nil {
			t.Fatalf("%q: %v", c.line, err)
		}
		got := false
		for _, w := range use.Writes {
			got = got || WriteTouches(c.pattern, w)
		}
		if got != c.want {
			t.Errorf("%q against %s: %v, want %v (writes %+v)", c.line, c.pattern, got, c.want, use.Writes)
		}
	}
	// A protected directory the suffix could complete is reached.
	use, _ := FromToolCall(f.ws, ToolBash, map[string]any{"command": "split a.txt " + f.root + "/sta"})
	if len(use.Writes) != 1 || !use.Writes[0].Under(f.root+"/state") {
		t.Errorf("the prefix %s/sta does not reach %s/state: %+v", f.root, f.root, use.Writes)
	}
}
