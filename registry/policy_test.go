package registry

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/handshake"
)

// policyFixture is a service started from a whole Policy, as serve does.
func policyFixture(t *testing.T, source func() (Policy, error)) *fixture {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := &fixture{t: t, dir: root, key: testKey(t), clk: &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}}
	p, err := source()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := Open(Config{Workspace: root, JournalDir: filepath.Join(root, ".leasedeck", "journal"),
		LockPath: filepath.Join(root, "registry.lock"), Key: f.key, Now: f.clk.Now,
		Policy: &p, PolicySource: source, HandshakeKey: []byte(strings.Repeat("h", 64))})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	t.Cleanup(func() { svc.Close() })
	return f
}

func testPolicy(t *testing.T, hash, mode string, steps int64) Policy {
	return Policy{Root: policyManifest(t), DefaultLifetime: time.Hour, ApprovalTimeout: 3 * time.Second, Mode: mode, Hash: hash,
		Agents:      map[string]any{"claude-code": agentManifest("from the registry", steps, nil)},
		AgentHashes: map[string]string{"claude-code": strings.Repeat("a", 64)},
		AgentFor: func(c string) string {
			if c == "claude" {
				return "claude-code"
			}
			return c
		}}
}

func policyLines(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ".leasedeck", "journal", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		json.Unmarshal(sc.Bytes(), &m)
		if m["event_type"] == EventPolicyLoaded {
			out = append(out, m)
		}
	}
	return out
}

func TestPolicyLoadsAreJournaledAndOnlyTheOperatorReloads(t *testing.T) {
	current := testPolicy(t, strings.Repeat("1", 64), "enforce", 10)
	broken := false
	f := policyFixture(t, func() (Policy, error) {
		if broken {
			return Policy{}, errors.New("policy.json: /root: missing")
		}
		return current, nil
	})
	lines := policyLines(t, f.dir)
	if len(lines) != 1 {
		t.Fatalf("policy lines at start: %v", lines)
	}
	d := lines[0]["details"].(map[string]any)
	if d["policy_sha256"] != current.Hash || d["by"] != "start" || d["mode"] != "enforce" || d["agent_claude_code_sha256"] != strings.Repeat("a", 64) {
		t.Errorf("start line details %v", d)
	}

	// A session's lease comes from the registry's copy of the agent's
	// manifest, whatever the caller sends.
	wide := agentManifest("from the caller", 99999, func(m map[string]any) { m["allow"].(map[string]any)["write_paths"] = []any{"**"} })
	res, err := f.svc.Admit(AdmitRequest{Client: "claude", Session: "s1", Manifest: wide})
	if err != nil || !res.Allowed {
		t.Fatalf("admit: %v %+v", err, res)
	}
	v, _ := f.svc.View(res.LeaseID)
	if name := v.Declared["agent"].(map[string]any)["name"]; name != "from the registry" {
		t.Errorf("lease declared by %v, not by the registry's agents/claude-code.json", name)
	}
	if _, err := f.svc.Admit(AdmitRequest{Client: "codex", Session: "s2", Manifest: wide}); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a client with no agent file in the policy: %v", err)
	}

	// A reload puts the new policy in force and journals it.
	current = testPolicy(t, strings.Repeat("2", 64), "observe", 10)
	info, err := f.svc.ReloadPolicyFromSource("operator")
	if err != nil || info.Mode != "observe" || info.Hash != current.Hash || f.svc.Mode() != "observe" {
		t.Fatalf("reload: %v %+v", err, info)
	}
	if got := f.svc.approvalTimeout(); got != 3*time.Second {
		t.Errorf("approval timeout %v", got)
	}
	// A reload that cannot read the files leaves the policy in force.
	broken = true
	if _, err := f.svc.ReloadPolicyFromSource("operator"); err == nil || !strings.Contains(err.Error(), "stays") {
		t.Fatalf("broken reload: %v", err)
	}
	if f.svc.PolicyInfo().Hash != current.Hash {
		t.Error("a failed reload changed the policy")
	}
	lines = policyLines(t, f.dir)
	if len(lines) != 2 || lines[1]["details"].(map[string]any)["by"] != "operator" || lines[1]["request_hash"] != current.Hash {
		t.Fatalf("policy lines: %v", lines)
	}
	// An invalid policy is refused before anything is written.
	if _, err := f.svc.ReloadPolicy(Policy{Root: policyManifest(t), Mode: "off"}, "operator"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("mode off: %v", err)
	}
	if n := len(policyLines(t, f.dir)); n != 2 {
		t.Errorf("%d policy lines after a refused reload", n)
	}
}

func TestHelloProvesTheRegistry(t *testing.T) {
	f := policyFixture(t, func() (Policy, error) { return testPolicy(t, strings.Repeat("1", 64), "observe", 10), nil })
	nonce, _ := handshake.NewNonce()
	a, err := f.svc.Hello(nonce)
	if err != nil {
		t.Fatal(err)
	}
	target := handshake.Target{Workspace: f.dir, Key: []byte(strings.Repeat("h", 64))}
	if err := target.Check(a, nonce, os.Getpid()); err != nil {
		t.Fatalf("the registry's own answer is refused: %v", err)
	}
	if a.Mode != "observe" || a.ApprovalTimeoutMs != 3000 {
		t.Errorf("answer %+v", a)
	}
	other, _ := handshake.NewNonce()
	if err := target.Check(a, other, os.Getpid()); err == nil {
		t.Error("a proof for one nonce accepted for another")
	}
	for _, bad := range []string{"", "short"} {
		if _, err := f.svc.Hello(bad); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("nonce %q: %v", bad, err)
		}
	}
}
