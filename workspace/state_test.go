package workspace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/workspace/locate"
)

// isolate points the config and state homes at fresh, short directories
// (a Unix socket path is short) and clears the workspace override.
func isolate(t *testing.T) (config, state string) {
	t.Helper()
	base, err := os.MkdirTemp("", "ldws")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	base, _ = filepath.EvalSymlinks(base)
	config, state = filepath.Join(base, "c"), filepath.Join(base, "s")
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv(EnvStateHome, state)
	t.Setenv(EnvWorkspace, "")
	return config, state
}

func TestSecretsLiveOutsideTheWorkspace(t *testing.T) {
	_, state := isolate(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	res, err := Init(root)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Workspace
	if want := filepath.Join(state, "leasedeck", w.ID()); w.StateDir() != want {
		t.Fatalf("state dir %s, want %s", w.StateDir(), want)
	}
	for _, p := range []string{w.KeyPath(), w.TokenPath(), w.HandshakeKeyPath(), w.HeadPath(), w.CheckpointKeyPath(),
		w.SnapshotDir(), w.LockPath(), w.SocketPath()} {
		if strings.HasPrefix(p, root) || !strings.HasPrefix(p, w.StateDir()+"/") {
			t.Errorf("%s is not in the state directory", p)
		}
	}
	// Nothing in the workspace holds the key, the token or the handshake
	// secret (what `find . -exec cat {} +` or `git add -f .` would reach).
	secrets := map[string][]byte{}
	for _, p := range []string{w.KeyPath(), w.TokenPath(), w.HandshakeKeyPath()} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		secrets[p] = bytes.TrimSpace(b)
		if st, _ := os.Stat(p); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", p, st.Mode())
		}
	}
	for _, d := range []string{w.StateDir(), filepath.Dir(w.StateDir())} {
		if st, _ := os.Stat(d); runtime.GOOS != "windows" && st.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v", d, st.Mode())
		}
	}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for name, s := range secrets {
			if bytes.Contains(b, s) {
				t.Errorf("%s holds the secret of %s", p, name)
			}
		}
		return nil
	})
	if _, err := os.Stat(w.LegacyKeyPath()); !os.IsNotExist(err) {
		t.Errorf("init wrote %s", w.LegacyKeyPath())
	}
}

