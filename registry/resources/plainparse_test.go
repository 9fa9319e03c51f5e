package resources

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// checkPlainParse fails when parsePlain takes src and builds anything but
// the parser's tree for it (every node, every position). It reports
// whether parsePlain took src.
func checkPlainParse(t *testing.T, src string) bool {
	t.Helper()
	fast, ok := parsePlain(src)
	if !ok {
		return false
	}
	general, err := parseBashGeneral(src)
	if err != nil {
		t.Fatalf("parsePlain took %q, which the parser refuses: %v", src, err)
	}
	if !reflect.DeepEqual(fast, general) {
		var a, b strings.Builder
		syntax.DebugPrint(&a, fast)
		syntax.DebugPrint(&b, general)
		t.Fatalf("parsePlain(%q) differs from the parser:\n%s\nparser:\n%s", src, a.String(), b.String())
	}
	return true
}

// randomPlainishLine is a line made mostly of plain words, keywords and
// declarations, with now and then a byte that makes it something else.
func randomPlainishLine(r *rand.Rand) string {
	words := []string{"git", "status", "ls", "-la", "src/a.go", "--stat", "HEAD~1", "~", "~/x", "a=b", "=x",
		"--format=%H", "x+=1", "time", "let", "declare", "local", "export", "readonly", "typeset", "nameref",
		"if", "then", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", "select",
		"function", "coproc", "{", "}", "!", "[[", "]]", "[", "]", "@test", ".", ":", "true", "*.go", "a?",
		"@(x)", "+(x)", "a,b", "x^y", "%1", "-", "--", "echo", "f()", "a[1]=x", "1", "_", "x.y:z", "HEAD^",
		`"TODO 5"`, `'step 1 done'`, `a"b"c`, `""`, `''`, `"x'y"`, `'x"y'`, `"a$b"`, `'a\b'`, `"a\b"`, `"a!b"`,
		`"é"`, `'a	b'`, "'a\tb'", `"*5.go"`, `'%s\n'`, `x=""`, `"if"`, `'time'`, `if"x"`, `"a`, `'a`, `"a"'b'`,
		`"$(id)"`, "\"`id`\"", `$'x'`, `$"x"`, `"a\nb"`, "'a\nb'", `"a b"=c`, `a"="b`}
	redirs := []string{"> f", ">f", ">> f", ">>f", "2>/dev/null", "2>&1", "< in", "<in", ">&2", "1>&2", "2>",
		">|f", "<<EOF", "<<<x", "<>f", "&>f", ">(x)", "<(x)", "10>f", "a2>f", "2> f", "> 'f'", `> "f g"`, "<&0",
		">&-", "> f>g", "2>'f'", "> \"\"", ">", ">>", "2>&", "> |", "> ;", ">\nf", ">&1>&2", "0<f", "3>>f"}
	odd := []string{"#", "!", "$", "'", `"`, "\\", "\n", ";", "&", "|", "<", ">", "(", ")", "{", "}", "[",
		"]", "\r", "\x00", "é", "\u00a0", "`", "=", "\t"}
	seps := []string{" ", " ", " ", "  ", "\t", " \t "}
	var b strings.Builder
	if r.Intn(4) == 0 {
		b.WriteString(seps[r.Intn(len(seps))])
	}
	for n := 1 + r.Intn(6); n > 0; n-- {
		w := words[r.Intn(len(words))]
		if r.Intn(3) == 0 { // a word of random plain bytes
			const plain = "abcxyzABZ019_-./,:+@%^~*?="
			b := make([]byte, 1+r.Intn(5))
			for i := range b {
				b[i] = plain[r.Intn(len(plain))]
			}
			w = string(b)
		}
		if r.Intn(8) == 0 {
			i := r.Intn(len(w) + 1)
			w = w[:i] + odd[r.Intn(len(odd))] + w[i:]
		}
		b.WriteString(w)
		if r.Intn(6) == 0 {
			b.WriteString([]string{" ", ""}[r.Intn(2)] + redirs[r.Intn(len(redirs))])
		}
		if n > 1 || r.Intn(4) == 0 {
			b.WriteString(seps[r.Intn(len(seps))])
		}
	}
	return b.String()
}

