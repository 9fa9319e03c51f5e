package resources

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// The analysis takes short cuts for the common case; each is checked here
// against the general code it stands in for, on random input.

// randomShellText is text from an alphabet heavy in what the short cuts
// look at: quotes, backslashes, newlines, expansions, keywords, control
// and multi-byte characters.
func randomShellText(r *rand.Rand, n int) string {
	pieces := []string{"a", "b", "s", "u", "w", "f", "x", "1", " ", " ", "\t", "\n", "\\", "\\\n", "'", `"`,
		"$", "$x", "${y}", "$(id)", "`id`", "*", "?", "[", "]", "{", "}", ",", "..", "~", "-", "=", "/", "#",
		"(", ")", ";", "&&", "|", "<", ">", "for", "while", "until", "select", "function", "status", "\x00",
		"\r", "\x7f", "\x1b", "é", "\u00a0", "\u200b", "\u2028", "\ufeff", "\xff", "\xc3", "日本"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// checkBytesReference is checkBytes as it was before its table: every
// byte tested in turn.
func checkBytesReference(src string) error {
	if err := checkCommentContinuation(src); err != nil {
		return err
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return fmt.Errorf("refused: the command contains the control character %q at byte %d, which the shell and the gate's parser may read differently", c, i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("refused: the command is not valid UTF-8 at byte %d, which the shell and the gate's parser may read differently", i)
		}
		if invisibleRune(r) {
			return fmt.Errorf("refused: the command contains the invisible or space-like character U+%04X at byte %d, which the shell and the gate's parser may read differently", r, i)
		}
		i += size
	}
	return nil
}

// mayHoldLoopOrFunctionReference is the plain definition: a keyword's
// text, a ")" or a backslash-newline anywhere.
func mayHoldLoopOrFunctionReference(src string) bool {
	if strings.Contains(src, ")") || strings.Contains(src, "\\\n") {
		return true
	}
	for _, k := range loopOrFunctionText {
		if strings.Contains(src, k) {
			return true
		}
	}
	return false
}

func TestLexChecksMatchReference(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for i := 0; i < 50000; i++ {
		src := randomShellText(r, 1+r.Intn(40))
		if i%2 == 0 { // most lines are plain: make half of them so
			src = strings.Map(func(c rune) rune {
				if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
					return 'q'
				}
				return c
			}, src)
		}
		got, want := fmt.Sprint(checkBytes(src)), fmt.Sprint(checkBytesReference(src))
		if got != want {
			t.Fatalf("checkBytes(%q) = %s, reference %s", src, got, want)
		}
		if g, w := mayHoldLoopOrFunction(src), mayHoldLoopOrFunctionReference(src); g != w {
			t.Fatalf("mayHoldLoopOrFunction(%q) = %v, reference %v", src, g, w)
		}
	}
}

// TestStaticWordShortCutMatchesParts: the one-literal short cut of
// staticWord gives what the part-by-part decoding gives, for every word
// of random lines that parse.
func TestStaticWordShortCutMatchesParts(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	words := 0
	for i := 0; i < 20000; i++ {
		src := randomShellText(r, 1+r.Intn(30))
		if r.Intn(4) == 0 {
			src = strings.Repeat("x", 250+r.Intn(12)) + src // past the shared bits
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			w, ok := n.(*syntax.Word)
			if !ok {
				return true
			}
			words++
			got, gotOK := staticWord(w)
			want, wantOK := staticParts(w)
			if gotOK != wantOK || got.s != want.s || !reflect.DeepEqual(append([]bool{}, got.quoted...), append([]bool{}, want.quoted...)) {
				t.Fatalf("staticWord of %q in %q: %q %v %v, parts %q %v %v", wordText(w), src, got.s, got.quoted, gotOK, want.s, want.quoted, wantOK)
			}
			return true
		})
	}
	if words < 10000 {
		t.Fatalf("only %d words checked", words)
	}
}

// TestPrintable8Exact: the eight-byte test says true exactly when every
// byte is printable ASCII, for random words and for every byte value in
// every position.
func TestPrintable8Exact(t *testing.T) {
	want := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] > 0x7e {
				return false
			}
		}
		return true
	}
	r := rand.New(rand.NewSource(14))
	for i := 0; i < 200000; i++ {
		b := make([]byte, 8)
		for j := range b {
			b[j] = byte(0x20 + r.Intn(0x5f))
			if r.Intn(6) == 0 {
				b[j] = byte(r.Intn(256))
			}
		}
		if got := printable8(string(b)); got != want(string(b)) {
			t.Fatalf("printable8(%q) = %v", b, got)
		}
	}
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			if got := printable8(string(b)); got != want(string(b)) {
				t.Fatalf("printable8(%q) = %v", b, got)
			}
		}
	}
}

// TestArgShortCutsMatchGeneral: plainArg, the short cut for a plain word
// in the starting directory, gives the analysis what the general
// argument code gives, for random lines of programs that read, write and
// only name their operands, in and out of the starting directory.
func TestArgShortCutsMatchGeneral(t *testing.T) {
	base := t.TempDir()
	for _, f := range []string{"a.go", "src/a.go", "src/b.go", ".env", "x-y"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	progs := []string{"echo", "cat", "ls", "rm", "cp", "mv", "head -n 3", "sed -n p", "grep -n x", "touch", "wc -l",
		"diff", "git log --", "git checkout --", "sort -o", "tee", "printf %s", "test -f", "find", "xargs cat", "nl"}
	words := []string{"a.go", "src/a.go", "/etc/passwd", "/proc/self/cwd/.env", "/proc/self/cwd", "/proc/self/fd/3",
		"/proc/1/environ", "/dev/fd/3", "/dev/null", "/dev/stdin", "-", "-n", "--x=y", "--x=/proc/self/cwd/.env", "~/x", "~",
		"'q x'", `"d"`, `a\ b`, "*.go", "src/*", "{a,b}.go", "$HOME/x", "$PWD/y", "a=b", "x-y", "é", ".env", "../up",
		"./dot", "//double", "/proc/x", "src", "{}", "~+/a.go", "'~'/x"}
	prefixes := []string{"", "", "", "cd src && ", "cd src; ", "cd $D; ", "find . -exec ", "git -C src log -- ", "xargs -I a.go ",
		"find src -exec a.go -- "}
	r := rand.New(rand.NewSource(15))
	differ := 0
	for i := 0; i < 6000; i++ {
		var b strings.Builder
		b.WriteString(prefixes[r.Intn(len(prefixes))])
		b.WriteString(progs[r.Intn(len(progs))])
		for n := 1 + r.Intn(4); n > 0; n-- {
			b.WriteString(" " + words[r.Intn(len(words))])
		}
		if strings.HasPrefix(b.String(), "find ") {
			b.WriteString(` \;`)
		}
		line := b.String()
		argShortCuts = true
		got, gotErr := analyzeShell(line, base)
		argShortCuts = false
		want, wantErr := analyzeShell(line, base)
		argShortCuts = true
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: with the short cut %+v %v, without %+v %v", line, got, gotErr, want, wantErr)
		}
		if gotErr == nil {
			differ++
		}
	}
	if differ < 2000 {
		t.Fatalf("only %d of the lines were analysed without an error: the test shows little", differ)
	}
}
