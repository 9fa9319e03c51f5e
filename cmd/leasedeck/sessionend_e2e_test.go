package main

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A SessionEnd hook the client gives only a moment (Codex: 1 s by
// default, at most 3 s; Claude Code: 1.5 s shared) still reaches the
// registry and ends the session's lease, with either hook program, with
// the timeout install writes and with none (the client's default).
func TestShortSessionEndHookEndsTheLease(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	defer w.stop()
	for i, c := range []struct {
		client  string
		timeout []string
	}{
		{"codex", nil}, {"codex", []string{"--timeout", "3"}}, {"codex", []string{"--timeout", "1"}},
		{"claude-code", nil}, {"claude-code", []string{"--timeout", "2"}},
	} {
		for j, exe := range hookPrograms() {
			session := fmt.Sprintf("short-end-%s-%d-%d", c.client, i, j)
			set := func(m map[string]any) { m["session_id"] = session }
			args := append([]string{"hook", c.client, "--workspace", w.dir}, c.timeout...)
			before := w.leases()
			if r := w.runExe(exe, w.payload(c.client, "SessionStart", set), args...); r.code != 0 {
				t.Fatalf("%s %v SessionStart: %+v", c.client, c.timeout, r)
			}
			id := ""
			for _, l := range w.leases() {
				if _, old := before[l.ID]; !old && l.Live && l.ParentID == "" {
					id = l.ID
				}
			}
			if id == "" {
				t.Fatalf("%s %v: SessionStart issued no lease for session %s", c.client, c.timeout, session)
			}
			r := w.runExe(exe, w.payload(c.client, "SessionEnd", set), args...)
			if r.code != 0 {
				t.Fatalf("%s %v SessionEnd: %+v", c.client, c.timeout, r)
			}
			if l := w.leases()[id]; l.Live {
				b, _ := json.Marshal(l)
				t.Errorf("%s %v (%s): the session's lease is still live after SessionEnd: %s; hook said %s %s", c.client, c.timeout, exe, b, r.stdout, r.stderr)
			}
		}
	}
}
