package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// An agent under the default claude-code lease, in a workspace whose
// repository has .env (denied) committed, gives .env's blob a new name
// and prints it: a note made from the blob, shown by git log; an index
// entry planted with --cacheinfo, shown as :src/e or written out by
// checkout-index. Through the built hook against a real registry, the
// planting line is refused before it runs, and once real git has planted
// it (shown to print the secret), so is every line that prints it.
func TestHookRefusesDeniedContentUnderAnotherName(t *testing.T) {
	hookRefusesDeniedContent(t, binary, "")
}

// The same chains in a repository whose history is past the bounds of the
// walk for denied content (twelve commits on top of the one that holds
// .env, under a registry built with a bound of six commits): an ordinary
// content command is judged, not held, and every chain is still refused.
func TestHookRefusesDeniedContentPastTheBounds(t *testing.T) {
	hookRefusesDeniedContent(t, boundedBinary(t), "for i in $(seq 1 12); do echo $i > filler && git add filler && git commit -qm f$i; done")
}

// boundedBinary is leasedeck built with bounds of 6 commits and 100,000
// entries for its reading of git objects (set at link time: the shipped
// binary has no such setting).
func boundedBinary(t *testing.T) string {
	t.Helper()
	boundedOnce.Do(func() {
		boundedPath = filepath.Join(filepath.Dir(binary), "leasedeck-bounded")
		out, err := exec.Command("go", "build", "-ldflags", "-X github.com/leasedeck/leasedeck/registry/internal/gitbound.linked=6,100000",
			"-o", boundedPath, ".").CombinedOutput()
		if err != nil {
			boundedErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if boundedErr != nil {
		t.Fatalf("building leasedeck with test bounds: %v", boundedErr)
	}
	return boundedPath
}

var (
	boundedOnce sync.Once
	boundedPath string
	boundedErr  error
)

func hookRefusesDeniedContent(t *testing.T, serveExe, filler string) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	const secret = "SECRET=hunter2-e2e"
	for _, tc := range []struct {
		name, plant string
		prints      []string
	}{
		{"notes", "git notes add -C BLOB HEAD", []string{"git log", "git show -s HEAD", "git notes show", "git log --notes"}},
		{"cacheinfo", "git update-index --add --cacheinfo 100644,BLOB,src/e", []string{"git show :src/e", "git checkout-index src/e && cat src/e", "git diff --cached -- src"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			home := t.TempDir()
			sh := func(line string) string {
				t.Helper()
				c := exec.Command("bash", "-c", line)
				c.Dir = w.dir
				c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat",
					"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
				out, _ := c.CombinedOutput()
				return string(out)
			}
			if out := sh("git init -q . && mkdir -p src && echo 'package a' > src/a.go && echo " + secret + " > .env && git add .env src && git commit -qm one && git rev-parse HEAD"); len(strings.TrimSpace(out)) != 40 {
				t.Fatalf("setting up the repository: %s", out)
			}
			if filler != "" {
				if out := sh(filler + " && git rev-list --count HEAD"); strings.TrimSpace(out) != "13" {
					t.Fatalf("setting up the history: %s", out)
				}
			}
			blob := strings.TrimSpace(sh("git hash-object .env"))
			w.serveOn(serveExe)
			decide := func(line string) string {
				t.Helper()
				r := w.hook("claude-code", w.payload("claude-code", "PreToolUse", func(m map[string]any) {
					m["tool_input"].(map[string]any)["command"] = line
				}))
				return r.stdout + r.stderr
			}
			for _, line := range []string{"git log --oneline", "git show HEAD:src/a.go", "git show HEAD -- src"} {
				if got := decide(line); !strings.Contains(got, `"permissionDecision":"allow"`) {
					t.Fatalf("%s before the plant: %s", line, got)
				}
			}
			if filler != "" {
				// The bounds are in force: a command whose own reach is past
				// them is held (exit 5 from a dry-run check).
				lease := w.issue(filepath.Join(w.dir, ".leasedeck", "agents", "claude-code.json"), "")
				r := w.run("", "check", "--lease", lease, "--tool", "Bash", "--input", `{"command":"git log -p -- src"}`)
				if r.code != 5 || !strings.Contains(r.stdout+r.stderr, "more than 6 commits") {
					t.Fatalf("git log -p -- src past the bounds: exit %d, %s%s, want it held", r.code, r.stdout, r.stderr)
				}
			}
			plant := strings.ReplaceAll(tc.plant, "BLOB", blob)
			if got := decide(plant); !strings.Contains(got, `"permissionDecision":"deny"`) {
				t.Errorf("%q: %s, want it refused", plant, got)
			}
			sh(plant)
			for _, line := range tc.prints {
				if out := sh(line); !strings.Contains(out, secret) {
					t.Errorf("%q: real git does not print the secret, so the line is no attack:\n%s", line, out)
				}
				got := decide(line)
				if !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, "content of .env") {
					t.Errorf("%q: %s, want it refused as the content of .env", line, got)
				}
			}
			if err := os.Remove(filepath.Join(w.dir, "src", "e")); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		})
	}
}
