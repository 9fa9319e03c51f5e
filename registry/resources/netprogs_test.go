package resources

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpOptions runs prog's help and returns the long options it lists,
// each with the short letter(s) given beside it ("" when none).
func helpOptions(t *testing.T, prog string, args ...string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("%s is not installed", prog)
	}
	out, err := exec.Command(prog, args...).Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	re := regexp.MustCompile(`^\s*(?:-(\S{1,2}),\s+)?--([A-Za-z0-9][A-Za-z0-9._-]*)`)
	opts := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			opts[m[2]] = m[1]
		}
	}
	if len(opts) < 50 {
		t.Fatalf("%s %v lists only %d options: the help format changed", prog, args, len(opts))
	}
	return opts
}

// Every option the installed curl lists is in the table, with the same
// short letter: a new option is a decision, not a silent pass.
func TestCurlTableCoversInstalledCurl(t *testing.T) {
	opts := helpOptions(t, "curl", "--help", "all")
	for long, short := range opts {
		name := long
		if _, ok := curlOpts[name]; !ok && strings.HasPrefix(name, "no-") {
			name = name[3:]
		}
		if _, ok := curlOpts[name]; !ok {
			t.Errorf("curl --%s is not in curlOpts", long)
			continue
		}
		if short != "" && curlShort[short[0]] != name {
			t.Errorf("curl -%s is --%s, curlShort says %q", short, long, curlShort[short[0]])
		}
	}
	// curl 7 takes a unique prefix of a long option (case-insensitively)
	// for the option itself: a name of the table it does not know must
	// not be the prefix of exactly one option it does know.
	for long := range opts {
		if strings.HasPrefix(long, "no-") {
			opts[long[3:]] = "" // --no-buffer is the switch --buffer
		}
	}
	for name := range curlOpts {
		if _, ok := opts[name]; ok {
			continue
		}
		hits := 0
		for long := range opts {
			if strings.HasPrefix(strings.ToLower(long), strings.ToLower(name)) {
				hits++
			}
		}
		if hits == 1 {
			t.Errorf("curl --%s is read by the installed curl as another option", name)
		}
	}
}

// Every option the installed wget lists resolves exactly in the table.
func TestWgetTableCoversInstalledWget(t *testing.T) {
	for long, short := range helpOptions(t, "wget", "--help") {
		name, neg, ok := wgetLong(long)
		if !ok || (name != long && !(neg && "no-"+name == long)) {
			t.Errorf("wget --%s resolves to %q (ok %v)", long, name, ok)
			continue
		}
		switch {
		case short == "":
		case len(short) == 2 && short[0] == 'n':
			if wgetShort['n'] != "no" {
				t.Errorf("wget -%s: -n is not modelled", short)
			}
		case wgetShort[short[0]] != name:
			t.Errorf("wget -%s is --%s, wgetShort says %q", short, long, wgetShort[short[0]])
		}
	}
}

