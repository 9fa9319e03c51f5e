package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/confine"
	"github.com/leasedeck/leasedeck/handshake"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/termtext"
	"github.com/leasedeck/leasedeck/workspace"
)

// The statuses of a doctor finding. Only a problem makes doctor exit 1.
const (
	statusOK      = "ok"
	statusNote    = "note"
	statusProblem = "problem"
)

// finding is one line of doctor's report. Detail may quote files an agent
// can write (settings, policy): it reports what they claim, cleaned for
// the terminal, and nothing in it was decided from them.
type finding struct {
	Subject string `json:"subject"` // "registry", "journal", "confined", a client name
	Check   string `json:"check"`
	Status  string `json:"status"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"` // the command that fixes it
}

type doctorReport struct {
	Workspace string    `json:"workspace"`
	OK        bool      `json:"ok"`
	Findings  []finding `json:"findings"`
	// registryPID is the registry that proved itself by the handshake (0
	// when none did): the process the HTTP hooks' port must belong to.
	registryPID int
}

func (r *doctorReport) add(f finding) { r.Findings = append(r.Findings, f) }

// runDoctor: leasedeck doctor [--workspace DIR] [--json]
func runDoctor(args []string, e *env) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 0 {
		if ok {
			e.errorf("usage: leasedeck doctor [--workspace DIR] [--json]")
		}
		return exitUsage
	}
	var r doctorReport
	cwd, _ := os.Getwd()
	w, err := workspace.Find(*ws, cwd)
	if err != nil {
		r.add(finding{Subject: "workspace", Check: "found", Status: statusProblem, Detail: err.Error(), Fix: "leasedeck init"})
	} else {
		r.Workspace = w.Root
		approval := doctorRegistry(&r, w)
		doctorJournal(&r, w)
		doctorConfined(&r)
		doctorClients(&r, w, approval)
	}
	r.OK = true
	for _, f := range r.Findings {
		if f.Status == statusProblem {
			r.OK = false
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	} else {
		printDoctor(e, r)
	}
	if !r.OK {
		return exitInvalid
	}
	return exitOK
}

func printDoctor(e *env, r doctorReport) {
	if r.Workspace != "" {
		fmt.Fprintf(e.stdout, "workspace %s\n", termtext.Clean(r.Workspace))
	}
	problems := 0
	for _, f := range r.Findings {
		label := f.Status
		if f.Status == statusProblem {
			label, problems = "PROBLEM", problems+1
		}
		fmt.Fprintf(e.stdout, "%-8s %-24s %s\n", label, termtext.Clean(f.Subject+" "+f.Check), termtext.Flatten(f.Detail))
		if f.Fix != "" {
			fmt.Fprintf(e.stdout, "%-8s %-24s fix: %s\n", "", "", termtext.Flatten(f.Fix))
		}
	}
	if problems == 0 {
		fmt.Fprintln(e.stdout, "all is well")
		return
	}
	fmt.Fprintf(e.stdout, "%d problem(s)\n", problems)
}