// randomPlainishList is a list of randomPlainishLine commands joined by
// the separators a plain line may hold and, now and then, by one it may
// not (a pipe, a background "&", a case terminator, a CR LF, a
// continuation, operators run together).
func randomPlainishList(r *rand.Rand) string {
	seps := []string{" && ", "&&", " || ", "||", "; ", ";", "\n", " ;\n", " &&\n  ", "||\n\n", "\n\n", " ;\t",
		"\n \n", "&&\t", " ; ", " | ", "|", " |\n ", "|\n\n"}
	odd := []string{"&", " & ", "|", " | ", ";;", ";&", ";;&", ";|", "|&", "&&&", "&&|", "||&", "\r\n", "\\\n",
		"&& ;", "; ;", "\n;", "&& &&", ";\r", "&>", "&&>", "#", " #x\n", "&|", "&!"}
	var b strings.Builder
	if r.Intn(6) == 0 {
		b.WriteString([]string{"\n", " ", "\n\t", ";", "&& "}[r.Intn(5)])
	}
	for n := 1 + r.Intn(5); n > 0; n-- {
		b.WriteString(randomPlainishLine(r))
		if n == 1 && r.Intn(3) != 0 {
			break
		}
		if r.Intn(12) == 0 {
			b.WriteString(odd[r.Intn(len(odd))])
		} else {
			b.WriteString(seps[r.Intn(len(seps))])
		}
	}
	return b.String()
}

func TestPlainParseMatchesParser(t *testing.T) {
	// Ordinary lines take the short cut (else it would be tested on
	// nothing); every line here that it takes is compared.
	for _, src := range []string{"git status", "true", ":", "ls -la", "git diff --stat HEAD~1", "echo hello",
		"cat src/a.go", " git  log\t--oneline -5 ", "git log -1 --format=%H", "make", "go test ./...",
		"npm install --registry=https://registry.npmjs.org lodash", "ls -1 src/*.go", "git show HEAD:src/a.go",
		"ls a;b", "ls\nid", "git status && ls", "make || true", "go vet ./... && go test ./... || echo failed",
		"cd src; ls -la", "ls;", "ls ;\n\n cat x\n", "\n\nls\n", "a &&\n b", "a ||\n\n\tb; c", "a&&b||c;d",
		"git status && git diff; git log -1\nls", `grep -n "TODO 5" src/f5.go`, "echo 'step 1 done' > src/out.txt",
		"ls -la src 2>/dev/null", "go test ./... 2>&1 | tail -20", `printf '%s\n' a "b 7" >> log.txt`,
		"sort f | uniq -c | head -3", "cat < in > out", `echo ""`, `echo a"b"'c'd`, "ls >&2", "a | b && c | d || e",
		"a |\n b", "echo hi>f", "echo x 2>f y", `git commit -m "fix 3: handle case 4"`,
		"ls 'a'", "ls > x", "ls | wc", `"a"=b`} {
		if !checkPlainParse(t, src) {
			t.Errorf("parsePlain does not take the ordinary line %q", src)
		}
	}
	// Lines whose tree is not one call of literal words, or that the
	// parser refuses: the short cut must leave them to it.
	for _, src := range []string{"", " ", "time npm test", "a=b ls", "local x=1", "declare -a x", "export A",
		"let x", "for", "done", "if", "{", "!", "[[", "coproc x", "function f", "select x", "ls #x", "ls $x",
		"ls a\\ b", "ls &", "f()", "ls @(x)", "ls a[1]",
		"ls {a,b}", "ls é", "ls \r", "x+=1 ls", "=x",
		"ls &", "ls & cat", "ls |& wc", "ls &&", "ls ||", "&& ls", "; ls", "ls ;; x", "ls ;& x",
		"ls ;| x", "ls &&& x", "ls ||& x", "ls &&| x", "ls && ; x", "ls; ; x", "ls\n;x", "ls && if x", "ls; then",
		"ls && time x", "ls; a=b x", "ls || ! x", "ls && {", "ls;}", "ls\r\nid", "ls &&\r\nid", "ls #x\nid",
		"ls && x=1", "ls; declare x", "ls\nlocal x", "ls && [[ x ]]", "ls &>x", "ls &&>x", "ls;#", "\n", ";",
		"ls && done", "a;\nesac", "ls |& wc", "ls | | wc", "ls |", "| ls", "ls >", "ls > ;", "2>f ls", "> f",
		"ls <<EOF\nx\nEOF", "ls <<<x", "ls <>f", "ls >|f", "ls &>f", "cat <(ls)", "ls >(x)", `echo "$x"`, `echo "a\"b"`,
		"echo \"`id`\"", `echo $'x'`, `echo "a`, `echo 'a`, "echo 'a\nb'", `x="y" ls`} {
		if checkPlainParse(t, src) {
			t.Errorf("parsePlain takes %q", src)
		}
	}
	r := rand.New(rand.NewSource(7))
	taken := 0
	const lines = 50000
	for range lines {
		if checkPlainParse(t, randomPlainishLine(r)) {
			taken++
		}
	}
	if taken < lines/10 {
		t.Fatalf("parsePlain took only %d of %d random lines: the comparison says little", taken, lines)
	}
	taken = 0
	for range lines {
		if checkPlainParse(t, randomPlainishList(r)) {
			taken++
		}
	}
	if taken < lines/20 {
		t.Fatalf("parsePlain took only %d of %d random lists: the comparison says little", taken, lines)
	}
}

