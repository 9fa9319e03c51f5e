package registry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// CallRules are what every call is held to beyond its lease: deployment
// settings from policy.json, which no manifest can widen.
type CallRules struct {
	// ProtectedWrites are globs (workspace- or home-relative, as deny
	// paths) that no lease may write: files that make a later, ordinary
	// command run a program (git hooks, CI workflows, editor tasks, MCP
	// servers). ImplicitProtectedWrites apply as well, whatever this says.
	ProtectedWrites []string
	// PassSecrets lets a call that carries a credential run without a
	// human seeing it first (policy.json "hold_secrets": false).
	PassSecrets bool
	// ProtectedDirs are absolute directories no call may read, write or
	// name: leasedeck's per-user state (key, token, handshake secret,
	// journal head) and the token directory, wherever the XDG variables put
	// them. A home-relative implicit deny covers those inside the home
	// directory; these cover every place, home or not.
	ProtectedDirs []string
}

// ImplicitProtectedWrites are written by no lease whatever policy.json
// says: leasedeck's own workspace files and every client's hook
// configuration. A write there changes what decides the next call, or what
// runs around it.
var ImplicitProtectedWrites = []string{
	".leasedeck/**",
	".claude/settings*.json", "~/.claude/settings*.json",
	".codex/**", "~/.codex/**",
	".gemini/settings.json", "~/.gemini/settings.json",
	".github/hooks/**", ".vscode/settings.json",
	// Qwen Code's settings hold its hooks; Copilot CLI's user hooks are
	// files under ~/.copilot/hooks.
	".qwen/**", "~/.qwen/**", "~/.copilot/hooks/**",
	// OpenCode and pi run every plugin they find in-process at start: a
	// planted one runs outside the gate, a rewritten leasedeck one lets
	// every call through.
	".opencode/**", "opencode.json", "opencode.jsonc", "~/.config/opencode/**",
	".pi/**", "~/.pi/**",
}

// MaxCallInput is the most the gate reads of a call's input: the bytes of
// its strings and member names, except file content (MaxCallContent). A
// larger input is refused before it is parsed, so no single call can hold
// the registry (a 3 MB shell line took seconds to parse).
const MaxCallInput = 64 << 10

// MaxCallContent bounds the file content a Write, Edit, MultiEdit or
// NotebookEdit carries. Content is never parsed, only scanned for secrets.
const MaxCallContent = 1 << 20

// contentMembers hold file content, not anything the gate parses.
var contentMembers = map[string]bool{"content": true, "old_string": true, "new_string": true, "edits": true,
	"new_source": true, "patch": true}

// EventGateChecked is a dry-run gate decision (`check`): journaled, so
// that probing the gate is visible, and never charged.
const EventGateChecked = "leasedeck.gate.checked"

// oversize says why a call's input is too large to read, or "".
func oversize(call ToolCall) string {
	return oversizeOf(inputSizes(call))
}

// oversizeOf is oversize for the sizes inputSizes counted.
func oversizeOf(parsed, content int) string {
	switch {
	case parsed > MaxCallInput:
		return fmt.Sprintf("the tool input is over %d KiB, the most the gate reads, so it is refused unread", MaxCallInput>>10)
	case content > MaxCallContent:
		return fmt.Sprintf("the file content is over %d MiB, the most the gate scans, so it is refused unread", MaxCallContent>>20)
	}
	return ""
}

// inputSizes counts the bytes of a call's input the gate parses and the
// bytes of file content it only scans, each counted up to past its limit.
func inputSizes(call ToolCall) (parsed, content int) {
	for k, v := range call.Input {
		n := inputBytes(v, MaxCallContent+1)
		if contentMembers[k] && isFileTool(call.Tool) {
			content += n
		} else {
			parsed += len(k) + n
		}
	}
	return parsed, content
}

func isFileTool(tool string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

// inputBytes counts the bytes of the strings and member names in v,
// stopping once past limit.
func inputBytes(v any, limit int) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + inputBytes(e, limit-n)
			if n > limit {
				return n
			}
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += 1 + inputBytes(e, limit-n)
			if n > limit {
				return n
			}
		}
		return n
	}
	return 8
}

// callFacts are what the gate learns from a call before it takes the
// registry's lock: its resources, the credentials in it and the summary
// a human reads. Deriving them is the expensive part of a decision.
type callFacts struct {
	use     resources.Use
	useErr  error
	secrets []redact.Finding
	masked  any // the input with every secret replaced, when secrets holds any
	summary string
	tooBig  string
}

func (s *Service) factsOf(call ToolCall) callFacts {
	return s.cfg.Calls.factsOf(s.cfg.Workspace, call)
}