// netCases pin down what the models derive.
var netCases = []struct {
	cmd                  string
	hosts, reads, writes []string
	patterns             []string
	err                  string
}{
	{cmd: "curl https://github.com", hosts: []string{"github.com"}},
	{cmd: "curl -sSLo out github.com/x", hosts: []string{"github.com"}, writes: []string{"out"}},
	{cmd: "curl -oout -O https://github.com/a/b.txt?x=1", hosts: []string{"github.com"}, writes: []string{"out", "b.txt"}},
	{cmd: "curl -O https://github.com/a/", hosts: []string{"github.com"}, writes: []string{"a"}},
	{cmd: "curl -O https://github.com/", hosts: []string{"github.com"}, writes: []string{"curl_response"}},
	{cmd: "curl --output-dir dl -O https://github.com/x", hosts: []string{"github.com"}, writes: []string{"dl/x"}},
	{cmd: "curl --output-dir ~/dl -o f https://github.com/x", hosts: []string{"github.com"}, writes: []string{"f", "~/dl/f"}},
	{cmd: "curl --no-clobber -o f https://github.com/x", hosts: []string{"github.com"}, writes: []string{"f"}, patterns: []string{"f.*"}},
	{cmd: "curl -T a -T b -d @c -H @d -b e -F 'f=@g;headers=<h' -w @i https://github.com",
		hosts: []string{"github.com"}, reads: []string{"c", "d", "e", "g", "h", "i", "a", "b"}},
	{cmd: "curl -b 'k=v' --data-urlencode 'a=@b' --data-urlencode x@y https://github.com", hosts: []string{"github.com"}, reads: []string{"y"}},
	{cmd: "curl -x socks5h://u:p@Proxy.Example:1080 https://github.com", hosts: []string{"proxy.example", "github.com"}},
	{cmd: "curl https://github.com -: --url http://a.example -: b.example:8080", hosts: []string{"github.com", "a.example", "b.example"}},
	{cmd: "curl -- -x", hosts: []string{"-x"}},
	{cmd: "curl https://{a,b}.example", hosts: []string{"a.example", "b.example"}},
	{cmd: "curl 'https://{a,b}.example'", err: "expands {…}"},
	{cmd: "curl -g 'http://[::1]:8080/'", hosts: []string{"::1"}},
	{cmd: "curl file:///etc/hostname", reads: []string{"/etc/hostname"}},
	{cmd: `curl -H "Authorization: Bearer $TOKEN" "https://github.com/api/$ID"`, hosts: []string{"github.com"}},
	{cmd: `curl -O "https://github.com/$X"`, err: "-O writes"},
	{cmd: `curl -d "@$F" https://github.com`, err: "cannot tell which file"},
	{cmd: "curl -n https://github.com", hosts: []string{"github.com"}, reads: []string{"~/.netrc"}},
	{cmd: "curl --no-netrc https://github.com", hosts: []string{"github.com"}},
	{cmd: "curl --no-globoff -g 'https://github.com/[1-2]'", hosts: []string{"github.com"}},
	{cmd: "curl -g --no-globoff 'https://github.com/[1-2]'", err: "expands {…}"},
	{cmd: "curl --no-output x", err: "not an option"},
	{cmd: "curl --xyz https://github.com", err: "not an option"},
	{cmd: "curl -o", err: "needs a value"},
	{cmd: "curl --expand-output x https://github.com", err: "expands variables"},
	{cmd: "wget https://github.com/x", hosts: []string{"github.com"}, writes: []string{"x"}, patterns: []string{"x.*"}},
	{cmd: "wget -P dl https://github.com/a/?q=1", hosts: []string{"github.com"}, writes: []string{"dl/index.html?q=1"}, patterns: []string{"dl/index.html?q=1.*"}},
	{cmd: "wget -qO- https://github.com/x", hosts: []string{"github.com"}},
	{cmd: "wget -r -l1 https://github.com:8443/x/", hosts: []string{"github.com"}, writes: []string{"github.com:8443"}},
	{cmd: "wget -x -nH --protocol-directories -P dl https://github.com/a/b", hosts: []string{"github.com"}, writes: []string{"dl/https"}},
	{cmd: "wget --output-doc=f https://github.com/x", hosts: []string{"github.com"}, writes: []string{"f"}},
	{cmd: "wget --out=f https://github.com/x", err: "not an option the gate knows (or names more than one)"},
	{cmd: "wget -b https://github.com/x -O f", hosts: []string{"github.com"}, writes: []string{"wget-log", "f"}},
	{cmd: "wget -d https://github.com/x -O f", hosts: []string{"github.com"}, writes: []string{"f"}, reads: []string{"~/.netrc"}},
	{cmd: "wget --recursive=off -H https://github.com/x -O f", hosts: []string{"github.com"}, writes: []string{"f"}},
	{cmd: "wget -nvx https://github.com/x", err: "-nx"},
	{cmd: "wget ftp://github.com/*.txt", err: "listing"},
	{cmd: "wget --no-glob ftp://github.com/a.txt", hosts: []string{"github.com"}, writes: []string{".listing", "a.txt"}, patterns: []string{"a.txt.*"}},
	{cmd: "wget scp://github.com/x", err: "protocol"},
}

func TestNetModels(t *testing.T) {
	for _, tc := range netCases {
		use, err := analyzeShell(tc.cmd, "")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.cmd, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.cmd, err)
			continue
		}
		check := func(what string, got, want []string) {
			g, w := slices.Clone(got), slices.Clone(want)
			slices.Sort(g)
			slices.Sort(w)
			if !slices.Equal(g, w) {
				t.Errorf("%q: %s %q, want %q", tc.cmd, what, got, want)
			}
		}
		check("hosts", use.Hosts, tc.hosts)
		check("reads", use.ReadOperands, tc.reads)
		check("writes", use.WriteOperands, tc.writes)
		check("patterns", use.WritePatterns, tc.patterns)
	}
}

