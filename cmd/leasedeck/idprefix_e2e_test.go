package main

import (
	"strings"
	"testing"
)

// Lease ids may be given by any unique prefix, as the cockpit and `leases`
// show them; an ambiguous prefix is refused with the candidates listed.
func TestLeaseIDPrefixes(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	root := w.issue(w.writeManifest("root", 50, nil), "")
	child := w.issue(w.writeManifest("child", 20, nil), root[:8])
	if got := w.leases()[child].ParentID; got != root {
		t.Fatalf("issue --parent %s: parent %q, want %q", root[:8], got, root)
	}
	if r := w.run("", "check", "--lease", child[:8], "--tool", "Bash", "--input", `{"command":"git status"}`); r.code != 0 {
		t.Fatalf("check --lease %s: exit %d\n%s", child[:8], r.code, r.stderr)
	}
	// Issue until two ids begin with the same character (at most 17 for
	// hex ids), then that character is an ambiguous prefix.
	byFirst := map[byte][]string{root[0]: {root}}
	byFirst[child[0]] = append(byFirst[child[0]], child)
	var shared []string
	for i := 0; shared == nil && i < 40; i++ {
		id := w.issue(w.writeManifest("root", 5, nil), "")
		byFirst[id[0]] = append(byFirst[id[0]], id)
		if len(byFirst[id[0]]) == 2 {
			shared = byFirst[id[0]]
		}
	}
	if shared == nil {
		t.Fatal("no two lease ids share a first character")
	}
	r := w.run("", "revoke", shared[0][:1], "--reason", "which one?")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "ambiguous") ||
		!strings.Contains(r.stderr, shared[0]) || !strings.Contains(r.stderr, shared[1]) {
		t.Fatalf("revoke %s: exit %d, want %d listing %v\n%s", shared[0][:1], r.code, exitInvalid, shared, r.stderr)
	}
	if st := w.leases()[shared[0]].Status; st == "revoked" {
		t.Fatal("an ambiguous prefix revoked a lease")
	}
	if r := w.run("", "revoke", root[:8], "--reason", "done"); r.code != 0 || !strings.Contains(r.stdout, root) {
		t.Fatalf("revoke %s: exit %d\n%s%s", root[:8], r.code, r.stdout, r.stderr)
	}
	if r := w.run("", "check", "--lease", "zz-no-such", "--tool", "Bash", "--input", `{"command":"ls"}`); r.code != exitInvalid || !strings.Contains(r.stderr, "unknown lease") {
		t.Fatalf("check of an unknown prefix: exit %d\n%s", r.code, r.stderr)
	}
}
