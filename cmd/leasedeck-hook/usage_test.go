package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/hookrun"
)

// A wrong command line is a usage error (exit 2) that says what this
// binary runs; it never reads stdin or answers for a client.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing", nil, "runs only leasedeck's hooks"},
		{"another command", []string{"serve"}, `"serve" is not a command`},
		{"no client", []string{"hook"}, "expected one client"},
		{"two clients", []string{"hook", "claude-code", "codex"}, "expected one client"},
		{"unknown client", []string{"hook", "emacs", "--workspace", "/w"}, "unknown client"},
		{"unknown flag", []string{"hook", "claude-code", "--workspce", "/w"}, "workspce"},
		{"bad timeout", []string{"hook", "claude-code", "--timeout", "soon"}, "timeout"},
	} {
		var out, errb bytes.Buffer
		stdin := strings.NewReader(`{"hook_event_name":"PreToolUse"}`)
		code := run(c.args, hookrun.Streams{Stdin: stdin, Stdout: &out, Stderr: &errb})
		if code != exitUsage || out.Len() != 0 || !strings.Contains(errb.String(), c.want) || !strings.Contains(errb.String(), "usage: leasedeck-hook hook") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q (want exit %d and %q)", c.name, code, out.String(), errb.String(), exitUsage, c.want)
		}
		if stdin.Len() == 0 {
			t.Errorf("%s: the payload was read", c.name)
		}
	}
}

// Flags go before or after the client, as with `leasedeck hook`.
func TestParseFlagOrder(t *testing.T) {
	for _, args := range [][]string{
		{"claude-code", "--workspace", "/w", "--timeout", "9"},
		{"--workspace", "/w", "claude-code", "--timeout", "9"},
		{"--workspace=/w", "--timeout=9", "--", "claude-code"},
	} {
		inv, err := parse(args)
		if err != nil || inv != (hookrun.Invocation{Client: "claude-code", Workspace: "/w", Timeout: 9}) {
			t.Errorf("%v: %+v %v", args, inv, err)
		}
	}
}
