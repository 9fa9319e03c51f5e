package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shell runs a command line in the workspace the way an agent's Bash
// tool would, with the workspace's environment.
func (w *wsEnv) shell(line string) string {
	w.t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = w.dir, w.env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func (w *wsEnv) secrets() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	for _, name := range []string{"key", "token", "handshake.key"} {
		b, err := os.ReadFile(filepath.Join(w.stateDir(), name))
		if err != nil {
			w.t.Fatal(err)
		}
		out[name] = strings.TrimSpace(string(b))
	}
	return out
}

// What an agent's own commands reach in the workspace and the user's
// config directory holds no secret: the key, the operator token and the
// handshake secret live in the state directory.
func TestAgentReachesNoSecretFromTheWorkspace(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	secrets := w.secrets()
	got := w.shell(`find . -name key -path '*leasedeck*' -exec cat {} +; find . -type f -exec cat {} +; grep -rh "" "$XDG_CONFIG_HOME" 2>/dev/null; ` +
		`git init -q . && git add -f . && git show :.leasedeck/key; git grep -h "" $(git write-tree) 2>/dev/null`)
	for name, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("the %s is reachable from the workspace:\n%s", name, got)
		}
	}
	if !strings.Contains(got, "enforce") {
		t.Fatalf("the commands did not read the workspace at all:\n%s", got)
	}
}

// A workspace of the previous layout (key in .leasedeck/key, token under
// the config directory) moves both on its first start, says so once, and
// keeps its journal verifiable.
func TestLegacyWorkspaceMigratesOnFirstStart(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	w.stop()
	secrets := w.secrets()
	id := filepath.Base(w.stateDir())
	legacyToken := filepath.Join(w.cfg, "leasedeck", "tokens", id)
	os.MkdirAll(filepath.Dir(legacyToken), 0o700)
	os.WriteFile(legacyToken, []byte(secrets["token"]+"\n"), 0o600)
	os.WriteFile(filepath.Join(w.dir, ".leasedeck", "key"), []byte(secrets["key"]+"\n"), 0o600)
	os.Remove(filepath.Join(w.stateDir(), "key"))
	os.Remove(filepath.Join(w.stateDir(), "token"))

	said := strings.Join(w.serve(), "\n")
	for _, want := range []string{"moved the deployment key", "moved the operator token", w.stateDir()} {
		if !strings.Contains(said, want) {
			t.Errorf("first start does not say %q:\n%s", want, said)
		}
	}
	for _, p := range []string{filepath.Join(w.dir, ".leasedeck", "key"), legacyToken} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("old copy %s left behind (%v)", p, err)
		}
	}
	if got := w.secrets(); got["key"] != secrets["key"] || got["token"] != secrets["token"] {
		t.Error("the secrets changed in the move")
	}
	w.stop()
	if said := strings.Join(w.serve(), "\n"); strings.Contains(said, "moved") {
		t.Errorf("second start says it moved something again:\n%s", said)
	}
	w.stop()
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Errorf("journal verify after the move: %+v", r)
	}
	if r := w.run("", "status"); r.code != 4 {
		t.Errorf("status with no registry: %+v", r)
	}
}