// doctorRegistry checks that the workspace's registry answers and proves
// itself, and reports the enforcement mode it answered with. It returns
// the registry's approval timeout (0 when none answered).
func doctorRegistry(r *doctorReport, w workspace.Workspace) time.Duration {
	start := fmt.Sprintf("leasedeck serve --workspace %s &   (or run the cockpit: leasedeck --workspace %s)", shellWord(w.Root), shellWord(w.Root))
	c, hello, err := dialVerifiedHello(w, 3*time.Second)
	var squat *handshake.SquatterError
	switch {
	case errors.As(err, &squat):
		r.add(finding{Subject: "registry", Check: "reachable", Status: statusProblem,
			Detail: squat.Error() + "; every hook of this workspace denies until the real registry runs",
			Fix:    "stop the process listening on " + w.SocketPath() + ", then " + start})
	case err != nil:
		r.add(finding{Subject: "registry", Check: "reachable", Status: statusProblem,
			Detail: handshake.Explain(err, w.Root) + "; every gated call of this workspace's hooks is denied until one answers", Fix: start})
	}
	if c == nil {
		claim := "enforce"
		if s, err := w.LoadSettings(); err == nil {
			claim = s.Mode
		}
		r.add(finding{Subject: "registry", Check: "mode", Status: statusNote,
			Detail: fmt.Sprintf("unknown: only a running registry says (policy.json claims %q; hooks treat a missing registry as enforce)", claim)})
		return 0
	}
	c.Close()
	r.registryPID = hello.PID
	r.add(finding{Subject: "registry", Check: "reachable", Status: statusOK,
		Detail: fmt.Sprintf("running (pid %d), proved itself by the handshake; policy sha256 %s", hello.PID, short(hello.PolicyHash))})
	if hello.Mode == "observe" {
		r.add(finding{Subject: "registry", Check: "mode", Status: statusNote,
			Detail: "observe: calls are decided and recorded, but nothing is refused",
			Fix:    `set "mode": "enforce" in ` + w.PolicyPath() + " and run: leasedeck policy reload --workspace " + shellWord(w.Root)})
	} else {
		r.add(finding{Subject: "registry", Check: "mode", Status: statusOK, Detail: hello.Mode})
	}
	return time.Duration(hello.ApprovalTimeoutMs) * time.Millisecond
}

// doctorJournal runs the journal's quick check (journal.QuickCheck).
func doctorJournal(r *doctorReport, w workspace.Workspace) {
	key, err := w.LoadKey()
	if err != nil {
		r.add(finding{Subject: "journal", Check: "health", Status: statusProblem,
			Detail: fmt.Sprintf("cannot read the deployment key: %v", err), Fix: "leasedeck init " + shellWord(w.Root)})
		return
	}
	q := journal.QuickCheck(w.JournalDir(), w.HeadPath(), key.Bytes())
	verify := "leasedeck journal verify --workspace " + shellWord(w.Root)
	for _, p := range q.Problems {
		r.add(finding{Subject: "journal", Check: "health", Status: statusProblem, Detail: p,
			Fix: verify + "   (the full report; the registry records nothing more in a broken file until it is repaired)"})
	}
	for _, n := range q.Notes {
		r.add(finding{Subject: "journal", Check: "health", Status: statusNote, Detail: n})
	}
	if len(q.Problems) > 0 {
		return
	}
	var parts []string
	for _, f := range q.Files {
		switch {
		case f.Missing:
			parts = append(parts, f.File+" not created yet")
		default:
			parts = append(parts, fmt.Sprintf("%s head seq %d, last %d line(s) re-checked", f.File, f.HeadSeq, f.Checked))
		}
	}
	what := "quick check (the kept head against each file's end, and the line rules — JSON, schema, seq, prev, mac — over its last lines; '" + verify + "' reads every line): "
	if !q.HeadChecked {
		what = "quick check, no head to compare with (the line rules over each file's last lines): "
	}
	r.add(finding{Subject: "journal", Check: "health", Status: statusOK, Detail: what + strings.Join(parts, "; ")})
}

// doctorConfined reports whether `leasedeck run` can confine on this
// kernel. Not available is a note: hook mode still governs.
func doctorConfined(r *doctorReport) {
	abi, err := confine.ABI()
	if errors.Is(err, confine.ErrUnsupported) {
		r.add(finding{Subject: "confined", Check: "available", Status: statusNote, Detail: "not available on this OS (Landlock is Linux-only); leasedeck run refuses unless --allow-unconfined"})
		return
	}
	if err == nil {
		err = checkABI(abi)
	}
	if err != nil {
		r.add(finding{Subject: "confined", Check: "available", Status: statusNote, Detail: fmt.Sprintf("not available: %v; leasedeck run refuses unless --allow-unconfined", err)})
		return
	}
	r.add(finding{Subject: "confined", Check: "available", Status: statusOK, Detail: fmt.Sprintf("Landlock ABI %d (leasedeck run --client NAME -- COMMAND)", abi)})
}

// shellWord quotes a path for a command line doctor prints.
func shellWord(s string) string { return setup.ShellQuote(s) }
