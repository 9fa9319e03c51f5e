package resources

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// realBash runs script with args under bash in a UTF-8 locale and returns
// what it printed; the test is skipped where bash is missing.
func realBash(t testing.TB, script string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, _ := cmd.Output() // printf's complaints go to stderr; its output is what counts
	return string(out)
}

// escapeCases are texts with escapes of every kind, and ones that are
// not escapes.
var escapeCases = []string{
	`plain`, `\x67hp_x`, `\x6`, `\x`, `\xZZ`, `\x678`, `\147hp`, `\0147hp`, `\01`, `\0`, `\08`,
	`\1`, `\18`, `\777`, `\400`, `\u0067hp`, `\u`, `\uZ`, `\u00e9`, `\u20AC`, `\U0001F600`,
	`\U67`, `\a\b\e\E\f\n\r\t\v`, `\\`, `\\x67`, `a\`, `\'`, `\"`, `\?`, `\q`, `\c`, `ab\cde`,
	`\-`, `%`, `%%`, `\%`, `tab\there`, `\x67\x68\x70\x5f`, `\0x67`, `\u12345`, `\U000000678`,
}

// Each dialect of escapes reads as real bash reads it: %b's argument,
// echo -e's arguments and printf's format.
func TestDecodeEscapesMatchesBash(t *testing.T) {
	for _, s := range escapeCases {
		checkEscapesAgainstBash(t, s)
	}
}

func checkEscapesAgainstBash(t testing.TB, s string) {
	t.Helper()
	if got, want := mustDecode(s, escapePercentB), realBash(t, `printf '%b' "$1"`, s); got != want {
		t.Errorf("%%b of %q: %q, bash prints %q", s, got, want)
	}
	if isEchoOption(s) {
		return // echo would take it for options
	}
	if got, want := mustDecode(s, escapeEcho), realBash(t, `echo -ne "$1"`, s); got != want {
		t.Errorf("echo -ne %q: %q, bash prints %q", s, got, want)
	}
	if strings.Contains(s, "%") {
		return // a conversion, not an escape: printfOutput's own test
	}
	if got, want := mustDecode(s, escapeFormat), realBash(t, `printf -- "$1"`, s); got != want {
		t.Errorf("printf %q: %q, bash prints %q", s, got, want)
	}
}

func mustDecode(s string, m escapeMode) string {
	out, _ := decodeEscapes(s, m)
	return out
}

// FuzzDecodeEscapes: no text makes the decoder fail, what it makes is
// never longer than the text as far as one-byte escapes go, and, where
// bash is installed, it prints what bash prints.
func FuzzDecodeEscapes(f *testing.F) {
	for _, s := range escapeCases {
		f.Add(s)
	}
	_, err := exec.LookPath("bash")
	haveBash := err == nil
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range []escapeMode{escapeEcho, escapePercentB, escapeFormat} {
			out, _ := decodeEscapes(s, m)
			if !strings.ContainsAny(s, "uU") && len(out) > len(s) {
				t.Fatalf("mode %d: %q made %q, longer", m, s, out)
			}
		}
		if !haveBash || strings.IndexByte(s, 0) >= 0 || !bashSafeCodePoints(s) {
			return // bash cannot be given a NUL; see bashSafeCodePoints
		}
		checkEscapesAgainstBash(t, s)
	})
}

// bashSafeCodePoints: s has no \u or \U escape past U+10FFFF or of a
// surrogate, which bash's C library writes in forms of its own (the
// scan writes them as any other; no credential is made of them).
func bashSafeCodePoints(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' || s[i+1] != 'u' && s[i+1] != 'U' {
			continue
		}
		max := 4
		if s[i+1] == 'U' {
			max = 8
		}
		v, n := hexDigits(s[i+2:], max)
		if n > 0 && (v > 0x10ffff || v >= 0xd800 && v <= 0xdfff) {
			return false
		}
	}
	return true
}