func TestMigrationMovesKeyAndTokenOnce(t *testing.T) {
	config, _ := isolate(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	res, err := Init(root)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Workspace
	// Make it look like a workspace of the previous layout.
	key, _ := os.ReadFile(w.KeyPath())
	token, _ := os.ReadFile(w.TokenPath())
	os.Remove(w.KeyPath())
	os.Remove(w.TokenPath())
	os.WriteFile(w.LegacyKeyPath(), key, 0o600)
	legacyToken := filepath.Join(config, "leasedeck", "tokens", w.ID())
	os.MkdirAll(filepath.Dir(legacyToken), 0o700)
	os.WriteFile(legacyToken, token, 0o600)
	if p, _ := w.LegacyTokenPath(); p != legacyToken {
		t.Fatalf("legacy token path %s", p)
	}

	notes, err := w.Migrate()
	if err != nil || len(notes) != 2 {
		t.Fatalf("migrate: %v %q", err, notes)
	}
	for _, n := range notes {
		if !strings.Contains(n, "moved the") || !strings.Contains(n, w.StateDir()) {
			t.Errorf("note %q", n)
		}
	}
	if got, _ := os.ReadFile(w.KeyPath()); !bytes.Equal(got, key) {
		t.Error("key not moved intact")
	}
	if got, _ := w.LoadToken(); got != strings.TrimSpace(string(token)) {
		t.Error("token not moved intact")
	}
	for _, p := range []string{w.LegacyKeyPath(), legacyToken, filepath.Dir(legacyToken)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
	// Said once: a second start has nothing to say.
	if notes, err := w.Migrate(); err != nil || len(notes) != 0 {
		t.Fatalf("second migrate: %v %q", err, notes)
	}
	// A key planted in the workspace later is not the deployment key.
	os.WriteFile(w.LegacyKeyPath(), []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	notes, err = w.Migrate()
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "without using it") {
		t.Fatalf("planted key: %v %q", err, notes)
	}
	if got, _ := os.ReadFile(w.KeyPath()); !bytes.Equal(got, key) {
		t.Error("a planted key replaced the deployment key")
	}
	if _, err := os.Stat(w.LegacyKeyPath()); !os.IsNotExist(err) {
		t.Error("planted key left in the workspace")
	}
}

func TestStateDirectoryInsideTheWorkspaceIsRefused(t *testing.T) {
	isolate(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	t.Setenv(EnvStateHome, filepath.Join(root, "state"))
	if _, err := Init(root); err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Fatalf("init with the state inside the workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "state")); !os.IsNotExist(err) {
		t.Error("created a state directory inside the workspace")
	}
}

func TestPolicyCannotLiftTheImplicitDeny(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(EnvStateHome, filepath.Join(home, "st"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	res, err := Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := res.Workspace
	// The operator's policy file drops every deny.
	var pol map[string]any
	b, _ := os.ReadFile(w.PolicyPath())
	json.Unmarshal(b, &pol)
	pol["root"].(map[string]any)["deny"].(map[string]any)["paths"] = []any{}
	b, _ = json.Marshal(pol)
	os.WriteFile(w.PolicyPath(), b, 0o600)

	p, err := w.LoadPolicy()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"~/st/leasedeck/**", "~/cfg/leasedeck/**", "~/.local/state/leasedeck/**", "~/.config/leasedeck/**"} {
		if !slices.Contains(p.Root.Deny.Paths, want) {
			t.Errorf("root deny %v lacks %s", p.Root.Deny.Paths, want)
		}
	}
	dirs := ProtectedDirs()
	for _, want := range []string{filepath.Join(home, "st", "leasedeck"), filepath.Join(home, "cfg", "leasedeck")} {
		if !slices.Contains(dirs, want) {
			t.Errorf("protected dirs %v lack %s", dirs, want)
		}
	}
	if len(p.Hash) != 64 || len(p.Agents) != len(Clients) || len(p.AgentHashes) != len(Clients) {
		t.Errorf("policy %s, agents %v", p.Hash, p.AgentNames())
	}
}

// A deep state home (a long $HOME, as in a test's temporary directory)
// must not make init fail: the socket moves to a short private directory
// of this user's, the same one for every process of the workspace, and the
// gate denies it like the state directory.
func TestLongStatePathPutsTheSocketInAShortPrivateDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("private directory modes are Unix")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	deep := filepath.Join(base, strings.Repeat("d", 60), strings.Repeat("e", 40))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "c"))
	t.Setenv(EnvStateHome, deep)
	t.Setenv(EnvWorkspace, "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	res, err := Init(root)
	if err != nil {
		t.Fatalf("init with a deep state home: %v", err)
	}
	w := res.Workspace
	sock := w.SocketPath()
	if len(sock) > locate.MaxSocketPath {
		t.Fatalf("socket path %s is %d bytes", sock, len(sock))
	}
	if strings.HasPrefix(sock, w.StateDir()) {
		t.Fatalf("socket %s stayed in the too-long state directory", sock)
	}
	st, err := os.Stat(filepath.Dir(sock))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory %s: %v %v", filepath.Dir(sock), err, st)
	}
	again, err := Find(root, "")
	if err != nil || again.SocketPath() != sock {
		t.Fatalf("another process finds socket %q (%v), want %q", again.SocketPath(), err, sock)
	}
	if !slices.Contains(ProtectedDirs(), filepath.Dir(sock)) {
		t.Errorf("the socket directory %s is not protected: %v", filepath.Dir(sock), ProtectedDirs())
	}
}
