package bridge

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

var verdicts = []struct {
	name string
	v    Verdict
}{
	{"allow", Verdict{Kind: Allow, Context: "leasedeck lease L-1: write src/**; run go, git; hosts: none; budget 40 steps"}},
	{"allow+warning", Verdict{Kind: Allow, Warnings: []string{"telemetry unavailable: cost is null"}}},
	{"deny", Verdict{Kind: Deny, Reason: "write outside the lease: /etc/hosts is not under write_paths [src/**]"}},
	{"block", Verdict{Kind: Block, Reason: "lease L-1 was revoked by the operator"}},
	{"ask", Verdict{Kind: Ask, Reason: "git push needs a human (approvals: command:git)"}},
	{"fail", Verdict{Kind: Fail, Reason: "registry error", Warnings: []string{"leasedeck: registry error"}}},
	{"no-opinion", Verdict{Kind: NoOpinion}},
}

func renderAll(a Adapter) []byte {
	var b bytes.Buffer
	for _, spec := range a.Events() {
		ev := &Event{Client: a.Name(), Native: spec.Native, Op: spec.Op, Gate: spec.Gate}
		for _, vc := range verdicts {
			out := a.Render(ev, vc.v)
			fmt.Fprintf(&b, "== %s %s\nexit %d\n", spec.Native, vc.name, out.ExitCode)
			if len(out.Stdout) > 0 {
				fmt.Fprintf(&b, "stdout %s", out.Stdout)
			}
			if len(out.Stderr) > 0 {
				fmt.Fprintf(&b, "stderr %s", out.Stderr)
			}
		}
	}
	return b.Bytes()
}