// printf's format, reused while arguments remain, with conversions of
// every kind, prints what bash's printf prints.
func TestPrintfOutputMatchesBash(t *testing.T) {
	cases := [][]string{
		{`\x67%s`, `hp_x`}, {`%s%s`, `gh`, `p_`, `x`}, {`%s-`, `a`, `b`, `c`}, {`%b`, `\x67hp`},
		{`%b|%s`, `a\cb`, `c`, `d`}, {`%.3s|%5s|%-5s|`, `abcdef`, `x`, `y`}, {`%c%c%c`, `g`, `hh`, `p`},
		{`%d %i %o %x %X %u`, `103`, `0x67`, `8`, `255`, `255`, `7`}, {`%05d|%+d|% d`, `7`, `7`, `7`},
		{`%x`, `'g`}, {`%d`, `"h`}, {`%s`}, {`%d`}, {`%*s|%-*s|`, `4`, `a`, `3`, `b`}, {`%.*s`, `2`, `abc`},
		{`no args\n`}, {`%%|%s`, `x`}, {`a\cb%s`, `c`}, {`\0147`}, {`%q`, `x`}, {`%s\n`, `x`, `y`},
		{`-v`, `name`, `%s`, `x`}, {`--`, `%s`, `x`}, {`%5.1f|%e|%g`, `3.14159`, `2`, `0.5`}, {`%k%s`, `x`},
		{`%s`, `a`, `b`}, {`%c`, ``}, {`%x`, `-1`}, {`%3c|`, `z`},
	}
	for _, c := range cases {
		got, full := printfOutput(c, 1<<20)
		script := `printf "$@"`
		if c[0] == "-v" {
			script = `printf "$@"; printf %s "$name"`
		}
		if want := realBash(t, script, c...); got != want || !full {
			t.Errorf("printf %q: %q (full %v), bash prints %q", c, got, full, want)
		}
	}
}

// printf's output is bounded: a field's padding, and the whole.
func TestPrintfOutputIsBounded(t *testing.T) {
	out, full := printfOutput([]string{`%999999999s`, `x`}, 1<<20)
	if len(out) > maxPrintfPad+1 || !full {
		t.Errorf("padding made %d bytes", len(out))
	}
	out, full = printfOutput([]string{strings.Repeat(`%64s`, 1000), `x`}, 4096)
	if len(out) > 4096 || full {
		t.Errorf("bounded to 4096: %d bytes, full %v", len(out), full)
	}
}

// echo's options are those bash's echo takes; anything else is printed.
func TestEchoOutput(t *testing.T) {
	for _, args := range [][]string{
		{`-e`, `\x67hp`}, {`-ne`, `\x67`}, {`-E`, `\x67`}, {`-neE`, `a`, `b`}, {`--`, `x`}, {`-`, `x`},
		{`-x`, `y`}, {`-e`, `a\cb`, `c`}, {`-e`, `\0147`}, {`-e`, `\147`}, {`\x67`, `-e`},
	} {
		if strings.Contains(args[0], "E") && isEchoOption(args[0]) {
			continue // bash prints the escapes as written; the scan reads them anyway
		}
		if got, want := echoOutput(args), realBash(t, `echo -ne "$@"`, args...); got != want {
			t.Errorf("echo %q: %q, bash's echo -ne prints %q", args, got, want)
		}
	}
}

// Each codec finds the encoded text among other words, wrapped or not.
func TestCodecsDecodeRuns(t *testing.T) {
	secret := "ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y"
	b64 := base64.StdEncoding.EncodeToString([]byte(secret))
	cases := []struct {
		c    textCodec
		text string
	}{
		{codecBase64, "Bearer " + b64},
		{codecBase64, b64[:20] + "\n" + b64[20:]},
		{codecBase64, base64.RawURLEncoding.EncodeToString([]byte(secret + "?>"))},
		{codecBase32, base32.StdEncoding.EncodeToString([]byte(secret))},
		{codecBase32Hex, base32.HexEncoding.EncodeToString([]byte(secret))},
		{codecHex, hex.EncodeToString([]byte(secret))},
		{codecHex, "67 68 70 5f" + hex.EncodeToString([]byte(secret[4:]))},
		{codecBase2MSB, bits(secret, false)},
		{codecBase2LSB, bits(secret, true)},
		{codecZ85, z85(secret + "xxx")},
	}
	for _, c := range cases {
		if got := c.c.decodeRuns(c.text); !strings.Contains(got, secret) {
			t.Errorf("codec %d of %q: %q", c.c, c.text, got)
		}
	}
	dump := realTool(t, secret, "xxd")
	if got := codecHex.decodeRuns(xxdDumpData(dump)); !strings.Contains(got, secret) {
		t.Errorf("xxd dump %q: %q", dump, got)
	}
}

