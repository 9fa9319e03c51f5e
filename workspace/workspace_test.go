package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFindUpwardAndOverrides(t *testing.T) {
	isolate(t)
	t.Setenv(EnvWorkspace, "")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	if _, err := Init(root); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b", "c")
	os.MkdirAll(deep, 0o755)
	w, err := Find("", deep)
	if err != nil || w.Root != root {
		t.Fatalf("Find from below: %v %v", w, err)
	}
	other, _ := filepath.EvalSymlinks(t.TempDir())
	if _, err := Find("", other); err != ErrNotFound {
		t.Fatalf("Find outside: %v", err)
	}
	if _, err := Find(other, deep); err == nil {
		t.Fatal("--workspace without .leasedeck accepted")
	}
	t.Setenv(EnvWorkspace, root)
	if w, err := Find("", other); err != nil || w.Root != root {
		t.Fatalf("LEASEDECK_WORKSPACE: %v %v", w, err)
	}
}

func TestInitIsIdempotentAndPrivate(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	res, err := Init(root)
	if err != nil || len(res.Created) == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	again, err := Init(root)
	if err != nil || len(again.Created) != 0 {
		t.Fatalf("second init created %v (%v)", again.Created, err)
	}
	w := res.Workspace
	if st, _ := os.Stat(w.KeyPath()); st.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v", st.Mode())
	}
	s, err := w.LoadSettings()
	if err != nil || s.Mode != "enforce" || s.ApprovalTimeout != 2*time.Minute {
		t.Fatalf("default settings: %+v %v", s, err)
	}
	if _, err := w.LoadKey(); err != nil {
		t.Fatal(err)
	}
	for _, c := range Clients {
		if _, err := w.LoadAgent(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	if _, err := w.LoadAgent("../key"); err == nil {
		t.Error("agent name with a path accepted")
	}
	tok, err := w.LoadToken()
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q %v", tok, err)
	}
}

func TestPolicyErrorsNameThePointer(t *testing.T) {
	isolate(t)
	res, _ := Init(t.TempDir())
	w := res.Workspace
	for body, want := range map[string]string{
		`{"root": {"schema_version": "1.2"}}`: "/root",
		`{"mode": "enforce"}`:                 "/root",
		`[1]`:                                 "JSON object",
		`{"root": `:                           "invalid JSON",
		`{"root": ` + mustRoot(t, w) + `, "approval_timeout_ms": -5}`:       "/approval_timeout_ms",
		`{"root": ` + mustRoot(t, w) + `, "mode": "yolo"}`:                  "/mode",
		`{"root": ` + mustRoot(t, w) + `, "default_lifetime_ms": "long"}`:   "/default_lifetime_ms",
		`{"root": ` + mustRoot(t, w) + `, "max_pending_approvals": 0}`:      "/max_pending_approvals",
		`{"root": ` + mustRoot(t, w) + `, "max_pending_approvals": 5000}`:   "/max_pending_approvals",
		`{"root": ` + mustRoot(t, w) + `, "max_connections": 0}`:            "/max_connections",
		`{"root": ` + mustRoot(t, w) + `, "max_connections": 1e6}`:          "/max_connections",
		`{"root": ` + mustRoot(t, w) + `, "connection_idle_ms": 10}`:        "/connection_idle_ms",
		`{"root": ` + mustRoot(t, w) + `, "connection_idle_ms": "long"}`:    "/connection_idle_ms",
		`{"root": ` + mustRoot(t, w) + `, "approvals": "client"}`:           "/approvals",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {"where": "agent"}}`: "/approvals/where",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {"where": 1}}`:       "/approvals/where",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {"who": "me"}}`:      "/approvals/who",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {"a/b": "me"}}`:      "/approvals/a~1b",
	} {
		os.WriteFile(w.PolicyPath(), []byte(body), 0o600)
		if _, err := w.LoadSettings(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v (want %q)", body, err, want)
		}
		if _, err := w.LoadPolicy(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadPolicy %s: %v (want %q)", body, err, want)
		}
	}
}

