package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

var claudeDialect = dialect{
	client: "claude-code", agent: "claude-code",
	read: func(e *env, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "Read", Input: map[string]any{"file_path": e.path(rel)}}
	},
	write: func(e *env, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "Write", Input: map[string]any{"file_path": e.path(rel), "content": content + "\n"}}
	},
	shell:     bash,
	errorFlag: true,
}

// overheadCase is one client's timing setup.
type overheadCase struct {
	name     string
	npm      npmClient
	d        dialect
	settings string // the hook settings file leasedeck install writes
	server   func() *fakemodel.Server
	vars     func(e *env, url string) []string
	args     func(prompt string) []string
}

// leasedeckCommand matches the hook command leasedeck install writes, as a
// JSON string.
var leasedeckCommand = regexp.MustCompile(`"[^"]*leasedeck(-hook)? hook [a-z-]+ [^"]*--timeout [0-9]+"`)

// benchCalls is the number of tool calls in the timed session.
const benchCalls = 20

// benchSteps: 20 allowed calls — reads, writes inside write_paths, and
// shell commands every client runs without asking — then a final answer.
func benchSteps(e *env, d dialect, name string) []fakemodel.Step {
	var steps []fakemodel.Step
	for i := 0; i < benchCalls; i++ {
		var c fakemodel.Call
		switch i % 3 {
		case 0:
			c = d.read(e, "src/hello.txt")
		case 1:
			c = d.write(e, fmt.Sprintf("src/%s_%d.txt", name, i), "bench "+strconv.Itoa(i))
		default:
			c = d.shell("ls src")
		}
		steps = append(steps, fakemodel.Step{Calls: []fakemodel.Call{c}})
	}
	return append(steps, fakemodel.Step{Text: "Bench done."})
}