func bits(s string, lsb bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		for j := 0; j < 8; j++ {
			bit := s[i] >> (7 - j) & 1
			if lsb {
				bit = s[i] >> j & 1
			}
			b.WriteByte('0' + bit)
		}
	}
	return b.String()
}

func z85(s string) string {
	var b strings.Builder
	for i := 0; i+4 <= len(s); i += 4 {
		v := uint32(s[i])<<24 | uint32(s[i+1])<<16 | uint32(s[i+2])<<8 | uint32(s[i+3])
		var chunk [5]byte
		for j := 4; j >= 0; j-- {
			chunk[j] = z85Alphabet[v%85]
			v /= 85
		}
		b.Write(chunk[:])
	}
	return b.String()
}

// realTool runs prog args with stdin input; skipped where prog is missing.
func realTool(t *testing.T, input, prog string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("%s is not installed", prog)
	}
	cmd := exec.Command(prog, args...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	return string(out)
}

// tr's sets and options read as GNU tr reads them.
func TestTrMatchesGNUTr(t *testing.T) {
	input := "tuc_nO3pQ6rS9tU2vW5xY8zA1bC4dE7fG0hI3jK6l  g.h.p aaa-bbb [x]\t\n"
	for _, args := range [][]string{
		{"A-Za-z", "N-ZA-Mn-za-m"}, {"a-z", "n-za-m"}, {"[a-z]", "[n-z][a-m]"}, {"-d", "."},
		{"-d", " .-"}, {"-cd", "a-z\\n"}, {"-s", "a"}, {"-ds", ".", "a"}, {"abc", "x"}, {"-t", "abc", "x"},
		{"[:lower:]", "[:upper:]"}, {"[:upper:][:lower:]", "[:lower:][:upper:]"}, {"\\t\\n", "XY"},
		{"a-c", "[x*]"}, {"a-f", "[x*2]yz"}, {"[=a=]", "A"}, {"\\141", "Z"}, {"--", "a", "b"},
		{"-C", "a-z", "_"}, {"-c", "[:alnum:]", "."},
	} {
		tr, ok := newTrProgram(args)
		if !ok {
			t.Errorf("tr %q: not read", args)
			continue
		}
		if got, want := tr.apply(input), realTool(t, input, "tr", args...); got != want {
			t.Errorf("tr %q: %q, tr prints %q", args, got, want)
		}
	}
	for _, args := range [][]string{{}, {"a"}, {"z-a", "b"}, {"-x", "a", "b"}, {"a", "b", "c"}} {
		if _, ok := newTrProgram(args); ok {
			t.Errorf("tr %q: read, want not", args)
		}
	}
}

// rev reverses each line's characters, as rev does.
func TestReverseLinesMatchesRev(t *testing.T) {
	input := "y6Xw3Vu0Ts7Rq4Po1Nm8Lk5Ji2Hg9Fe6Dc3Ba_phg\nabc\n\nx"
	if got, want := reverseLines(input), realTool(t, input, "rev"); got != want && got+"\n" != want {
		t.Errorf("rev: %q, rev prints %q", got, want)
	}
}

// Only lines naming a program the scan reads are decoded.
func TestMayDecode(t *testing.T) {
	for line, want := range map[string]bool{
		"printf '%s' x": true, `echo -e "a\tb"`: true, "echo hello": false, "base64 -d f": true,
		"/usr/bin/xxd -r -p": true, "git status": false, "cat README.md | tr a b": true, "strings x": false,
		"npm test && git rev-parse HEAD": false, "[ -f package.json ] && npm test": false, "x=1;rev f": true,
	} {
		if got := mayDecode(line); got != want {
			t.Errorf("mayDecode(%q) = %v, want %v", line, got, want)
		}
	}
}

// BenchmarkMayDecode is what an ordinary line pays for the decoding scan
// when it names nothing to decode.
func BenchmarkMayDecode(b *testing.B) {
	lines := []string{"git status", "set -e; npm test", "grep -rn TODO .", `git log --author="$(git config user.name)"`,
		"cd src && go test ./...", "sed -n '1,10p' src/a.go", "find . -name '*.go' | head"}
	for b.Loop() {
		for _, l := range lines {
			if mayDecode(l) {
				b.Fatal(l)
			}
		}
	}
}