var rootJSON string

func mustRoot(t *testing.T, w Workspace) string {
	if rootJSON == "" {
		b, _ := os.ReadFile(w.PolicyPath())
		s := string(b)
		i := strings.Index(s, `"root": `) + len(`"root": `)
		j := strings.LastIndex(s, "}")
		rootJSON = strings.TrimSpace(s[i:j])
		if k := strings.LastIndex(rootJSON, "}"); k >= 0 {
			rootJSON = rootJSON[:k+1]
		}
	}
	return rootJSON
}

func TestApprovalsWhereSetting(t *testing.T) {
	isolate(t)
	res, _ := Init(t.TempDir())
	w := res.Workspace
	for body, want := range map[string]string{
		`{"root": ` + mustRoot(t, w) + `}`:                                    "cockpit",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {}}`:                   "cockpit",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {"where": "cockpit"}}`: "cockpit",
		`{"root": ` + mustRoot(t, w) + `, "approvals": {"where": "client"}}`:  "client",
	} {
		os.WriteFile(w.PolicyPath(), []byte(body), 0o600)
		if st, err := w.LoadSettings(); err != nil || st.ApproveIn != want {
			t.Errorf("%s: %q %v, want %q", body, st.ApproveIn, err, want)
		}
	}
}

func TestMaxPendingApprovalsSetting(t *testing.T) {
	isolate(t)
	res, _ := Init(t.TempDir())
	w := res.Workspace
	st, err := w.LoadSettings()
	if err != nil || st.MaxPendingApprovals != 0 {
		t.Fatalf("default: %+v %v", st.MaxPendingApprovals, err)
	}
	os.WriteFile(w.PolicyPath(), []byte(`{"root": `+mustRoot(t, w)+`, "max_pending_approvals": 2}`), 0o600)
	if st, err := w.LoadSettings(); err != nil || st.MaxPendingApprovals != 2 {
		t.Fatalf("set to 2: %+v %v", st.MaxPendingApprovals, err)
	}
}

func TestConnectionSettings(t *testing.T) {
	isolate(t)
	res, _ := Init(t.TempDir())
	w := res.Workspace
	st, err := w.LoadSettings()
	if err != nil || st.MaxConnections != 0 || st.ConnectionIdle != 0 {
		t.Fatalf("default: %+v %v", st, err)
	}
	os.WriteFile(w.PolicyPath(), []byte(`{"root": `+mustRoot(t, w)+`, "max_connections": 8, "connection_idle_ms": 30000}`), 0o600)
	if st, err := w.LoadSettings(); err != nil || st.MaxConnections != 8 || st.ConnectionIdle != 30*time.Second {
		t.Fatalf("set: %+v %v", st, err)
	}
}

func TestSnapshotSettings(t *testing.T) {
	isolate(t)
	res, _ := Init(t.TempDir())
	w := res.Workspace
	if st, err := w.LoadSettings(); err != nil || st.SnapshotEvery != 0 || st.SnapshotInterval != 0 {
		t.Fatalf("default: %+v %v", st, err)
	}
	os.WriteFile(w.PolicyPath(), []byte(`{"root": `+mustRoot(t, w)+`, "snapshot_every_lines": 5000, "snapshot_interval_ms": 60000}`), 0o600)
	if st, err := w.LoadSettings(); err != nil || st.SnapshotEvery != 5000 || st.SnapshotInterval != time.Minute {
		t.Fatalf("set: %+v %v", st, err)
	}
	for _, bad := range []string{`"snapshot_every_lines": 10`, `"snapshot_every_lines": "many"`, `"snapshot_interval_ms": 5`, `"snapshot_interval_ms": -1`} {
		os.WriteFile(w.PolicyPath(), []byte(`{"root": `+mustRoot(t, w)+`, `+bad+`}`), 0o600)
		var pe *PolicyError
		if _, err := w.LoadSettings(); !errors.As(err, &pe) || !strings.HasPrefix(pe.Pointer, "/snapshot_") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
