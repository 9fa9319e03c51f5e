package registry

import (
	"testing"
	"time"
)

// childEnvLines assign a variable that a program the allowed ones start
// reads as code or as where its code lives: git's editor (vim runs
// VIMINIT and EXINIT as Ex commands, `:!cmd` among them), its pager (less
// runs LESS's `+!cmd` and reads key bindings from LESSKEYIN), gpg for a
// signed commit (GNUPGHOME: gpg.conf names agent programs), man and info
// for git help (MANOPT --html=cmd), the JVM, rustc and cargo. Under the
// strict lease (no interpreter, no editor) each runs a program the line
// never names.
var childEnvLines = []string{
	"VIMINIT=':!id' git commit --allow-empty",
	"EXINIT=':!id' git commit --allow-empty",
	"export VIMINIT=':!id'; git tag -a v9",
	"env GVIMINIT=':!id' git commit --allow-empty",
	"MYVIMRC=src/x git commit --allow-empty",
	"VIMRUNTIME=src git commit --allow-empty",
	"VIM=src git commit --allow-empty",
	"LESS='+!id' git log",
	"LESSKEYIN=src/keys git log",
	"LESSKEY=src/keys git log",
	"LESSEDIT='id' git log",
	"LESSHISTFILE=.claude/settings.json git log",
	"GNUPGHOME=src/gpg git commit -S --allow-empty -m x",
	"MANOPT='--html=id' git help log",
	"MANPATH=src git help log",
	"MANROFFOPT='-U' git help log",
	"INFOPATH=src git help -i log",
	"INFO_PRINT_COMMAND=id git help -i log",
	"declare -x HTMLPAGER=id; git help log",
	"JAVA_TOOL_OPTIONS=-javaagent:src/a.jar git status",
	"_JAVA_OPTIONS=-javaagent:src/a.jar git status",
	"JDK_JAVA_OPTIONS=-javaagent:src/a.jar git status",
	"RUSTC_WRAPPER=src/x git status",
	"RUSTC=src/x git status",
	"RUSTFLAGS='-C linker=src/x' git status",
	"CARGO_HOME=src git status",
	"SVN_EDITOR=id git status",
	"DIFF_PAGER=id git status",
	"FOO_COMMAND=id git status",
	"FOO_CMD=id git status",
	"FOO_PROGRAM=id git status",
}

func TestGateRefusesVariablesThatChildProgramsRunAsCode(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws := shellWorkspace(t)
	s := shellState(t, now)
	for _, cmd := range childEnvLines {
		if res := evalBash(t, s, ws, "strict", cmd, now); res.Verdict == VerdictAllow {
			t.Errorf("%q allowed (%s), want it refused or held", cmd, res.Reason)
		}
	}
	// Variables that name no program and hold no code stay allowed.
	for _, cmd := range []string{
		"LESSCHARSET=utf-8 git log", "LC_ALL=C git log", "TZ=UTC git log", "NO_COLOR=1 git status",
		"export NODE_ENV=test && git status", "GIT_AUTHOR_NAME=x git commit -m x",
		`build_cmd="git status"; echo "$build_cmd"`,
	} {
		if res := evalBash(t, s, ws, "strict", cmd, now); res.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", cmd, res.Verdict, res.Reason)
		}
	}
}
