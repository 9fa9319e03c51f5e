package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

// TestCopilotCLIShellKeepsNoState: the gate resolves each Copilot CLI bash
// call against the payload's cwd, as a fresh shell would; that holds only
// while the client starts every call in a fresh shell in the project
// directory, even one that names a shellId of an earlier, async call. A
// `cd` or an `export` must not carry over to the next call.
func TestCopilotCLIShellKeepsNoState(t *testing.T) {
	requireClientE2E(t, "copilot")
	copilot := client(t, copilotClient)
	e := governedWorkspace(t, "github-copilot")
	e.install("copilot", "--scope", "user")
	e.write("src/src/keep", "x\n")
	sh := func(cmd string, async bool) fakemodel.Step {
		return fakemodel.Step{Calls: []fakemodel.Call{{Name: "bash", Input: map[string]any{
			"command": cmd, "description": "scripted", "shellId": "s1", "async": async}}}}
	}
	srv := fakemodel.NewChat(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		sh("cd src", true),
		sh("pwd > src/where.txt", false),
		sh("export ZZ=carried", true),
		sh(`echo "x$ZZ" > src/zz.txt`, true),
		{Text: "All done."},
	}})
	defer srv.Close()
	run := e.runClient(3*time.Minute, copilotVars(e, srv.URL), copilot, copilotArgs("Go. "+fakemodel.Marker("main"))...)
	if run.code != 0 || !contains(run.stdout, "All done.") {
		t.Fatalf("copilot -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	if b, err := os.ReadFile(e.path("src/where.txt")); err != nil || string(b) != e.ws+"\n" {
		t.Errorf("the second call did not start in the project directory: %q %v (a cd carried over?)", b, err)
	}
	if b, err := os.ReadFile(e.path("src/zz.txt")); err != nil || string(b) != "x\n" {
		t.Errorf("the fourth call saw the third's export: %q %v", b, err)
	}
}
