package setup

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/leasedeck/leasedeck/bridge"
)

// ClientFacts is what leasedeck knows of a client beyond its hook
// formats: the program a user runs, and what the client does with a hook
// that cannot answer (the binary is gone, it crashes, it times out). The
// bridge answers "deny" itself on every error it can see; these are the
// failures it cannot, where only the client decides.
type ClientFacts struct {
	// Programs are the names the client is started by, looked for on PATH.
	Programs []string
	// Failure says, for an installed version ("" when unknown) and the
	// hooks found, whether a failing hook blocks the call.
	Failure func(version string, hooks []InstalledHook) FailureMode
}

// FailureMode is the answer of ClientFacts.Failure.
type FailureMode struct {
	Blocks bool   // a hook that cannot answer blocks the gated call
	Known  bool   // false: no version, or no facts for it
	Detail string // what happens, in one sentence, with its source version
	// Fix is what would make it block: install flags ("--fail-closed"),
	// "" when no setting of this client can.
	Fix string
	// Wrong is set when the hooks carry a setting this version rejects
	// or ignores badly (Claude Code before 2.1.295 and onFailure).
	Wrong string
}

// claudeFailClosedSince is the first Claude Code that honours
// onFailure: "block" (clients.md, 1.1).
const claudeFailClosedSince = "2.1.295"

// Facts answers the facts for a client (by its adapter name); ok is false
// for a client leasedeck has no facts about.
func Facts(client string) (ClientFacts, bool) {
	f, ok := clientFacts[client]
	return f, ok
}

var clientFacts = map[string]ClientFacts{
	"claude-code": {Programs: []string{"claude"}, Failure: claudeFailure},
	"codex": {Programs: []string{"codex"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Detail: "Codex marks a hook that is missing, exits other than 0 or 2, or times out as failed and runs the tool (fails open); no setting changes that"}
	}},
	"gemini": {Programs: []string{"gemini"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Detail: "Gemini CLI (0.61) blocks when the hook binary is missing (bash exits 127 with a message) but runs the tool when the hook exits 1 or times out (fails open); no setting changes that"}
	}},
	"vscode": {Programs: []string{"code"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Detail: "VS Code treats a hook exit other than 0 or 2 (a missing binary included) as a warning and runs the tool (fails open); no setting changes that"}
	}},
	"qwen-code": {Programs: []string{"qwen"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Detail: "Qwen Code (0.24) runs the tool when the hook is missing, exits other than 0 or 2, prints garbage or times out (fails open); it has no onFailure setting"}
	}},
	"opencode": {Programs: []string{"opencode"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Blocks: true, Detail: "leasedeck's plugin refuses the call when its hook cannot start, exits non-zero, answers nothing readable or outlives the plugin's timer; but OpenCode (1.18) skips a plugin that fails to load and runs ungoverned"}
	}},
	"pi": {Programs: []string{"pi"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Blocks: true, Detail: "leasedeck's extension refuses the call when its hook cannot start, exits non-zero, answers nothing readable or outlives the extension's timer, and pi (0.73) refuses to start when an extension fails to load"}
	}},
	"copilot": {Programs: []string{"copilot"}, Failure: func(string, []InstalledHook) FailureMode {
		return FailureMode{Known: true, Detail: "Copilot CLI (1.0.102) blocks when a preToolUse command hook is missing, crashes or exits non-zero, but runs the tool when it times out or prints output it cannot parse (fails open on those)"}
	}},
}

// claudeFailure: Claude Code blocks on a failing command or HTTP hook only
// with onFailure "block", honoured from 2.1.295; before that a hook that
// cannot start, exits other than 0/2 or times out is a non-blocking error.
func claudeFailure(version string, hooks []InstalledHook) FailureMode {
	gates := map[string]bool{}
	for _, s := range claudeEvents() {
		if s.Gate {
			gates[s.Native] = true
		}
	}
	blockAll, blockAny := true, false
	for _, h := range hooks {
		if !h.Ours || !gates[h.Event] {
			continue
		}
		if h.OnFailure == "block" {
			blockAny = true
		} else {
			blockAll = false
		}
	}
	blockAll = blockAll && blockAny
	cmp, ok := CompareVersions(version, claudeFailClosedSince)
	switch {
	case !ok && blockAll:
		return FailureMode{Detail: "the gate hooks carry onFailure: block, which Claude Code " + claudeFailClosedSince + "+ honours (the installed version is unknown)"}
	case !ok:
		return FailureMode{Detail: "the gate hooks have no onFailure: block, so a hook that cannot run lets the call through", Fix: "--fail-closed"}
	case cmp >= 0 && blockAll:
		return FailureMode{Known: true, Blocks: true, Detail: fmt.Sprintf("Claude Code %s honours onFailure: block on the gate hooks: a hook that cannot run, crashes or times out blocks the call", version)}
	case cmp >= 0:
		return FailureMode{Known: true, Detail: fmt.Sprintf("Claude Code %s supports onFailure: block, but the gate hooks lack it: a hook that cannot run or times out lets the call through", version), Fix: "--fail-closed"}
	case blockAny:
		return FailureMode{Known: true, Detail: fmt.Sprintf("Claude Code %s is older than %s: it does not know onFailure and runs the call when a hook cannot answer (fails open)", version, claudeFailClosedSince),
			Wrong: fmt.Sprintf("the hooks carry onFailure, which Claude Code %s (before %s) may reject", version, claudeFailClosedSince), Fix: "--fail-closed=false"}
	default:
		return FailureMode{Known: true, Detail: fmt.Sprintf("Claude Code %s is older than %s: a hook that cannot run or times out lets the call through (fails open); upgrading Claude Code makes it blockable", version, claudeFailClosedSince)}
	}
}

var versionRE = lazyRegexp(`\b(\d+)\.(\d+)(?:\.(\d+))?`)

// VersionIn finds the first dotted version number in a program's
// --version output ("2.1.328 (Claude Code)", "codex-cli 0.169.0").
func VersionIn(out string) string {
	return versionRE().FindString(strings.TrimSpace(out))
}

// CompareVersions compares two dotted versions numerically: -1, 0 or 1,
// and ok false when either has no version number.
func CompareVersions(a, b string) (int, bool) {
	pa, pb := versionRE().FindStringSubmatch(a), versionRE().FindStringSubmatch(b)
	if pa == nil || pb == nil {
		return 0, false
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			if x < y {
				return -1, true
			}
			return 1, true
		}
	}
	return 0, true
}

// claudeEvents are Claude Code's hook events, as its adapter maps them.
func claudeEvents() []bridge.EventSpec {
	a, _ := bridge.AdapterFor("claude-code")
	return a.Events()
}

// lazyRegexp compiles expr on first use, not when a program that links
// this package starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
