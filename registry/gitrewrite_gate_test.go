package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitSteps runs each shell line with real git and bash in dir (an
// isolated home, no system configuration): how a test builds the
// repository an agent would have made, which the gate then reads with its
// own reader.
func gitSteps(t *testing.T, dir string, steps ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n[safe]\n\tdirectory = *\n", 0o644)
	for _, s := range steps {
		c := exec.Command("bash", "-c", s)
		c.Dir = dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
	}
}
