package registry

import (
	"testing"
	"time"
)

// shellModeLines change how bash reads the rest of the script or what
// its words name, through set's own options or a shell's invocation:
// each must be refused or held. The planted src/ls of the strict lease's
// workspace, the workspace's .env and a home directory's key are what
// they reach.
var shellModeLines = []string{
	// set: the options go on after a mode's name, and each o of a
	// cluster takes one.
	"set -o pipefail -k; ls PATH=src", "set -e -o pipefail -k; ls PATH=src", "set -oo pipefail keyword; ls PATH=src",
	"set -o errexit -o posix", "set -eo pipefail -o keyword; ls PATH=src",
	// History expansion: !$:s/X/n/ is the last word of the line before,
	// edited.
	"set -H -o history\n: .eXv\ncat !$:s/X/n/", "set -o history -o histexpand\n: .eXv\ncat !$:s/X/n/",
	"set -Ho history\n: .eXv\ncat !$:s/X/n/", "set -o pipefail -H", "set -o history; set -H\n: x\n!$:s/x/id/",
	// A shell's invocation.
	"bash -k -c 'ls PATH=src'", "bash -ek -c 'ls PATH=src'", "bash -o keyword -c 'ls PATH=src'", "sh -k -c 'ls PATH=src'",
	"bash -o posix -c ls", "bash --posix -c ls", "bash -H -o history -c ls",
	"bash -c 'set -H -o history\n: .eXv\ncat !$:s/X/n/'", "bash -c 'set -o pipefail -k; ls PATH=src'",
	"bash -O cdable_vars -c 'cd HOME && cat .ssh/id_rsa'", "bash -O nocaseglob -c 'cat .E*'",
	"bash -O lastpipe -c 'x=0; cat src/a.go | read x; ((x))'", "bash -O expand_aliases -c ls", "bash -O extdebug -c ls",
	"bash -O \"$m\" -c ls", "bash -o \"$m\" -c ls", "bash --rcfile src/x -i", "bash --init-file src/x -c ls",
	"bash --rcfile=src/x -i", "bash --debugger -c ls",
}

// shellModeOrdinary stay allowed.
var shellModeOrdinary = []string{
	"set -euo pipefail; ls", "set -e -o pipefail; ls", "set -o", "set +o", "set -- a b", "set -x; ls", "set +H; ls",
	"set +o histexpand; ls", "bash -c ls", "bash -lc ls", "bash -ec 'ls src'", "bash -o pipefail -c ls",
	"bash -O extglob -c ls", "bash -O globstar -c 'ls src'", "bash -euo pipefail -c ls", "bash +O extglob -c ls",
	"sh -c 'ls src'", "bash -O nullglob -c 'ls src/*.go'",
}

func TestGateShellModes(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws := shellWorkspace(t)
	s := shellState(t, now)
	s.Leases["shells"] = &LeaseState{ID: "shells", Status: Granted, Granted: shellLease(t, "bash", "sh"), IssuedAt: now, ExpiresAt: now.Add(time.Hour)}
	for _, cmd := range shellModeLines {
		if res := evalBash(t, s, ws, "shells", cmd, now); res.Verdict == VerdictAllow {
			t.Errorf("%q allowed (%s), want it refused or held", cmd, res.Reason)
		}
	}
	for _, cmd := range shellModeOrdinary {
		if res := evalBash(t, s, ws, "shells", cmd, now); res.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", cmd, res.Verdict, res.Reason)
		}
	}
}