// Past column 16,383 and line 262,143 the parser's positions are 0; the
// short cut's must be too, on lines as long as it takes, and a longer
// line is left to the parser.
func TestPlainParseLongLines(t *testing.T) {
	for name, src := range map[string]string{
		"columns":    strings.Repeat("git status && ", 5000) + "ls",
		"long words": "echo " + strings.Repeat("a", 20000) + " b; " + strings.Repeat("c", 17000) + "\nls -la",
		"lines":      "a\n" + strings.Repeat("\n", 262200) + "b && c\nd;e",
		"long lines": strings.Repeat(strings.Repeat("x ", 9000)+"&&\n", 40) + "y",
		"semicolons": strings.Repeat("ls -l;", 3000),
		"quotes, pipes and redirections": strings.Repeat(`grep -n "TODO 5" src/f5.go | wc -l 2>/dev/null && `+
			`echo 'x y' >> f; cat <in >&2 ""`+"\n", 800) + "true",
		"at the limit": "echo " + strings.Repeat("a", maxPlainLine-12) + " && ls",
	} {
		if len(src) > maxPlainLine {
			t.Fatalf("%s: %d bytes, over maxPlainLine", name, len(src))
		}
		if !checkPlainParse(t, src) {
			t.Errorf("%s: parsePlain does not take the line", name)
		}
	}
	if _, ok := parsePlain(strings.Repeat("a ", maxPlainLine/2) + "b"); ok {
		t.Error("parsePlain takes a line over maxPlainLine")
	}
}

func FuzzPlainParse(f *testing.F) {
	for _, s := range []string{"git status", "ls -la src", "time ls", "a=b", "echo ~/x=y", "x\ty", "@test", "a && b || c; d\ne",
		"a &&\n\nb;", "a ;; b", "a | b", "a & b", "a\r\nb",
		`grep "x y" 'z' > f 2>&1 | wc -l`, "a 2>/dev/null || b <f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) { checkPlainParse(t, src) })
}
