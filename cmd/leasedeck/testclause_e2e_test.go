package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// test, [ and [[ are judged alike on a denied operand: each tells the
// agent whether the file exists (real bash prints y only where .env is
// there), so each is refused under the default policy and agent
// manifest, and each stays allowed on an ordinary file.
func TestHookJudgesTestBracketsAlike(t *testing.T) {
	w := newWorkspace(t)
	os.WriteFile(filepath.Join(w.dir, ".env"), []byte("TOKEN=x\n"), 0o600)
	os.WriteFile(filepath.Join(w.dir, "package.json"), []byte("{}\n"), 0o600)
	if bash, err := exec.LookPath("bash"); err == nil {
		for _, dir := range []string{w.dir, t.TempDir()} {
			cmd := exec.Command(bash, "-c", "[[ -f .env ]] && echo y")
			cmd.Dir = dir
			out, _ := cmd.Output()
			if want := map[bool]string{true: "y\n", false: ""}[dir == w.dir]; string(out) != want {
				t.Fatalf("bash in %s printed %q, want %q", dir, out, want)
			}
		}
	}
	w.serve()
	for _, line := range []string{
		"test -e .env && echo y", "[ -f .env ] && echo y", "[[ -f .env ]] && echo y", "[[ -e .env ]]",
		"[[ -s .env ]] || echo empty", "[[ .env -nt package.json ]]", "[[ ! -r ~/.ssh/id_rsa ]]",
		"if [[ -f .env ]]; then echo y; fi", "[[ -f src/x && -f .env ]]", `[[ -f "$PWD/.env" ]]`,
	} {
		if d, why := decision(t, w.hook("claude-code", w.bash(line, ""))); d != "deny" {
			t.Errorf("%s: %s (%s), want refused", line, d, why)
		}
	}
	for _, line := range []string{
		"[ -f package.json ] && npm test", "[[ -f package.json ]] && npm test", "test -f package.json && npm test",
		"if [[ -d src ]]; then ls src; fi", `[[ "$x" == main ]] && echo y`, "[[ -n $HOME ]]", "[[ 1 -eq 1 ]]",
	} {
		if d, why := decision(t, w.hook("claude-code", w.bash(line, ""))); d != "allow" {
			t.Errorf("%s: %s (%s), want allowed", line, d, why)
		}
	}
}
