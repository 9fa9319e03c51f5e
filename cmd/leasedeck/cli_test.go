package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI tests run the real binary, as a user would; hookBinary is the
// lean hook binary (cmd/leasedeck-hook), which the hook tests run as well.
var binary, hookBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "leasedeck-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "leasedeck")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	hookBinary = filepath.Join(dir, "leasedeck-hook")
	if out, err := exec.Command("go", "build", "-o", hookBinary, "../leasedeck-hook").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
		t.Fatalf("leasedeck %v panicked:\n%s", args, errb.String())
	}
	return result{code, out.String(), errb.String()}
}

const corpus = "../../contract/"

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// vectorFiles writes a narrowing vector's parent and declared manifests.
func vectorFiles(t *testing.T, name string) (parent, declared string) {
	t.Helper()
	var doc struct {
		Vectors []map[string]json.RawMessage `json:"vectors"`
	}
	b, _ := os.ReadFile(corpus + "conformance/narrowing-vectors.json")
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, v := range doc.Vectors {
		var n string
		json.Unmarshal(v["name"], &n)
		if n == name {
			return writeFile(t, "parent.json", v["parent"]), writeFile(t, "declared.json", v["declared"])
		}
	}
	t.Fatalf("no vector %s", name)
	return "", ""
}

func TestCLI(t *testing.T) {
	empty := writeFile(t, "empty.json", nil)
	big := writeFile(t, "big.json", bytes.Repeat([]byte(" "), 10<<20))
	notJSON := writeFile(t, "bad.json", []byte(`{"schema_version": "1.2",`))
	wrongShape := writeFile(t, "arr.json", []byte(`[1,2,3]`))
	parent, declared := vectorFiles(t, "budget-clamped-to-parent-remaining")
	_, refused := vectorFiles(t, "R1-and-R2-both-reported")
	_, escaping := vectorFiles(t, "R3-escaping-path-refuses-whole-manifest")
	key := corpus + "conformance/test-key.txt"
	lease := corpus + "fixtures/valid/agent-lease.populated.json"

	cases := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		contains string
	}{
		{"validate valid", "", []string{"validate", "--shape", "agent-lease-manifest", corpus + "fixtures/valid/agent-lease-manifest.populated.json"}, 0, "valid"},
		{"validate invalid names pointer", "", []string{"validate", "--shape", "manifest", corpus + "fixtures/invalid/agent-lease-manifest.allow-missing-hosts.json"}, 1, "/allow required"},
		{"validate stdin", `{"schema_version":"1.2"}`, []string{"validate", "--shape", "lease", "-"}, 1, "/ required"},
		{"validate not json", "", []string{"validate", "--shape", "manifest", notJSON}, 1, "invalid JSON"},
		{"validate empty", "", []string{"validate", "--shape", "manifest", empty}, 1, "empty"},
		{"validate 10MB", "", []string{"validate", "--shape", "manifest", big}, 1, "limit"},
		{"validate wrong shape", "", []string{"validate", "--shape", "manifest", wrongShape}, 1, "type"},
		{"validate unknown shape", "", []string{"validate", "--shape", "nope", empty}, 2, "unknown shape"},
		{"validate dotdot path", "", []string{"validate", "--shape", "manifest", "../x"}, 1, "cannot read ../x"},
		{"validate drive path", "", []string{"validate", "--shape", "manifest", `C:\x`}, 1, `cannot read C:\x`},
		{"validate usage", "", []string{"validate"}, 2, "usage"},
		{"canon stdin", `{"b":1,"a":[1.0,"\u00e9"]}`, []string{"canon"}, 0, `{"a":[1,"é"],"b":1}`},
		{"canon sha256", `{}`, []string{"canon", "--sha256", "-"}, 0, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		{"canon invalid", `{"a":NaN}`, []string{"canon"}, 1, "invalid JSON"},
		{"canon huge int", `{"a":9007199254740993}`, []string{"canon"}, 1, "not exactly representable"},
		{"canon empty", "", []string{"canon", empty}, 1, "empty"},
		{"canon 10MB", "", []string{"canon", big}, 1, "limit"},
		{"narrow grant", "", []string{"narrow", "--parent", parent, declared}, 0, `"budget_clamped"`},
		{"narrow refused", "", []string{"narrow", "--parent", parent, refused}, 3, `"R2"`},
		{"narrow schema-invalid", "", []string{"narrow", "--parent", parent, escaping}, 1, "/allow/write_paths/1"},
		{"narrow wrong shape", "", []string{"narrow", "--parent", wrongShape, declared}, 1, "type"},
		{"narrow not json", "", []string{"narrow", "--parent", parent, notJSON}, 1, "invalid JSON"},
		{"narrow empty", "", []string{"narrow", "--parent", parent, empty}, 1, "empty"},
		{"narrow 10MB", "", []string{"narrow", "--parent", big, declared}, 1, "limit"},
		{"narrow usage", "", []string{"narrow", declared}, 2, "usage"},
		{"verify test key refused", "", []string{"verify", "--key", key, lease}, 1, "test key"},
		{"verify conformance", "", []string{"verify", "--conformance", "--key", key, lease}, 0, "verifies"},
		{"verify flags after file", "", []string{"verify", lease, "--key", key, "--conformance"}, 0, "verifies"},
		{"verify L1", "", []string{"verify", "--conformance", "--key", key, corpus + "fixtures/invalid-by-rule/agent-lease.Expired.json"}, 1, "L1 /expires_at"},
		{"verify L2", "", []string{"verify", "--conformance", "--key", key, corpus + "fixtures/invalid-by-rule/agent-lease.SelfParent.json"}, 1, "L2 /parent_lease_id"},
		{"verify not json", "", []string{"verify", "--conformance", "--key", key, notJSON}, 1, "invalid JSON"},
		{"verify wrong shape", "", []string{"verify", "--conformance", "--key", key, wrongShape}, 1, "schema"},
		{"verify empty", "", []string{"verify", "--conformance", "--key", key, empty}, 1, "empty"},
		{"verify bad key file", "", []string{"verify", "--key", notJSON, lease}, 1, "key"},
		{"verify usage", "", []string{"verify", lease}, 2, "usage"},
		{"conformance", "", []string{"conformance"}, 0, "all checked cases pass"},
		{"conformance corpus dir", "", []string{"conformance", "--corpus", corpus}, 0, "narrowing"},
		{"conformance missing dir", "", []string{"conformance", "--corpus", "../x"}, 1, "not a directory"},
		{"unknown command", "", []string{"frobnicate"}, 2, "unknown command"},
		{"help", "", []string{"help"}, 0, "Exit codes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, c.stdin, c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, c.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout+r.stderr, c.contains) {
				t.Errorf("output lacks %q\nstdout: %s\nstderr: %s", c.contains, r.stdout, r.stderr)
			}
		})
	}
}

// The conformance report's summary is exactly what the README publishes.
func TestConformanceReportCounts(t *testing.T) {
	r := runBin(t, "", "conformance")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const intro = "Result of `leasedeck conformance` on the vendored corpus:\n\n```\n"
	i := strings.Index(string(readme), intro)
	if i < 0 {
		t.Fatalf("README has no conformance result block (%q)", intro)
	}
	block := string(readme)[i+len(intro):]
	block = block[:strings.Index(block, "```")]
	if !strings.Contains(r.stdout, block) {
		t.Errorf("README's conformance block:\n%s\nis not what the binary prints:\n%s", block, r.stdout)
	}
}
