package resources

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// gitVerbTables are subcommands whose table is the union of their verbs'
// options (git stash push, git worktree add …): git reads a prefix against
// one verb's options, so the differential below leaves them out.
var gitVerbTables = map[string]bool{"stash": true, "worktree": true, "remote": true, "notes": true,
	"bundle": true, "sparse-checkout": true, "maintenance": true, "reflog": true, "help": true}

// Random prefixes of the table's options, given to real git followed by
// --git-completion-helper (which git takes only alone, so it stops with
// "unknown option" after parsing the prefix, and nothing runs): where the
// gate reads a prefix as one option, git takes it too; where the gate
// calls it ambiguous, so does git.
func TestGitPrefixesAgreeWithRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if v, _ := exec.Command("git", "version").Output(); strings.TrimSpace(string(v)) != gitOptsVersion {
		t.Skipf("the table is of %s, this is %s", gitOptsVersion, strings.TrimSpace(string(v)))
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C",
		"GIT_EDITOR=false", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	if b, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatal(string(b))
	}
	var subs []string
	for sub := range gitOptsText {
		if !gitVerbTables[sub] && !gitExactOnly[sub] && !gitAbbrevThenForward[sub] && sub != "version" {
			subs = append(subs, sub)
		}
	}
	slices.Sort(subs)
	rng := rand.New(rand.NewPCG(7, 12))
	const samples = 400
	taken, ambiguous := 0, 0
	for range samples {
		sub := subs[rng.IntN(len(subs))]
		opts := strings.Fields(gitOptsText[sub])
		name, takesValue := strings.CutSuffix(opts[rng.IntN(len(opts))], "=")
		prefix := name[:1+rng.IntN(len(name))]
		arg := "--" + prefix
		if takesValue {
			arg += "=1"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "git", sub, arg, "--git-completion-helper")
		cmd.Dir, cmd.Env = dir, env
		out, _ := cmd.CombinedOutput()
		cancel()
		gitAmbiguous := strings.Contains(string(out), "ambiguous option")
		gitUnknown := strings.Contains(string(out), "unknown option `"+prefix+"'") ||
			strings.Contains(string(out), "unknown option '"+prefix+"'")
		if strings.Contains(string(out), "git-completion-helper") {
			taken++ // git parsed the prefix and stopped at the next word
		}
		if gitAmbiguous {
			ambiguous++
		}
		full, why := gitLongOpt(sub, prefix)
		switch {
		case why == "" && (gitAmbiguous || gitUnknown):
			t.Errorf("git %s %s: the gate reads it as --%s, git says %q", sub, arg, full, firstLine(out))
		case strings.Contains(why, "ambiguous") && !gitAmbiguous:
			t.Errorf("git %s %s: the gate calls it ambiguous, git says %q", sub, arg, firstLine(out))
		case why != "" && !strings.Contains(why, "ambiguous"):
			t.Errorf("git %s %s: a prefix of --%s, refused as %q", sub, arg, name, why)
		}
	}
	t.Logf("%d prefixes: git took %d, called %d ambiguous", samples, taken, ambiguous)
	if taken < samples/4 || ambiguous == 0 {
		t.Fatalf("git took %d of %d prefixes and called %d ambiguous: the probe tested little", taken, samples, ambiguous)
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}
