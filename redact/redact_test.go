package redact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/schemas"
	"github.com/leasedeck/leasedeck/termtext"
)

// Planted secrets, one of each kind. They are syntactically real and
// otherwise made up (the AWS pair is AWS's own documentation example).
var planted = []struct {
	kind, secret, context string
}{
	{"anthropic-key", "sk-ant-api03-Zq8vR2mNpL4xK7tY1wB9cD3fG6hJ0sA5eU8iO2pQ-rT4yW7zX1vB3nM6kL9jH2gF5dS8aQ1wE4r-AbCdEfAA", "export ANTHROPIC_API_KEY=%s"},
	{"openai-key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8x", "curl -H 'x: %s' https://api.openai.com"},
	{"openai-key", "sk-4fG7hJ2kL5mN8pQ1rS4tU7vW0xY3zA6bC9dE2fG5hJ8kL1", "OPENAI=%s node app.js"},
	{"github-token", "ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y", "git clone https://x-access-token@github.com/o/r && echo %s"},
	{"github-token", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "token %s"},
	{"github-token", "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmn", "gh auth login --with-token <<< %s"},
	{"aws-access-key", "AKIAIOSFODNN7EXAMPLE", "aws configure set aws_access_key_id %s"},
	{"aws-secret-key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = %s"},
	{"aws-secret-key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=%s terraform apply"},
	{"google-api-key", "AIzaSyD3fG6hJ9kL2mN5pQ8rS1tU4vW7xY0zA3b", "curl 'https://maps.googleapis.com/x?key=%s'"},
	{"slack-token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "SLACK_BOT=%s"},
	{"slack-webhook", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "curl -X POST https://hooks.slack.com/services/%s -d hi"},
	{"bearer", "abcDEF123456ghiJKL789mnoPQR", "curl -H 'Authorization: Bearer %s' https://api.example.com"},
	{"authorization", "Zm9vOmJhcmJhemJhcg==", "curl -H \"Authorization: Basic %s\" https://api.example.com"},
	{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "cookie: session=%s"},
	{"private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDk3b5x0b8m7nJv2Zq4wKx1Y7t9bQ==\n-----END OPENSSH PRIVATE KEY-----", "cat > ~/.ssh/id <<EOF\n%s\nEOF"},
	{"private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq9Yx2Zq4wKx1Y7t9bQk3b5x0b8m7nJv2", "truncated paste: %s"},
	{"url-password", "s3cr3tP4ss", "git remote add origin https://alice:%s@git.example.com/repo.git"},
	{"url-password", "pg-Pa55w0rd", "psql postgres://app:%s@db:5432/app"},
	{"secret-assignment", "hunter2hunter2", "DB_PASSWORD=%s ./migrate"},
	{"secret-assignment", "correct horse battery", "password: '%s'"},
	{"secret-assignment", "abc123def456", `{"api_key": "%s"}`},
	{"secret-assignment", "tok_live_8f3k2j", "curl 'https://x.example.com/cb?access_token=%s&page=2'"},
	{"secret-assignment", "S3cretValue", "client_secret=%s"},
	{"secret-flag", "s3cr3t!pw", "mysql --password %s -u root"},
	{"secret-flag", "qwerty-12345", "deploy --api-key %s --env prod"},
	{"high-entropy", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "the api key is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"},
	{"random-run", "Xk9mP2qR7sT4vW8yZ1bC5dF3gH6jK0nM2pQ5rS8tV1wY4zA7", "blob %s end"},
}

func plantedText(i int) string {
	p := planted[i]
	if strings.Contains(p.context, "%s") {
		return strings.Replace(p.context, "%s", p.secret, 1)
	}
	return p.context
}

func TestRedactPlantedSecrets(t *testing.T) {
	for i, p := range planted {
		text := plantedText(i)
		got, findings := Redact(text)
		if strings.Contains(got, p.secret) || len(findings) == 0 {
			t.Errorf("%s: %q → %q (findings %v)", p.kind, text, got, findings)
			continue
		}
		// Not even a long fragment of it survives.
		for _, line := range strings.Split(p.secret, "\n") {
			if len(line) >= 12 && strings.Contains(got, line[:12]) && !strings.HasPrefix(line, "-----") {
				t.Errorf("%s: a fragment %q survived in %q", p.kind, line[:12], got)
			}
		}
		if !strings.Contains(got, Redacted) {
			t.Errorf("%s: no marker in %q", p.kind, got)
		}
		for _, f := range findings {
			if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
				t.Errorf("%s: bad span %+v", p.kind, f)
			}
		}
		if !ContainsSecret(text) {
			t.Errorf("%s: Contains false", p.kind)
		}
	}
}

