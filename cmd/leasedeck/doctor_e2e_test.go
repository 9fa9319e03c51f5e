package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doctorWS is a workspace with its own HOME and a PATH holding only the
// system directories and bin, where a test puts client programs.
type doctorWS struct {
	*wsEnv
	home, bin string
}

func newDoctorWS(t *testing.T) *doctorWS {
	t.Helper()
	w := newWorkspace(t)
	d := &doctorWS{wsEnv: w, home: t.TempDir(), bin: t.TempDir()}
	w.env = append(w.env, "HOME="+d.home, "PATH="+d.bin+":/usr/bin:/bin", "CODEX_HOME=", "GEMINI_CLI_HOME=", "PI_CODING_AGENT_DIR=")
	return d
}

// program puts an executable script named name on the test PATH (dir
// "" for the test's bin) that prints out for --version and, run at all,
// leaves a mark beside itself.
func (d *doctorWS) program(t *testing.T, dir, name, out string) string {
	t.Helper()
	if dir == "" {
		dir = d.bin
	}
	p := filepath.Join(dir, name)
	script := "#!/bin/sh\ntouch \"$0.ran\"\necho '" + out + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func (d *doctorWS) doctor(t *testing.T) (doctorReport, result) {
	t.Helper()
	r := d.run("", "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%+v", err, r)
	}
	if (r.code == 0) != rep.OK || (r.code != 0 && r.code != 1) {
		t.Fatalf("doctor exit %d with ok=%v", r.code, rep.OK)
	}
	return rep, r
}

func problems(rep doctorReport) []finding {
	var out []finding
	for _, f := range rep.Findings {
		if f.Status == statusProblem {
			out = append(out, f)
		}
	}
	return out
}

func (d *doctorWS) settings(t *testing.T) string {
	return filepath.Join(d.dir, ".claude", "settings.json")
}

func (d *doctorWS) edit(t *testing.T, path string, from, to string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), from) {
		t.Fatalf("%s has no %q", path, from)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), from, to)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A healthy workspace: a registry, Claude Code 2.1.328 on PATH with
// leasedeck's fail-closed hooks. doctor says all is well, exit 0.
func TestDoctorAllWell(t *testing.T) {
	d := newDoctorWS(t)
	d.serve()
	d.program(t, "", "claude", "2.1.328 (Claude Code)")
	if r := d.run("", "install", "claude-code", "--command", binary); r.code != 0 {
		t.Fatal(r)
	}
	rep, r := d.doctor(t)
	if !rep.OK || r.code != 0 || rep.Workspace != d.dir {
		t.Fatalf("doctor on a healthy workspace: %+v\n%s", problems(rep), r.stdout)
	}
	want := map[string]string{"registry reachable": "proved itself", "registry mode": "enforce", "journal health": "head seq",
		"claude-code program": "2.1.328", "claude-code failing hook": "blocks the call", "claude-code hooks (project)": "pinned to this workspace",
		"claude-code HTTP hooks (project)": "refuses a POST without the token and answers one with it"}
	for _, f := range rep.Findings {
		if w, ok := want[f.Subject+" "+f.Check]; ok && f.Status == statusOK && strings.Contains(f.Detail, w) {
			delete(want, f.Subject+" "+f.Check)
		}
	}
	if len(want) > 0 {
		t.Errorf("findings missing: %v\n%+v", want, rep.Findings)
	}
	text := d.run("", "doctor")
	if text.code != 0 || !strings.Contains(text.stdout, "all is well") {
		t.Errorf("text report: %+v", text)
	}
}