// factsOf derives the facts of a call made in workspace under these rules.
func (r CallRules) factsOf(workspace string, call ToolCall) callFacts {
	parsed, content := inputSizes(call)
	f := callFacts{tooBig: oversizeOf(parsed, content)}
	f.summary = redact.Summary(call.Tool, call.Input, 200)
	if f.tooBig != "" {
		return f
	}
	// The secret scan and the analysis read the input and write apart:
	// for a large input they run side by side, so that the call's
	// latency is the longer of the two, not their sum. A small one is
	// not worth a goroutine.
	if parsed+content < concurrentScanBytes {
		f.masked, f.secrets = r.scanSecrets(call)
		f.use, f.useErr = resources.FromToolCall(workspace, call.Tool, call.Input)
		r.scanDequoted(&f, call)
		return f
	}
	var masked any
	var secrets []redact.Finding
	done := make(chan struct{})
	go func() {
		defer close(done)
		masked, secrets = r.scanSecrets(call)
	}()
	f.use, f.useErr = resources.FromToolCall(workspace, call.Tool, call.Input)
	<-done
	f.masked, f.secrets = masked, secrets
	r.scanDequoted(&f, call)
	return f
}

// scanDequoted scans a shell line's words as the shell passes them: a
// credential split by quoting ("gh""p_…", $'\x67hp_…', a variable set on
// the line) is held like one written whole, and so is one its programs
// decode (echo -e '\x67hp_…', base64 -d <<< Z2hw…). What the human and
// the journal are shown is then dequotedShown, or decodedFinds.shown,
// since the written line shows the credential in pieces or encoded, which
// no detector masks.
func (r CallRules) scanDequoted(f *callFacts, call ToolCall) {
	if r.PassSecrets {
		return
	}
	creds := dequotedCredentials(f.use)
	decoded := decodedCredentials(f.use)
	if len(creds) == 0 && len(decoded.found) == 0 {
		return
	}
	f.secrets = append(append(f.secrets, creds...), decoded.found...)
	shown := dequotedShown(call)
	if len(decoded.found) > 0 {
		shown = decoded.shown(call) // the dequoted words hold the encoded credential
	}
	f.summary = redact.Summary(call.Tool, map[string]any{"command": shown}, 200)
	f.masked = map[string]any{"command": shown}
}

// dequotedCredentials are the credentials found in a shell line's words
// as the shell passes them (see resources.ShellUse.Dequoted).
func dequotedCredentials(use resources.Use) []redact.Finding {
	if use.Dequoted == "" {
		return nil
	}
	var creds []redact.Finding
	for _, fd := range redact.FindingsInMember("command", use.Dequoted) {
		if fd.Credential() {
			creds = append(creds, fd)
		}
	}
	return creds
}

// dequotedShown is a shell call's command as a person is shown it when
// only its dequoted words reveal a credential: every word dequoted, the
// credential masked.
func dequotedShown(call ToolCall) string {
	cmd, _ := call.Input["command"].(string)
	masked, _ := redact.Redact(resources.DequotedLine(cmd))
	return "(the words as the shell passes them, credential masked) " + masked
}

// scanSecrets is the call's input with every secret masked, and the
// credentials found in it; nothing when the rules let secrets pass.
func (r CallRules) scanSecrets(call ToolCall) (any, []redact.Finding) {
	if r.PassSecrets {
		return nil, nil
	}
	in := scannedInput(call)
	var secrets []redact.Finding
	for _, fd := range redact.FindingsIn(in) {
		// A random-looking run (a lock file's hashes) is masked in
		// what is shown, but holds no call by itself.
		if fd.Credential() {
			secrets = append(secrets, fd)
		}
	}
	if len(secrets) == 0 {
		return nil, nil // nothing held: no masked copy to show
	}
	masked, _ := redact.RedactValue(in)
	return masked, secrets
}

// concurrentScanBytes is the input size from which factsOf scans for
// secrets while the analysis runs.
const concurrentScanBytes = 16 << 10

// decide is the gate's decision for a call whose facts are derived: the
// lease (EvaluateUse), then these rules. The caller holds the registry's
// lock that guards st.
func (r CallRules) decide(st *State, leaseID string, call ToolCall, f callFacts, now time.Time, covered func(string, []string) bool) GateResult {
	return r.apply(EvaluateUse(st, leaseID, call, f.use, f.useErr, now, covered), f)
}