func TestRedactKinds(t *testing.T) {
	for i, p := range planted {
		_, fs := Redact(plantedText(i))
		found := false
		for _, f := range fs {
			if f.Kind == p.kind {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: kinds %v, want %s", plantedText(i), fs, p.kind)
		}
	}
}

// Every planted secret, in every place a tool input can hold it, stays out
// of the summary, the redacted value and the request's redacted form.
func TestSecretsNeverInSummaries(t *testing.T) {
	for i, p := range planted {
		text := plantedText(i)
		inputs := map[string]map[string]any{
			"Bash":                    {"command": text},
			"Write":                   {"file_path": "/w/a.txt", "content": text},
			"Edit":                    {"file_path": "/w/a.txt", "old_string": text, "new_string": text},
			"WebFetch":                {"url": "https://example.com/?" + text, "prompt": text},
			"WebSearch":               {"query": text},
			"Agent":                   {"description": text, "prompt": text},
			"mcp__db__query":          {"sql": text, "password": p.secret, "env": map[string]any{"SERVICE_TOKEN": p.secret}},
			"Grep":                    {"pattern": text, "path": "/w"},
			"Bash (long, near clip)":  {"command": strings.Repeat("x", 280) + " " + text},
			"Bash (after 10 KB junk)": {"command": strings.Repeat("echo hi; ", 1200) + text},
		}
		for tool, in := range inputs {
			name := strings.SplitN(tool, " ", 2)[0]
			for _, max := range []int{0, 40, 120, 300} {
				s := Summary(name, in, max)
				if strings.Contains(s, p.secret) {
					t.Errorf("%s %s max=%d: summary %q holds the secret", p.kind, tool, max, s)
				}
				for _, line := range strings.Split(p.secret, "\n") {
					if len(line) >= 16 && strings.Contains(s, line[:16]) && !strings.HasPrefix(line, "-----") {
						t.Errorf("%s %s: summary %q holds a fragment", p.kind, tool, s)
					}
				}
			}
			rv, _ := RedactValue(toTree(t, in))
			b, _ := json.Marshal(rv)
			if strings.Contains(string(b), jsonEscaped(p.secret)) {
				t.Errorf("%s %s: RedactValue kept it: %s", p.kind, tool, b)
			}
		}
	}
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func toTree(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := schemas.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// Things that look a little like secrets and are not: a redactor that eats
// them makes summaries useless, and people stop reading them.
func TestRedactLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"git status && git diff --stat",
		"git checkout 3f2a9c1b7e4d5f60718293a4b5c6d7e8f9012345",
		"sha256sum dist/app.tar.gz # e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"pip install scikit-learn numpy",
		"curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com",
		"export GITHUB_TOKEN=$(gh auth token)",
		"max_tokens=1000 temperature=0.2",
		"author: Jane Doe",
		"go test ./... -run TestKeySegments",
		"ls src/components/AuthenticationProvider/hooks",
		"sort -k 2 keys.txt",
		"password=$DB_PASSWORD ./migrate",
		"https://example.com/docs?page=2&q=tokens",
		"ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519",
	} {
		got, fs := Redact(s)
		if got != s {
			t.Errorf("%q → %q (%v)", s, got, fs)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	for k, want := range map[string]bool{
		"password": true, "DB_PASSWORD": true, "dbPassword": true, "api_key": true, "apiKey": true,
		"X-Api-Key": true, "GITHUB_TOKEN": true, "client_secret": true, "Authorization": true,
		"aws_secret_access_key": true, "private_key": true, "sessionKey": true,
		"author": false, "max_tokens": false, "key": false, "primary_key": false, "keyboard": false,
		"path": false, "tokenizer": false, "passenger": false, "monkey": false,
	} {
		if got := IsSecretKey(k); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v (segments %q)", k, got, want, keySegments(k))
		}
	}
}

func TestValue(t *testing.T) {
	in := toTree(t, map[string]any{
		"command":  "echo ok",
		"password": "plain-but-named",
		"env":      map[string]any{"GITHUB_TOKEN": "anything", "HOME": "/home/u"},
		"headers":  []any{"Authorization: Bearer abcdefghijklmnop123"},
		"creds":    map[string]any{"secret": map[string]any{"user": "bob"}},
		"count":    json.Number("3"),
		"apiKey":   "$API_KEY",
	})
	out, fs := RedactValue(in)
	m := out.(map[string]any)
	if m["password"] != Redacted || m["env"].(map[string]any)["GITHUB_TOKEN"] != Redacted {
		t.Errorf("named secrets kept: %v", m)
	}
	if m["env"].(map[string]any)["HOME"] != "/home/u" || m["command"] != "echo ok" || m["count"] != json.Number("3") {
		t.Errorf("ordinary values changed: %v", m)
	}
	if m["creds"].(map[string]any)["secret"].(map[string]any)["user"] != Redacted {
		t.Errorf("strings under a secret key kept: %v", m["creds"])
	}
	if m["apiKey"] != "$API_KEY" {
		t.Errorf("a reference was redacted: %v", m["apiKey"])
	}
	paths := map[string]bool{}
	for _, f := range fs {
		paths[f.Path] = true
	}
	for _, p := range []string{"/password", "/env/GITHUB_TOKEN", "/headers/0", "/creds/secret/user"} {
		if !paths[p] {
			t.Errorf("no finding at %s (have %v)", p, paths)
		}
	}
	// The input is untouched.
	if in.(map[string]any)["password"] != "plain-but-named" {
		t.Error("RedactValue modified its input")
	}
}

func TestSummary(t *testing.T) {
	cases := []struct {
		tool string
		in   map[string]any
		max  int
		want string
	}{
		{"Bash", map[string]any{"command": "git status &&\n  rm -rf build"}, 0, "Bash: git status && rm -rf build"},
		{"Write", map[string]any{"file_path": "src/a.go", "content": strings.Repeat("x", 1229)}, 0, "Write: src/a.go (1.2 KB)"},
		{"Write", map[string]any{"file_path": "big.bin", "content": strings.Repeat("x", 3<<20)}, 0, "Write: big.bin (3.0 MB)"},
		{"Edit", map[string]any{"file_path": "a.go", "file_paths": []any{"a.go", "b.go", "c.go", "d.go", "e.go"}, "patch": "secret body"}, 0, "Edit: a.go, b.go, c.go (+2 more)"},
		{"MultiEdit", map[string]any{"file_path": "a.go", "edits": []any{1, 2, 3}}, 0, "MultiEdit: a.go (3 edits)"},
		{"Read", map[string]any{"file_path": "/w/README.md"}, 0, "Read: /w/README.md"},
		{"Glob", map[string]any{"pattern": "**/*.go", "path": "src"}, 0, "Glob: **/*.go in src"},
		{"WebFetch", map[string]any{"url": "https://u:pw12345@example.com/x"}, 0, "WebFetch: https://u:[redacted]@example.com/x"},
		{"Agent", map[string]any{"subagent_type": "Explore", "description": "find flake", "prompt": "long prompt"}, 0, "Agent: Explore: find flake"},
		{"mcp__gh__create_issue", map[string]any{"title": "Bug", "body": "long text", "labels": []any{"a", "b"}}, 0, "mcp__gh__create_issue: body=<9 B>, labels=[2], title=Bug"},
		{"Bash", map[string]any{"command": "echo " + strings.Repeat("a", 100)}, 20, "Bash: echo aaaaaaaa…"},
		{"Bash", map[string]any{"command": "echo \u202egnp.exe\u200b\x1b[31mred\x07"}, 0, "Bash: echo gnp.exe [31mred"},
		{"Bash", map[string]any{"command": "printf '\xff\xfe'"}, 0, "Bash: printf '\uFFFD'"},
		{"Unknown", nil, 0, "Unknown"},
	}
	for _, c := range cases {
		got := Summary(c.tool, c.in, c.max)
		if got != c.want {
			t.Errorf("Summary(%s) = %q, want %q", c.tool, got, c.want)
		}
	}
	// Always one line, no control characters, within max.
	for _, max := range []int{1, 2, 10, 300} {
		s := Summary("Bash", map[string]any{"command": strings.Repeat("é\n\t\r\x00", 500)}, max)
		if utf8.RuneCountInString(s) > max {
			t.Errorf("max %d: %d runes", max, utf8.RuneCountInString(s))
		}
		for _, r := range s {
			if unicode.IsControl(r) || termtext.Invisible(r) {
				t.Errorf("control character %U in %q", r, s)
			}
		}
	}
	// Contents are never shown, even short ones.
	if s := Summary("Write", map[string]any{"file_path": "a", "content": "TOP-SECRET-CONTENT"}, 0); strings.Contains(s, "TOP-SECRET") {
		t.Errorf("content in summary: %q", s)
	}
}

func TestOneLineAndClip(t *testing.T) {
	if got := OneLine("a\nb\tc  d ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y", 100); got != "a b c d [redacted]" {
		t.Errorf("OneLine = %q", got)
	}
	if got := termtext.Clip("héllo wörld", 5); got != "héll…" {
		t.Errorf("clip = %q", got)
	}
}

// Every detector's pattern compiles (they compile lazily, on first use).
func TestDetectorsCompile(t *testing.T) {
	for _, d := range rules().detectors {
		if d.re.get() == nil {
			t.Errorf("%s: no regexp", d.Kind)
		}
	}
}

// TestIsSecretKeyPlainShortcut: a lower-case key of letters and digits is
// judged as keySegments' one segment would have it.
func TestIsSecretKeyPlainShortcut(t *testing.T) {
	v := rules()
	keys := []string{"command", "password", "token", "key", "apikey", "pass1", "x", "authtoken", "secret", "cookie", "jwt"}
	for w := range v.secretWords {
		keys = append(keys, w)
	}
	for _, k := range keys {
		if !plainKey(k) {
			continue
		}
		segs := keySegments(k)
		slow := false
		for i, s := range segs {
			slow = slow || v.secretWords[s] || i+1 < len(segs) && v.secretPairs[[2]string{s, segs[i+1]}]
		}
		if got := v.isSecretKey(k); got != slow {
			t.Errorf("%q: %v, keySegments says %v", k, got, slow)
		}
	}
}

// TestFindingsInMember: the findings of one member are those of the
// object holding it alone, pointer included, under an ordinary key and a
// secret one, for every planted secret and for text with none.
func TestFindingsInMember(t *testing.T) {
	texts := []string{"", "git status", "echo ~/a/b"}
	for i := range planted {
		texts = append(texts, plantedText(i))
	}
	found := 0
	for _, text := range texts {
		for _, key := range []string{"command", "a/b~c", "password", "api_key"} {
			got, want := FindingsInMember(key, text), FindingsIn(map[string]any{key: text})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("FindingsInMember(%q, %q) = %+v, want %+v", key, text, got, want)
			}
			found += len(got)
		}
	}
	if found == 0 {
		t.Fatal("no finding at all: the comparison says nothing")
	}
}