// Each problem doctor finds, and that running the fix it prints makes it
// go away.
func TestDoctorProblemsAndTheirFixes(t *testing.T) {
	install := func(d *doctorWS, t *testing.T, args ...string) {
		if r := d.run("", append([]string{"install", "claude-code"}, args...)...); r.code != 0 {
			t.Fatal(r)
		}
	}
	cases := []struct {
		name    string
		setup   func(d *doctorWS, t *testing.T)
		problem string // a problem's detail says this
		fixable bool   // the printed fix is a leasedeck command that fixes it
	}{
		{name: "no registry", problem: "no registry answered", fixable: true,
			setup: func(d *doctorWS, t *testing.T) { install(d, t, "--command", binary); d.stop() }},
		{name: "hook binary missing", problem: "does not exist", fixable: true,
			setup: func(d *doctorWS, t *testing.T) { install(d, t, "--command", "/nonexistent/leasedeck") }},
		{name: "hook binary inside the workspace", problem: "inside the workspace", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				b, _ := os.ReadFile(binary)
				os.WriteFile(filepath.Join(d.dir, "leasedeck"), b, 0o755)
				install(d, t, "--command", filepath.Join(d.dir, "leasedeck"))
			}},
		{name: "hook binary a go run build", problem: "temporary 'go run' build", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), binary, "/tmp/go-build1234/b001/exe/leasedeck")
			}},
		{name: "hook binary through PATH", problem: "through its PATH", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), binary, "leasedeck")
			}},
		{name: "hook binary not executable", problem: "not executable", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				p := filepath.Join(t.TempDir(), "leasedeck")
				os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644)
				install(d, t, "--command", p)
			}},
		{name: "an event without its hook", problem: "no leasedeck hook for PreToolUse", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), `"PreToolUse"`, `"NotAnEvent"`)
			}},
		{name: "hook timeout shorter than the approval timeout", problem: "not longer than the approval timeout", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), "--timeout 150", "--timeout 60")
			}},
		{name: "fails open where it could block", problem: "lack it", fixable: true,
			setup: func(d *doctorWS, t *testing.T) { install(d, t, "--command", binary, "--fail-closed=false") }},
		{name: "onFailure on a Claude Code that predates it", problem: "may reject", fixable: true,
			setup: func(d *doctorWS, t *testing.T) {
				d.program(t, "", "claude", "2.1.200 (Claude Code)")
				install(d, t, "--command", binary)
			}},
		{name: "hooks turned off", problem: "disableAllHooks is true",
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), `"hooks": {`, `"disableAllHooks": true, "hooks": {`)
			}},
		{name: "an unpinned hook", problem: "pinned to no workspace",
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), `"PreToolUse": [`, `"PreToolUse": [{"hooks": [{"type": "command", "command": "/opt/leasedeck hook claude-code --timeout 150"}]}, `)
			}},
		{name: "settings not JSON", problem: "cannot read the settings",
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.edit(t, d.settings(t), `"hooks": {`, `"hooks": {{`)
			}},
		{name: "journal cut at its end", problem: "lines were removed at its end",
			setup: func(d *doctorWS, t *testing.T) {
				install(d, t, "--command", binary)
				d.stop()
				p := filepath.Join(d.dir, ".leasedeck", "journal", "audit.jsonl")
				b, _ := os.ReadFile(p)
				os.WriteFile(p, b[:strings.LastIndexByte(string(b[:len(b)-1]), '\n')+1], 0o600)
				d.serv = nil
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDoctorWS(t)
			d.serve()
			d.program(t, "", "claude", "2.1.328 (Claude Code)")
			c.setup(d, t)
			rep, r := d.doctor(t)
			var found *finding
			for _, f := range problems(rep) {
				if strings.Contains(f.Detail, c.problem) {
					found = &f
				}
			}
			if found == nil || r.code != 1 {
				t.Fatalf("exit %d; no problem saying %q in %+v", r.code, c.problem, problems(rep))
			}
			if found.Fix == "" {
				t.Fatalf("problem without a fix: %+v", found)
			}
			if !c.fixable {
				return
			}
			d.applyFix(t, found.Fix)
			rep, _ = d.doctor(t)
			for _, f := range problems(rep) {
				if strings.Contains(f.Detail, c.problem) {
					t.Fatalf("after %q the problem is still there: %+v", found.Fix, f)
				}
			}
		})
	}
}