// TestOverhead times a 20-tool-call scripted session for each client with
// no hooks, with a no-op hook on the same events (what any hook costs in
// that client), and with leasedeck's hooks (for Claude Code both its
// command hooks and its HTTP hooks, target HTTP/none ≤ 1.05×, and the same
// HTTP hooks answered by a server that does no work), and logs the wall-time ratio
// of the medians (target leasedeck/none ≤ 1.2×). The order of the three
// rotates every round so load drift hits all of them. The client process's
// wall time is measured: start to exit, as a user sees it.
// LEASEDECK_E2E_RUNS sets the runs per side (default 5).
func TestOverhead(t *testing.T) {
	requireHeavy(t)
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("LEASEDECK_E2E_RUNS")); err == nil && n > 0 {
		runs = n
	}
	cases := []overheadCase{
		{name: "claude-code", npm: claudeClient, d: claudeDialect, settings: ".claude/settings.json",
			server: func() *fakemodel.Server { return fakemodel.NewAnthropic() },
			vars:   claudeVars,
			args: func(p string) []string {
				// acceptEdits on both sides, so Claude Code's own permission
				// flow allows the writes without leasedeck too.
				return []string{"-p", p, "--model", "claude-sonnet-4-5", "--permission-mode", "acceptEdits"}
			}},
		{name: "codex", npm: codexClient, d: codexDialect, settings: ".codex/hooks.json",
			server: func() *fakemodel.Server { return fakemodel.NewOpenAI() }, vars: codexVars, args: codexArgs},
		{name: "gemini", npm: geminiClient, d: geminiDialect, settings: ".gemini/settings.json",
			server: func() *fakemodel.Server { return fakemodel.NewGemini() }, vars: geminiVars, args: geminiArgs},
	}
	var report []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exe := client(t, c.npm)
			e := governedWorkspace(t, c.d.agent)
			settings := e.path(c.settings)
			sides := map[string][]byte{"none": nil}
			modes := []string{"leasedeck", "none", "noop"}
			if c.d.client == "claude-code" {
				// Claude Code's default is HTTP hooks; the command hooks
				// are timed too.
				e.install(c.d.client)
				b, err := os.ReadFile(settings)
				if err != nil {
					t.Fatal(err)
				}
				sides["leasedeck-http"] = b
				modes = append(modes, "leasedeck-http")
				// The same HTTP hooks answered by a server that does no
				// work: what the client itself spends on them.
				fixed := leasedeckCommand.ReplaceAll(b, []byte(`"cat > /dev/null"`))
				sides["fixed-http"] = hookURL.ReplaceAll(fixed, []byte(fixedAnswerServer(t)+"/"))
				modes = append(modes, "fixed-http")
				// --tool-outcomes=false: the same gate, no PostToolUse.
				e.install(c.d.client, "--tool-outcomes=false")
				if sides["leasedeck-http-lean"], err = os.ReadFile(settings); err != nil {
					t.Fatal(err)
				}
				modes = append(modes, "leasedeck-http-lean")
				e.install(c.d.client, "--command-hooks")
			} else {
				e.install(c.d.client)
			}
			installed, err := os.ReadFile(settings)
			if err != nil {
				t.Fatal(err)
			}
			// The same events and matchers, with a hook that reads its input
			// and decides nothing: what any hook costs in this client.
			noop := leasedeckCommand.ReplaceAll(installed, []byte(`"cat > /dev/null"`))
			if string(noop) == string(installed) {
				t.Fatalf("no leasedeck command found in %s", installed)
			}
			sides["noop"], sides["leasedeck"] = noop, installed
			// LEASEDECK_E2E_SIDES=none,leasedeck-http,… times only those.
			if only := os.Getenv("LEASEDECK_E2E_SIDES"); only != "" {
				modes = slices.DeleteFunc(modes, func(m string) bool { return !slices.Contains(strings.Split(only, ","), m) })
			}
			srv := c.server()
			defer srv.Close()
			vars := c.vars(e, srv.URL)
			took, cpu := map[string][]time.Duration{}, map[string][]time.Duration{}
			for i := 0; i < runs; i++ {
				for j := range modes {
					mode := modes[(i+j)%len(modes)] // rotate the order each round
					if sides[mode] == nil {
						os.Remove(settings)
					} else {
						os.WriteFile(settings, sides[mode], 0o600)
					}
					name := fmt.Sprintf("bench%d_%d", i, j)
					srv.AddScript(fakemodel.Script{Name: name, Steps: benchSteps(e, c.d, name)})
					args := c.args("Run the bench. " + fakemodel.Marker(name))
					// LEASEDECK_E2E_DEBUG_DIR=DIR keeps Claude Code's debug log
					// of each run (hook POSTs and answers, with timestamps).
					if dir := os.Getenv("LEASEDECK_E2E_DEBUG_DIR"); dir != "" && c.d.client == "claude-code" {
						args = append(args, "--debug-file", filepath.Join(dir, fmt.Sprintf("%s-%d.log", mode, i)))
					}
					allowed := len(e.auditLines(`"event_type":"leasedeck.gate.allowed"`))
					r := e.runClient(3*time.Minute, vars, exe, args...)
					os.WriteFile(settings, installed, 0o644)
					if r.code != 0 || !strings.Contains(r.stdout, "Bench done.") {
						t.Fatalf("%s %s (hooks: %s): exit %d\nstdout: %s\nstderr: %s", c.name, name, mode, r.code, tail(r.stdout, 2000), tail(r.stderr, 2000))
					}
					// Every side must have done the same work: every call ran.
					for s := 0; s < benchCalls; s++ {
						rs, ok := srv.ResultsAfter(name, s)
						if !ok || len(rs) != 1 || rs[0].IsError || strings.Contains(rs[0].Text, "blocked") {
							t.Fatalf("%s %s (hooks: %s) step %d did not run cleanly: %+v", c.name, name, mode, s, rs)
						}
					}
					for s := 1; s < benchCalls; s += 3 {
						if !exists(e.path(fmt.Sprintf("src/%s_%d.txt", name, s))) {
							t.Fatalf("%s %s: the write of step %d did not happen", c.name, name, s)
						}
					}
					// leasedeck's sides journaled every call before it ran.
					if n := len(e.auditLines(`"event_type":"leasedeck.gate.allowed"`)) - allowed; strings.HasPrefix(mode, "leasedeck") && n != benchCalls {
						t.Fatalf("%s %s (hooks: %s): %d calls journaled as allowed, want %d", c.name, name, mode, n, benchCalls)
					}
					took[mode] = append(took[mode], r.took)
					cpu[mode] = append(cpu[mode], r.cpu)
				}
			}
			mw, mo, mn := median(took["leasedeck"]), median(took["none"]), median(took["noop"])
			ratio := float64(mw) / float64(mo)
			// Only the sides that ran are reported (LEASEDECK_E2E_SIDES).
			line := fmt.Sprintf("%-12s %-34s none %7s (min %7s) (%d runs each)", c.name, c.npm.String(), ms(mo), ms(minDur(took["none"])), runs)
			if len(took["noop"]) > 0 {
				line += fmt.Sprintf(" | no-op hooks %7s (min %7s)", ms(mn), ms(minDur(took["noop"])))
			}
			if len(took["leasedeck"]) > 0 {
				line += fmt.Sprintf(" | leasedeck %7s (min %7s) | leasedeck/none %.2fx, +%s per call", ms(mw), ms(minDur(took["leasedeck"])), ratio, ms((mw-mo)/benchCalls))
				if len(took["noop"]) > 0 {
					line += fmt.Sprintf(", leasedeck/no-op %.2fx", float64(mw)/float64(mn))
				}
			}
			if ht := took["leasedeck-http"]; len(ht) > 0 {
				mh := median(ht)
				line += fmt.Sprintf(" | HTTP hooks %7s (min %7s) | HTTP/none %.2fx, +%s per call", ms(mh), ms(minDur(ht)), float64(mh)/float64(mo), ms((mh-mo)/benchCalls))
				if r := float64(mh) / float64(mo); r > 1.05 {
					t.Logf("NOTE: %s HTTP hooks ratio %.2fx is above the 1.05x target", c.name, r)
				}
			}
			if lt := took["leasedeck-http-lean"]; len(lt) > 0 {
				ml := median(lt)
				line += fmt.Sprintf(" | HTTP hooks, --tool-outcomes=false %7s (min %7s): lean/none %.2fx, +%s per call", ms(ml), ms(minDur(lt)), float64(ml)/float64(mo), ms((ml-mo)/benchCalls))
			}
			if ft := took["fixed-http"]; len(ft) > 0 {
				mf := median(ft)
				line += fmt.Sprintf(" | the same HTTP hooks, fixed answers %7s (min %7s): fixed/none %.2fx", ms(mf), ms(minDur(ft)), float64(mf)/float64(mo))
				if ht := took["leasedeck-http"]; len(ht) > 0 {
					line += fmt.Sprintf(", HTTP/fixed %.2fx", float64(median(ht))/float64(mf))
				}
			}
			// The client's CPU time moves far less with other load than its
			// wall time: the same comparison, in what the client spent.
			line += " | client CPU:"
			for _, m := range modes {
				line += fmt.Sprintf(" %s %s (%.2fx)", m, ms(median(cpu[m])), float64(median(cpu[m]))/float64(median(cpu["none"])))
			}
			t.Log(line)
			report = append(report, line)
			if len(took["leasedeck"]) > 0 && ratio > 1.2 {
				t.Logf("NOTE: %s ratio %.2fx is above the 1.2x target", c.name, ratio)
			}
		})
	}
	t.Logf("overhead of leasedeck's hooks, %d-tool-call session, as the client sees it:\n%s", benchCalls, strings.Join(report, "\n"))
	if p := os.Getenv("LEASEDECK_E2E_FIGURES"); p != "" {
		os.WriteFile(filepath.Clean(p), []byte(strings.Join(report, "\n")+"\n"), 0o644)
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minDur(ds []time.Duration) time.Duration {
	m := time.Duration(0)
	for i, d := range ds {
		if i == 0 || d < m {
			m = d
		}
	}
	return m
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// hookURL is the registry's HTTP hook endpoint in an installed settings
// file.
var hookURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)

// fixedAnswerServer answers Claude Code's HTTP hooks with what leasedeck
// answers in the bench, and does nothing else: an allow for PreToolUse,
// an empty object for the rest. Its URL, without a path.
func fixedAnswerServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(string(b), `"hook_event_name":"PreToolUse"`) {
			io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"within the lease"}}`)
			return
		}
		io.WriteString(w, "{}\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