// A pattern bash would expand against files is refused; one that matches
// nothing is passed on as written.
func TestNetGlobAgainstFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "https:", "github.com"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "https:", "github.com", ".mcp.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := analyzeShell("curl -O https://github.com/.mcp.jso?", dir); err == nil || !strings.Contains(err.Error(), "bash replaces") {
		t.Errorf("a URL bash expands to a file name: %v", err)
	}
	if _, err := analyzeShell("curl https://github.com/search?q=x", dir); err != nil {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
}

// netVocabulary are the words the property test builds curl lines from;
// the values are hosts, files and text of every kind.
var netValues = []string{"https://github.com/x", "evil.example", "socks5://evil.example:1080",
	"http://u@evil.example/", ".env", "@.env", "a=@.env", "x@.env", "-", "@-", "out", "'#1'", "'{a,b}'",
	"github.com:443", "'%output{f}'", "pkcs11:x", "sha256//x", "=all", "file:///etc/passwd", "''"}

// A random curl line never panics the analysis, never reports a host
// that is not in its words, and, when it is allowed, has not missed
// evil.example in a place where curl reaches a host.
func TestCurlRandomWords(t *testing.T) {
	names := make([]string, 0, len(curlOpts))
	for n := range curlOpts {
		names = append(names, n)
	}
	slices.Sort(names)
	var letters []byte
	for l := range curlShort {
		letters = append(letters, l)
	}
	slices.Sort(letters)
	rng := rand.New(rand.NewSource(12))
	for i := 0; i < 4000; i++ {
		var words []string
		reaches := false // evil.example is where curl reaches a host
		for n := rng.Intn(6); n >= 0; n-- {
			v := netValues[rng.Intn(len(netValues))]
			switch rng.Intn(4) {
			case 0: // an operand: a URL
				words = append(words, v)
				reaches = reaches || (strings.Contains(v, "evil.example") && !strings.HasPrefix(v, "-"))
			case 1:
				name := names[rng.Intn(len(names))]
				words = append(words, "--"+name)
				if curlTakesValue(name) {
					words = append(words, v)
					k := curlOpts[name]
					reaches = reaches || ((k == curlProxy || k == curlURL || name == "url") && strings.Contains(v, "evil.example"))
				}
			default: // a letter, its value attached (quoted, as written)
				l := letters[rng.Intn(len(letters))]
				if v == "''" {
					v = "x"
				}
				words = append(words, "-"+string(l)+v)
				reaches = reaches || (curlShort[l] == "proxy" && strings.Contains(v, "evil.example"))
			}
		}
		line := "curl " + strings.Join(words, " ")
		use, err := analyzeShell(line, "")
		for _, h := range use.Hosts {
			if !strings.Contains(strings.ToLower(line), h) {
				t.Fatalf("%q: host %q is not in the line", line, h)
			}
		}
		if err == nil && reaches && !slices.Contains(use.Hosts, "evil.example") {
			t.Fatalf("%q: allowed without evil.example (%v)", line, use.Hosts)
		}
	}
}

// FuzzCurl: whatever follows curl, the analysis does not panic and
// reports only hosts the line names.
func FuzzCurl(f *testing.F) {
	for _, s := range []string{"-sSLo out https://github.com", "-K cfg", "-x socks5h://a/b x", "-O https://a/b/",
		"--next -: --url x", "-F 'a=@b,c;headers=<d'", "--variable %A@b", "-w '%output{x}'", "-g 'http://[::1]/'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		for _, prog := range []string{"curl ", "wget "} {
			line := prog + rest
			use, _ := analyzeShell(line, "")
			if strings.ContainsAny(line, "$\\`") {
				return // escapes and expansions spell hosts the text does not show
			}
			text := strings.ToLower(strings.NewReplacer("'", "", `"`, "").Replace(line))
			for _, h := range use.Hosts {
				if !strings.Contains(text, h) && !strings.Contains(h, ":") && !isDigitsDots(h) {
					t.Fatalf("%q: host %q is not in the line", line, h)
				}
			}
		}
	})
}

// isDigitsDots: an IPv4 address, which HostOf may have normalised from
// another spelling.
func isDigitsDots(h string) bool {
	return strings.Trim(h, "0123456789.") == ""
}