// applyFix runs a fix doctor printed: its leasedeck commands through the
// test's binary (a serve as the test's registry).
func (d *doctorWS) applyFix(t *testing.T, fix string) {
	t.Helper()
	for _, part := range strings.Split(fix, "&&") {
		// The test's paths need no quoting.
		words := strings.Fields(strings.SplitN(part, "   (", 2)[0])
		if len(words) < 2 || words[0] != "leasedeck" {
			t.Fatalf("the fix %q is not a leasedeck command", fix)
		}
		if words[1] == "serve" {
			d.serve()
			continue
		}
		if words[len(words)-1] == "&" {
			words = words[:len(words)-1]
		}
		if r := d.run("", words[1:]...); r.code != 0 {
			t.Fatalf("fix %q: %+v", fix, r)
		}
	}
}

// doctor never runs a program an agent could have planted: a client found
// through a PATH entry inside the workspace is not run (and said so), and
// the program a hook names is examined, never executed.
func TestDoctorRunsNothingFromTheWorkspace(t *testing.T) {
	d := newDoctorWS(t)
	d.serve()
	planted := filepath.Join(d.dir, "node_modules", ".bin")
	os.MkdirAll(planted, 0o755)
	claude := d.program(t, planted, "claude", "9.9.9 (Claude Code)")
	hook := d.program(t, d.dir, "leasedeck-hook", "x")
	d.env = append(d.env, "PATH="+planted+":.:"+d.bin+":/usr/bin:/bin")
	if r := d.run("", "install", "claude-code", "--command", hook); r.code != 0 {
		t.Fatal(r)
	}
	rep, _ := d.doctor(t)
	for _, p := range []string{claude, hook} {
		if _, err := os.Stat(p + ".ran"); err == nil {
			t.Errorf("doctor ran %s", p)
		}
	}
	var sawSkip, sawInside bool
	for _, f := range rep.Findings {
		sawSkip = sawSkip || (f.Subject == "PATH" && strings.Contains(f.Detail, planted+" (inside the workspace)") && strings.Contains(f.Detail, "relative PATH entry ."))
		sawInside = sawInside || (f.Status == statusProblem && strings.Contains(f.Detail, "inside the workspace"))
		if strings.Contains(f.Detail, "9.9.9") {
			t.Errorf("doctor reported the planted program's version: %+v", f)
		}
	}
	if !sawSkip || !sawInside {
		t.Errorf("skip noted %v, planted hook binary reported %v: %+v", sawSkip, sawInside, rep.Findings)
	}
}

// Observe mode and a client that is installed but not governed are
// reported as notes: they are choices, and exit 0 stays possible.
func TestDoctorNotes(t *testing.T) {
	d := newDoctorWS(t)
	d.edit(t, filepath.Join(d.dir, ".leasedeck", "policy.json"), `"enforce"`, `"observe"`)
	d.serve()
	d.program(t, "", "codex", "codex-cli 0.169.0")
	rep, r := d.doctor(t)
	if r.code != 0 {
		t.Fatalf("exit %d: %+v", r.code, problems(rep))
	}
	var observe, ungoverned bool
	for _, f := range rep.Findings {
		observe = observe || (f.Check == "mode" && f.Status == statusNote && strings.Contains(f.Detail, "observe"))
		ungoverned = ungoverned || (f.Subject == "codex" && f.Status == statusNote && strings.Contains(f.Fix, "leasedeck install codex"))
	}
	if !observe || !ungoverned {
		t.Errorf("observe %v, ungoverned codex %v: %+v", observe, ungoverned, rep.Findings)
	}
}

// Outside a workspace doctor says so, and its fix creates one.
func TestDoctorWithoutAWorkspace(t *testing.T) {
	dir := t.TempDir()
	r := runBinIn(t, dir, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "fix: leasedeck init") {
		t.Fatalf("%+v", r)
	}
	if r := runBin(t, "", "doctor", "extra"); r.code != 2 {
		t.Errorf("usage: %+v", r)
	}
}

func runBinIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(isolatedEnv(t.TempDir()), "HOME="+t.TempDir(), "PATH=/usr/bin:/bin")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}
