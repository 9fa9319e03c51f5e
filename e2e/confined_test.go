package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/confine"
	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

// TestClaudeCodeConfined runs the real Claude Code under `leasedeck run`:
// its allowed work happens, and a Python script the lease's python3 runs —
// a call the hook allows, since it cannot see inside the script — writes
// outside write_paths and leaves nothing on disk, because the kernel
// refuses the write.
func TestClaudeCodeConfined(t *testing.T) {
	requireE2E(t)
	abi, err := confine.ABI()
	if err == nil {
		err = confine.CheckABI(abi)
	}
	if err != nil {
		t.Skipf("no confined mode on this kernel: %v", err)
	}
	claude := client(t, claudeClient)
	e := governedWorkspace(t, "claude-code")
	e.install("claude-code", "--command-hooks") // a confined tree reaches only command hooks
	escaped := e.path("docs/escaped.txt")
	e.write("src/escape.py", "open("+strconv.Quote(escaped)+", 'w').write('escaped')\nprint('script ran')\n")
	main := []fakemodel.Step{
		{Calls: []fakemodel.Call{{Name: "Write", Input: map[string]any{"file_path": e.path("src/confined.txt"), "content": "inside\n"}}}},
		{Calls: []fakemodel.Call{bash("python3 src/escape.py")}},
		{Calls: []fakemodel.Call{bash("echo shell > src/shell.txt")}},
		{Text: "All done."},
	}
	srv := fakemodel.NewAnthropic(fakemodel.Script{Name: "main", Steps: main})
	defer srv.Close()
	vars := append(claudeVars(e, srv.URL), "PATH=/usr/local/bin:/usr/bin:/bin")
	prompt := "Work on the sources. " + fakemodel.Marker("main")
	run := e.runClient(3*time.Minute, vars, binary, "run", "--client", "claude-code", "--",
		claude, "-p", prompt, "--model", "claude-sonnet-4-5")
	t.Logf("leasedeck run -- claude -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	first := strings.SplitN(run.stderr, "\n", 2)[0]
	if !strings.Contains(first, "confined by Landlock ABI") {
		t.Fatalf("run's first line: %q\nstderr: %s", first, tail(run.stderr, 2000))
	}
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("claude under run: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 2000), tail(run.stderr, 2000))
	}
	for _, p := range []string{"src/confined.txt", "src/shell.txt"} {
		if _, err := os.Stat(e.path(p)); err != nil {
			t.Errorf("the allowed %s did not happen: %v", p, err)
		}
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Errorf("the script's write outside write_paths reached the disk")
	}
	rs, ok := srv.ResultsAfter("main", 1)
	if !ok || len(rs) != 1 || !contains(rs[0].Text, "Permission denied") {
		t.Errorf("the model was not told the kernel refused the script's write: %+v", rs)
	}
	session := false
	for _, l := range e.leases() {
		if l.ParentID != "" && l.Confinement != nil && l.Confinement.Confined && l.Confinement.RunLeaseID == l.ParentID {
			session = true
		}
	}
	if !session {
		t.Errorf("Claude Code's session lease is not a confined child of the run's lease: %+v", e.leases())
	}
	if lines := e.auditLines(`"leasedeck.run.confined"`); len(lines) == 0 {
		t.Errorf("the run's confinement was not journaled")
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".leasedeck", "policy.json")); err != nil {
		t.Errorf("policy.json: %v", err)
	}
}

// TestConfinedOverhead times the 20-call scripted Claude Code session with
// leasedeck's hooks against the same session under `leasedeck run` (hooks
// and the kernel), rotating the order each round, and logs the ratio of
// the medians (target ≤ 1.05×). LEASEDECK_E2E_RUNS sets the runs per side.
func TestConfinedOverhead(t *testing.T) {
	requireHeavy(t)
	if abi, err := confine.ABI(); err != nil || confine.CheckABI(abi) != nil {
		t.Skipf("no confined mode on this kernel: %v", err)
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("LEASEDECK_E2E_RUNS")); err == nil && n > 0 {
		runs = n
	}
	exe := client(t, claudeClient)
	e := governedWorkspace(t, "claude-code")
	e.install("claude-code", "--command-hooks") // a confined tree reaches only command hooks
	srv := fakemodel.NewAnthropic()
	defer srv.Close()
	vars := append(claudeVars(e, srv.URL), "PATH=/usr/local/bin:/usr/bin:/bin")
	took := map[string][]time.Duration{}
	modes := []string{"hooks", "run"}
	for i := 0; i < runs; i++ {
		for j := range modes {
			mode := modes[(i+j)%len(modes)]
			name := fmt.Sprintf("confined%d_%d", i, j)
			srv.AddScript(fakemodel.Script{Name: name, Steps: benchSteps(e, claudeDialect, name)})
			args := []string{"-p", "Run the bench. " + fakemodel.Marker(name), "--model", "claude-sonnet-4-5", "--permission-mode", "acceptEdits"}
			bin := exe
			if mode == "run" {
				bin, args = binary, append([]string{"run", "--client", "claude-code", "--", exe}, args...)
			}
			r := e.runClient(3*time.Minute, vars, bin, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "Bench done.") {
				t.Fatalf("%s (%s): exit %d\nstdout: %s\nstderr: %s", name, mode, r.code, tail(r.stdout, 2000), tail(r.stderr, 2000))
			}
			for s := 0; s < benchCalls; s++ {
				if rs, ok := srv.ResultsAfter(name, s); !ok || len(rs) != 1 || rs[0].IsError {
					t.Fatalf("%s (%s) step %d did not run cleanly: %+v", name, mode, s, rs)
				}
			}
			took[mode] = append(took[mode], r.took)
		}
	}
	mh, mr := median(took["hooks"]), median(took["run"])
	t.Logf("claude-code %s, %d-tool-call session: hooks only %s (min %s) | under run %s (min %s) | run/hooks %.2fx (%d runs each)",
		claudeClient, benchCalls, ms(mh), ms(minDur(took["hooks"])), ms(mr), ms(minDur(took["run"])), float64(mr)/float64(mh), runs)
}