// apply holds res to the call rules: a protected write is refused (deny
// beats everything), and a call that would run while carrying a
// credential is held for a human, who is shown it masked.
func (r CallRules) apply(res GateResult, f callFacts) GateResult {
	if res.Verdict != VerdictAllow && res.Verdict != VerdictAsk {
		return res
	}
	if why := r.protectedDir(res.Use); why != "" {
		res.Verdict, res.Reason, res.Approvals = VerdictDeny, why, nil
		return res
	}
	if why := r.protectedWrite(res.Use); why != "" {
		res.Verdict, res.Reason, res.Approvals = VerdictDeny, why, nil
		return res
	}
	if len(f.secrets) == 0 {
		return res
	}
	names := append([]string(nil), res.Approvals...)
	for _, fd := range f.secrets {
		if n := "secret:" + fd.Kind; !contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	why := "the call carries what looks like a credential (" + describeSecrets(f) + "), so a human must see it before it runs"
	if res.Verdict == VerdictAsk {
		why += "; and " + res.Reason
	}
	res.Verdict, res.Reason, res.Approvals = VerdictAsk, why, names
	return res
}

// protectedDir names the first path of use (read, written, named as an
// argument, or searched by a pattern) inside a protected directory, or "".
func (r CallRules) protectedDir(use resources.Use) string {
	for _, dir := range r.ProtectedDirs {
		for _, list := range [...][]resources.PathRef{use.Reads, use.Writes, use.Mentions} {
			for i := range list {
				if p := &list[i]; p.Under(dir) {
					return fmt.Sprintf("%s is refused: it is inside %s, leasedeck's own state (keys, tokens, the journal's anchors), which no agent may touch", displayPath(*p), dir)
				}
			}
		}
		for _, t := range use.TreeReads {
			if root := t.Root.Abs; root == "/" || slashBelow(dir, root) {
				return fmt.Sprintf("%s reads everything below %s, which holds %s, leasedeck's own state (keys, tokens, the journal's anchors), which no agent may touch", t.Program, displayPath(t.Root), dir)
			}
		}
		for _, g := range use.Globs {
			if g.Abs == dir || slashBelow(g.Abs, dir) || slashBelow(dir, strings.TrimRight(globDir(g.Abs), "/")) {
				return fmt.Sprintf("the pattern %s is refused: it can reach %s, leasedeck's own state, which no agent may touch", g.Pattern, dir)
			}
		}
	}
	return ""
}

// slashBelow is strings.HasPrefix(p, dir+"/"), without building dir+"/".
func slashBelow(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// globDir is the directory part of a pattern before its first wildcard.
func globDir(p string) string {
	if i := strings.IndexAny(p, "*?[{"); i >= 0 {
		p = p[:i]
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return ""
}

// protectedWrite names the first write of use that touches a protected
// path, or returns "".
func (r CallRules) protectedWrite(use resources.Use) string {
	if len(use.Writes) == 0 {
		return ""
	}
	// Compiled once per list and kept (CompileDenyPaths): the lists are
	// matched on every write of every call.
	for _, list := range [][]string{ImplicitProtectedWrites, r.ProtectedWrites} {
		guard := resources.CompileDenyPaths(list)
		for _, p := range use.Writes {
			if pat, ok := guard.WriteTouches(p); ok {
				return fmt.Sprintf("write to %s is refused: %s is protected (a change there decides what runs later)", displayPath(p), pat)
			}
		}
	}
	return ""
}

// describeSecrets says what was found where, with the masked text around
// the first finding: never the secret itself.
func describeSecrets(f callFacts) string {
	var parts []string
	for _, fd := range f.secrets {
		where := fd.Kind
		if fd.Path != "" {
			where += " in " + fd.Path
		}
		if !contains(parts, where) {
			parts = append(parts, where)
		}
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("+%d more", len(parts)-3))
	}
	out := strings.Join(parts, ", ")
	if ex := maskedExcerpt(f.masked, f.secrets[0].Path); ex != "" {
		out += ": " + ex
	}
	return out
}

// maskedExcerpt is the masked string at pointer, cut to the text around
// its first redaction.
func maskedExcerpt(masked any, pointer string) string {
	s, ok := atPointer(masked, pointer).(string)
	if !ok {
		return ""
	}
	i := strings.Index(s, redact.Redacted)
	if i < 0 {
		return ""
	}
	from, to := i-60, i+len(redact.Redacted)+60
	if from < 0 {
		from = 0
	}
	if to > len(s) {
		to = len(s)
	}
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	ex := redact.OneLine(s[from:to], 160)
	if from > 0 {
		ex = "…" + ex
	}
	if to < len(s) {
		ex += "…"
	}
	return ex
}

// atPointer resolves a JSON pointer (as redact.Finding.Path) in v.
func atPointer(v any, pointer string) any {
	if pointer == "" {
		return v
	}
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// scannedInput is the part of a call's input the secret detectors read: a
// Bash call's cwd is the directory the client's shell is in (set by the
// bridge from the hook payload), a path and not content the call carries,
// and a long random-looking directory name must not hold every call.
func scannedInput(call ToolCall) map[string]any {
	if _, ok := call.Input["cwd"]; !ok || call.Tool != "Bash" {
		return call.Input
	}
	in := make(map[string]any, len(call.Input))
	for k, v := range call.Input {
		if k != "cwd" {
			in[k] = v
		}
	}
	return in
}