// TestGoldenRenders pins the native output and exit code for every handled
// event × verdict of every client (testdata/golden/<client>.txt; run with
// -update to rewrite after an intended change, then read the diff).
func TestGoldenRenders(t *testing.T) {
	for _, client := range Clients() {
		a, _ := AdapterFor(client)
		got := renderAll(a)
		path := filepath.Join("testdata", "golden", client+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestGoldenRenders -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: rendered output differs from %s:\n%s", client, path, firstDiff(string(want), string(got)))
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

// assertRefused checks that out is a refusal the client really honours
// (clients.md, "Testing against the real …" sections), and never exit 1.
func assertRefused(t *testing.T, client, native string, out Output) {
	t.Helper()
	if out.ExitCode == 1 {
		t.Fatalf("%s %s: exit 1 used to refuse (clients treat it as a non-blocking error)", client, native)
	}
	if out.ExitCode == 2 {
		if len(bytes.TrimSpace(out.Stderr)) == 0 {
			t.Fatalf("%s %s: exit 2 with an empty stderr is ignored by Codex and Gemini", client, native)
		}
		if client == "claude-code" && native == "PermissionRequest" {
			t.Fatalf("claude-code PermissionRequest does not honour exit 2")
		}
		if client != "gemini" {
			return
		}
	}
	var o map[string]any
	if err := json.Unmarshal(out.Stdout, &o); err != nil {
		t.Fatalf("%s %s: stdout %q is not a JSON object: %v", client, native, out.Stdout, err)
	}
	hso, _ := o["hookSpecificOutput"].(map[string]any)
	switch {
	case IsPluginClient(client):
		// leasedeck's own plugin runs the call only on allow or none.
		if r, _ := o["reason"].(string); (o["decision"] != "deny" && o["decision"] != "block") || strings.TrimSpace(r) == "" || out.ExitCode != 0 {
			t.Fatalf("%s %s refusal: %s exit %d", client, native, out.Stdout, out.ExitCode)
		}
	case client == "gemini":
		if o["decision"] != "deny" || o["reason"] == "" || out.ExitCode != 2 {
			t.Fatalf("gemini refusal: %s exit %d", out.Stdout, out.ExitCode)
		}
	case client == "copilot":
		// Copilot CLI drops the reason of a non-zero exit: only the
		// top-level JSON carries it to the model.
		r, _ := o["permissionDecisionReason"].(string)
		if o["permissionDecision"] != "deny" || strings.TrimSpace(r) == "" || out.ExitCode != 0 {
			t.Fatalf("copilot refusal: %s exit %d", out.Stdout, out.ExitCode)
		}
	case native == "PermissionRequest":
		d, _ := hso["decision"].(map[string]any)
		if hso["hookEventName"] != "PermissionRequest" || d["behavior"] != "deny" || d["message"] == "" {
			t.Fatalf("%s PermissionRequest refusal: %s", client, out.Stdout)
		}
	default:
		r, _ := hso["permissionDecisionReason"].(string)
		if hso["hookEventName"] != native || hso["permissionDecision"] != "deny" || strings.TrimSpace(r) == "" {
			t.Fatalf("%s %s refusal: %s", client, native, out.Stdout)
		}
	}
}

// Properties every rendered output has, whatever the golden files say.
func TestRenderProperties(t *testing.T) {
	for _, client := range Clients() {
		a, _ := AdapterFor(client)
		for _, spec := range a.Events() {
			ev := &Event{Client: client, Native: spec.Native, Op: spec.Op, Gate: spec.Gate}
			for _, vc := range verdicts {
				out := a.Render(ev, vc.v)
				name := client + " " + spec.Native + " " + vc.name
				// stdout is empty or exactly one JSON object.
				if len(out.Stdout) > 0 {
					var o map[string]any
					if err := json.Unmarshal(out.Stdout, &o); err != nil {
						t.Errorf("%s: stdout not a JSON object: %q", name, out.Stdout)
					}
					if client == "codex" {
						checkCodexKeys(t, name, spec.Native, o)
					}
					if client == "gemini" {
						hso, _ := o["hookSpecificOutput"].(map[string]any)
						if _, ok := hso["permissionDecision"]; ok {
							t.Errorf("%s: Gemini ignores permissionDecision", name)
						}
						if o["decision"] == "ask" {
							t.Errorf("%s: decision ask hangs a headless Gemini", name)
						}
					}
				}
				if client == "vscode" && out.ExitCode == 0 && len(out.Stdout) == 0 {
					t.Errorf("%s: VS Code parses stdout at exit 0; it must be JSON", name)
				}
				if out.ExitCode != 0 && out.ExitCode != 2 {
					t.Errorf("%s: exit %d on a known event", name, out.ExitCode)
				}
				if spec.Gate && (vc.v.Kind == Deny || vc.v.Kind == Block || vc.v.Kind == Fail) {
					assertRefused(t, client, spec.Native, out)
				}
				// A gate that allows must not say deny, and nothing but a
				// gate may be refused with exit 2 (on Stop it would keep the
				// agent going; on SessionStart it means nothing).
				if !spec.Gate && out.ExitCode == 2 {
					t.Errorf("%s: exit 2 on a non-gate event", name)
				}
				if spec.Op == OpFinalize || spec.Op == OpAbort || spec.Op == OpTelemetry {
					if bytes.Contains(out.Stdout, []byte(`"decision"`)) || bytes.Contains(out.Stdout, []byte(`"continue":false`)) {
						t.Errorf("%s: a decision on a stop/end event: %s", name, out.Stdout)
					}
				}
				if vc.v.Kind == Allow && spec.Gate && bytes.Contains(out.Stdout, []byte("deny")) {
					t.Errorf("%s: allow rendered as %s", name, out.Stdout)
				}
			}
		}
	}
}

// checkCodexKeys: Codex marks a hook failed (and runs the tool) on any
// output key it does not document for the event.
func checkCodexKeys(t *testing.T, name, native string, o map[string]any) {
	t.Helper()
	top := map[string]bool{"hookSpecificOutput": true}
	switch native {
	case "PostToolUse", "UserPromptSubmit":
		top["decision"], top["reason"] = true, true
	}
	if codexSystemMessage[native] {
		top["systemMessage"] = true
	}
	for k := range o {
		if !top[k] {
			t.Errorf("%s: Codex output key %q is not documented for %s", name, k, native)
		}
	}
	hso, _ := o["hookSpecificOutput"].(map[string]any)
	allowed := map[string]bool{"hookEventName": true, "additionalContext": true}
	switch native {
	case "PreToolUse":
		allowed["permissionDecision"], allowed["permissionDecisionReason"] = true, true
		if d, ok := hso["permissionDecision"]; ok && d != "deny" {
			t.Errorf("%s: Codex honours only permissionDecision deny (without updatedInput), got %v", name, d)
		}
	case "PermissionRequest":
		allowed = map[string]bool{"hookEventName": true, "decision": true}
		if d, ok := hso["decision"].(map[string]any); ok {
			for k := range d {
				if k != "behavior" && k != "message" {
					t.Errorf("%s: PermissionRequest decision.%s is reserved and fails closed", name, k)
				}
			}
		}
	}
	keys := make([]string, 0, len(hso))
	for k := range hso {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !allowed[k] {
			t.Errorf("%s: hookSpecificOutput.%s is not documented for Codex %s", name, k, native)
		}
	}
	if len(hso) > 0 && hso["hookEventName"] != native {
		t.Errorf("%s: hookEventName %v", name, hso["hookEventName"])
	}
}

func TestVerdictFor(t *testing.T) {
	gate := &Event{Native: "PreToolUse", Op: OpPreTool, Gate: true}
	resp := func(d Decision) Response {
		return Response{Op: "pre-tool", SchemaVersion: SchemaVersion, Decision: d, Reason: "r"}
	}
	for d, want := range map[Decision]VerdictKind{
		DecisionAllow: Allow, DecisionDeny: Deny, DecisionBlock: Block, DecisionError: Deny,
		DecisionRecorded: Deny, DecisionCertified: Deny,
	} {
		if got := VerdictFor(gate, resp(d)).Kind; got != want {
			t.Errorf("gate %s → %s, want %s", d, got, want)
		}
	}
	observed := resp(DecisionAllow)
	observed.IntegrationMode = ModeObservedOnly
	if got := VerdictFor(gate, observed).Kind; got != NoOpinion {
		t.Errorf("observed_only allow → %s: leasedeck must not approve what it only observes", got)
	}
	post := &Event{Native: "PostToolUse", Op: OpPostTool}
	if got := VerdictFor(post, resp(DecisionRecorded)).Kind; got != NoOpinion {
		t.Errorf("post recorded → %s", got)
	}
	if got := VerdictFor(post, resp(DecisionBlock)).Kind; got != Block {
		t.Errorf("post block → %s", got)
	}
	fin := &Event{Native: "Stop", Op: OpFinalize}
	for _, d := range []Decision{DecisionCertified, DecisionNonCertified} {
		if got := VerdictFor(fin, resp(d)).Kind; got != NoOpinion {
			t.Errorf("finalize %s → %s", d, got)
		}
	}
	if v := VerdictFor(fin, resp(DecisionError)); v.Kind != Fail || len(v.Warnings) == 0 {
		t.Errorf("finalize error → %+v", v)
	}
	if got := VerdictFor(nil, resp(DecisionAllow)).Kind; got != NoOpinion {
		t.Errorf("nil event → %s", got)
	}
}

func TestUnreachable(t *testing.T) {
	for _, client := range Clients() {
		a, _ := AdapterFor(client)
		for _, spec := range a.Events() {
			ev := &Event{Client: client, Native: spec.Native, Op: spec.Op, Gate: spec.Gate}
			for _, mode := range []string{"enforce", "observe", ""} {
				r := Unreachable(mode, ev)
				if err := r.Validate(); err != nil {
					t.Fatalf("%s %s %s: %v", client, spec.Native, mode, err)
				}
				out := a.Render(ev, VerdictFor(ev, r))
				all := string(out.Stdout) + string(out.Stderr)
				if spec.Gate {
					if mode != "observe" {
						if r.Decision != DecisionDeny || !strings.Contains(r.Reason, StartHint) {
							t.Errorf("%s: enforce unreachable = %+v", spec.Native, r)
						}
						assertRefused(t, client, spec.Native, out)
						if !strings.Contains(all, "leasedeck serve") {
							t.Errorf("%s %s: the refusal does not say how to start the cockpit: %s", client, spec.Native, all)
						}
					} else {
						if r.Decision != DecisionAllow || len(r.Warnings) == 0 {
							t.Errorf("%s: observe unreachable = %+v", spec.Native, r)
						}
						if out.ExitCode != 0 || strings.Contains(all, `"deny"`) || strings.Contains(all, `"allow"`) {
							t.Errorf("%s %s observe: %+v (must neither refuse nor approve)", client, spec.Native, out)
						}
					}
				}
			}
		}
	}
	if r := Unreachable("enforce", nil); r.Validate() != nil || r.Decision != DecisionError {
		t.Errorf("nil event: %+v", r)
	}
}
