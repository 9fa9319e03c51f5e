package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

// eventVariant is one hook configuration of TestHookEventCost, derived
// from what `install claude-code` writes: which events keep their hook.
type eventVariant struct {
	name string
	keep func(event string) bool // nil: no settings file at all
}

func only(events ...string) func(string) bool {
	return func(e string) bool { return slices.Contains(events, e) }
}

func except(events ...string) func(string) bool {
	return func(e string) bool { return !slices.Contains(events, e) }
}

// eventVariants vary one thing at a time: the gate alone, the gate and
// the outcome, the events that fire once a session, everything but
// SessionStart's command hook, and what --tool-outcomes=false and the
// default install write.
var eventVariants = []eventVariant{
	{name: "none"},
	{name: "PreToolUse", keep: only("PreToolUse")},
	{name: "PreToolUse+PostToolUse", keep: only("PreToolUse", "PostToolUse")},
	{name: "once-a-session", keep: only("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")},
	{name: "all-but-SessionStart", keep: except("SessionStart")},
	{name: "all-but-PostToolUse", keep: except("PostToolUse")},
	{name: "all", keep: func(string) bool { return true }},
}

// TestHookEventCost times the 20-call Claude Code session of TestOverhead
// with subsets of the hooks install writes, all answered at once by the
// fixed-answer server (SessionStart's command hook as `cat`), so that what
// each event costs inside Claude Code can be told apart. Sides rotate
// round by round; each run's --debug-file log is read for where the time
// went; the client's CPU time (with its tools' and command hooks') is
// reported beside the wall time, since it moves far less with other load
// on the machine. LEASEDECK_E2E_RUNS sets the runs per side (default 5),
// LEASEDECK_E2E_VARIANTS a comma-separated subset of the variants.
func TestHookEventCost(t *testing.T) {
	requireHeavy(t)
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("LEASEDECK_E2E_RUNS")); err == nil && n > 0 {
		runs = n
	}
	variants := eventVariants
	if names := os.Getenv("LEASEDECK_E2E_VARIANTS"); names != "" {
		variants = slices.DeleteFunc(slices.Clone(variants), func(v eventVariant) bool { return !slices.Contains(strings.Split(names, ","), v.name) })
	}
	exe := client(t, claudeClient)
	e := governedWorkspace(t, "claude-code")
	settings := e.path(".claude/settings.json")
	e.install("claude-code")
	installed, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	fixed := hookURL.ReplaceAll(leasedeckCommand.ReplaceAll(installed, []byte(`"cat > /dev/null"`)), []byte(fixedAnswerServer(t)+"/"))
	files := map[string][]byte{}
	for _, v := range variants {
		if v.keep != nil {
			files[v.name] = keepEvents(t, fixed, v.keep)
		}
	}
	srv := fakemodel.NewAnthropic()
	defer srv.Close()
	vars, logs := claudeVars(e, srv.URL), t.TempDir()
	took, cpu, phases := map[string][]time.Duration{}, map[string][]time.Duration{}, map[string]*sessionPhases{}
	for i := 0; i < runs; i++ {
		for j := range variants {
			v := variants[(i+j)%len(variants)]
			if files[v.name] == nil {
				os.Remove(settings)
			} else if err := os.WriteFile(settings, files[v.name], 0o600); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("cost%d_%d", i, j)
			srv.AddScript(fakemodel.Script{Name: name, Steps: benchSteps(e, claudeDialect, name)})
			log := filepath.Join(logs, name+".log")
			r := e.runClient(3*time.Minute, vars, exe, "-p", "Run the bench. "+fakemodel.Marker(name), "--model", "claude-sonnet-4-5",
				"--permission-mode", "acceptEdits", "--debug-file", log)
			if r.code != 0 || !strings.Contains(r.stdout, "Bench done.") {
				t.Fatalf("%s (%s): exit %d\n%s\n%s", name, v.name, r.code, tail(r.stdout, 2000), tail(r.stderr, 2000))
			}
			for s := 0; s < benchCalls; s++ {
				if rs, ok := srv.ResultsAfter(name, s); !ok || len(rs) != 1 || rs[0].IsError {
					t.Fatalf("%s (%s) step %d did not run cleanly: %+v", name, v.name, s, rs)
				}
			}
			took[v.name] = append(took[v.name], r.took)
			cpu[v.name] = append(cpu[v.name], r.cpu)
			if phases[v.name] == nil {
				phases[v.name] = &sessionPhases{}
			}
			phases[v.name].read(t, log)
		}
	}
	base, baseCPU := median(took[variants[0].name]), median(cpu[variants[0].name])
	lines := []string{fmt.Sprintf("%-24s %9s %9s %7s %9s | %9s %7s | %s", "hooks", "median", "min", "÷ first", "per call", "CPU", "÷ first", sessionPhaseHeader)}
	for _, v := range variants {
		m, c := median(took[v.name]), median(cpu[v.name])
		lines = append(lines, fmt.Sprintf("%-24s %9s %9s %6.2fx %9s | %9s %6.2fx | %s", v.name, ms(m), ms(minDur(took[v.name])),
			float64(m)/float64(base), ms((m-base)/benchCalls), ms(c), float64(c)/float64(baseCPU), phases[v.name]))
	}
	t.Logf("what each of the hooks install writes costs in Claude Code, fixed answers, %d runs a side:\n%s", runs, strings.Join(lines, "\n"))
	if p := os.Getenv("LEASEDECK_E2E_FIGURES"); p != "" {
		os.WriteFile(filepath.Clean(p), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
}

// keepEvents is the settings file with only the hook events keep says.
func keepEvents(t *testing.T, settings []byte, keep func(string) bool) []byte {
	var m map[string]any
	if err := json.Unmarshal(settings, &m); err != nil {
		t.Fatal(err)
	}
	hooks, _ := m["hooks"].(map[string]any)
	for ev := range hooks {
		if !keep(ev) {
			delete(hooks, ev)
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sessionPhases collects, from Claude Code's debug log, where a session's
// time went: start to the first model request; per tool call, the model's
// answer to the tool's start (PreToolUse inside) and the tool's end to the
// next model request (PostToolUse inside); and the last model request to
// the log's end (Stop, SessionEnd).
type sessionPhases struct {
	start, pre, post, end []time.Duration
}

const sessionPhaseHeader = "start→1st request  answer→tool start  tool end→next request  last request→end (medians)"

func (p *sessionPhases) String() string {
	return fmt.Sprintf("%17s  %17s  %21s  %16s", ms(median(p.start)), ms(median(p.pre)), ms(median(p.post)), ms(median(p.end)))
}

// read adds one run's log. The markers are Claude Code 2.1.328's.
func (p *sessionPhases) read(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var first, last, request, answer, toolEnd time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		at, err := time.Parse("2006-01-02T15:04:05.000Z", strings.SplitN(line, " ", 2)[0])
		if err != nil {
			continue
		}
		if first.IsZero() {
			first = at
		}
		last = at
		switch {
		case strings.Contains(line, "[API REQUEST]"):
			if request.IsZero() {
				p.start = append(p.start, at.Sub(first))
			}
			if !toolEnd.IsZero() {
				p.post = append(p.post, at.Sub(toolEnd))
			}
			request, answer, toolEnd = at, time.Time{}, time.Time{}
		case strings.Contains(line, "received first chunk") && answer.IsZero():
			answer = at
		case strings.Contains(line, "tool_dispatch_start") && !answer.IsZero():
			p.pre = append(p.pre, at.Sub(answer))
		case strings.Contains(line, "tool_dispatch_end"):
			toolEnd = at
		}
	}
	if !request.IsZero() {
		p.end = append(p.end, last.Sub(request))
	}
}