// TestGeminiCLIConfined: the real Gemini CLI (a node bundle) under
// `leasedeck run` does its allowed work, and a script's write outside
// write_paths leaves nothing on disk.
func TestGeminiCLIConfined(t *testing.T) {
	requireHeavy(t)
	if abi, err := confine.ABI(); err != nil || confine.CheckABI(abi) != nil {
		t.Skipf("no confined mode on this kernel: %v", err)
	}
	gemini := client(t, geminiClient)
	e := governedWorkspace(t, "gemini-code-assist")
	e.install("gemini")
	escaped := e.path("docs/escaped.txt")
	e.write("src/escape.py", "open("+strconv.Quote(escaped)+", 'w').write('escaped')\n")
	srv := fakemodel.NewGemini()
	defer srv.Close()
	srv.AddScript(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Calls: []fakemodel.Call{geminiDialect.write(e, "src/confined.txt", "inside")}},
		{Calls: []fakemodel.Call{geminiDialect.shell("python3 src/escape.py")}},
		{Calls: []fakemodel.Call{geminiDialect.shell("echo shell > src/shell.txt")}},
		{Text: "All done."},
	}})
	vars := append(geminiVars(e, srv.URL), "PATH=/usr/local/bin:/usr/bin:/bin")
	args := append([]string{"run", "--client", "gemini-code-assist", "--", gemini}, geminiArgs("Work. "+fakemodel.Marker("main"))...)
	run := e.runClient(3*time.Minute, vars, binary, args...)
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") || !strings.Contains(run.stderr, "confined by Landlock ABI") {
		t.Fatalf("gemini under run: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 2000), tail(run.stderr, 2000))
	}
	for _, p := range []string{"src/confined.txt", "src/shell.txt"} {
		if _, err := os.Stat(e.path(p)); err != nil {
			t.Errorf("the allowed %s did not happen: %v", p, err)
		}
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Errorf("the script's write outside write_paths reached the disk")
	}
}

// TestCodexCLIConfined: the real Codex CLI under `leasedeck run` (its own
// sandbox off, -s danger-full-access, as run says) does its allowed work,
// and a script's write outside write_paths leaves nothing on disk.
func TestCodexCLIConfined(t *testing.T) {
	requireHeavy(t)
	if abi, err := confine.ABI(); err != nil || confine.CheckABI(abi) != nil {
		t.Skipf("no confined mode on this kernel: %v", err)
	}
	codex := client(t, codexClient)
	e := governedWorkspace(t, "codex-cli")
	e.install("codex")
	escaped := e.path("docs/escaped.txt")
	e.write("src/escape.py", "open("+strconv.Quote(escaped)+", 'w').write('escaped')\n")
	srv := fakemodel.NewOpenAI()
	defer srv.Close()
	srv.AddScript(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Calls: []fakemodel.Call{codexDialect.write(e, "src/confined.txt", "inside")}},
		{Calls: []fakemodel.Call{codexExec("python3 src/escape.py")}},
		{Calls: []fakemodel.Call{codexExec("echo shell > src/shell.txt")}},
		{Text: "All done."},
	}})
	vars := append(codexVars(e, srv.URL), "PATH=/usr/local/bin:/usr/bin:/bin")
	args := append([]string{"run", "--client", "codex-cli", "--", codex}, codexArgs("Work. "+fakemodel.Marker("main"))...)
	run := e.runClient(3*time.Minute, vars, binary, args...)
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") || !strings.Contains(run.stderr, "danger-full-access") {
		t.Fatalf("codex under run: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 2000), tail(run.stderr, 2000))
	}
	for _, p := range []string{"src/confined.txt", "src/shell.txt"} {
		if _, err := os.Stat(e.path(p)); err != nil {
			t.Errorf("the allowed %s did not happen: %v", p, err)
		}
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Errorf("the script's write outside write_paths reached the disk")
	}
}
