// Package journalgen writes a large, valid leasedeck journal for
// benchmarks and tests: real signed leases, refusals, children, sessions,
// gate decisions with summaries and reasons, usage reports, tool reports,
// revocations, completions and expiries, in the proportions a busy
// workspace has, with a handful of sessions interleaved at any time. Every
// line goes through the real journal writer (schemas, seq, prev, mac), so
// the result is what a registry would have written; it is only written
// faster, many lines per fsync.
package journalgen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
)

// Options say how big a journal to write.
type Options struct {
	Lines      int       // about how many lines in all (default 1,000,000)
	Leases     int       // how many leases and refusals (default Lines/200)
	Concurrent int       // sessions active at once (default 8)
	Seed       int64     // the same seed writes the same shape
	Start      time.Time // when the first record happens (default 2026-01-01)
	// Open is the fraction of leases left open at the end (default 0.02).
	Open float64
}

// Stats is what was written.
type Stats struct {
	LeaseLines, AuditLines int
	Leases, Refusals       int
	Closed, Open           int
}

// RootPolicy is the policy the generated leases were narrowed against;
// open a registry on the journal with it.
func RootPolicy() *registry.Manifest {
	m, err := registry.ParseManifest(manifest("root", "the workspace policy", 1_000_000))
	if err != nil {
		panic(err) // a constant that does not parse is a bug in this file
	}
	return m
}

func manifest(name, purpose string, steps int64) map[string]any {
	return map[string]any{
		"schema_version": record.SchemaVersion,
		"agent":          map[string]any{"name": name, "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": purpose},
		"allow": map[string]any{
			"tools":       []any{"Bash", "Read", "Write", "Edit", "WebFetch", "Agent"},
			"read_paths":  []any{"**"},
			"write_paths": []any{"src/**", "docs/**", "test/**"},
			"hosts":       []any{"*.example.com", "api.github.com"},
			"commands":    []any{"git", "go", "ls", "cat", "echo", "make", "grep", "sed"},
		},
		"deny":      map[string]any{"commands": []any{"sudo", "ssh"}, "paths": []any{".leasedeck/**", "~/.ssh/**"}, "hosts": []any{}},
		"budget":    map[string]any{"steps": steps, "tokens": int64(50_000_000), "depth": int64(4), "fan_out": int64(16)},
		"approvals": []any{"command:make"},
	}
}

type session struct {
	leaseID, admission, parent string
	left                       int // lines still to write for it
}

type gen struct {
	opt    Options
	rng    *rand.Rand
	now    time.Time
	issuer registry.Issuer
	root   *registry.Manifest
	w      *journal.Writer
	leases []map[string]any
	audit  []map[string]any
	stats  Stats
	err    error
}

// Generate writes the journal into dir (created if needed), signed and
// maced with key.
func Generate(dir string, key registry.Key, opt Options) (Stats, error) {
	if opt.Lines <= 0 {
		opt.Lines = 1_000_000
	}
	if opt.Leases <= 0 {
		opt.Leases = max(1, opt.Lines/200)
	}
	if opt.Concurrent <= 0 {
		opt.Concurrent = 8
	}
	if opt.Start.IsZero() {
		opt.Start = time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	}
	if opt.Open == 0 {
		opt.Open = 0.02
	}
	lock := filepath.Join(dir, "generator.lock")
	w, err := journal.Open(dir, key.Bytes(), journal.Options{LockPath: lock, Now: func() time.Time { return opt.Start }})
	if err != nil {
		return Stats{}, err
	}
	g := &gen{opt: opt, rng: rand.New(rand.NewSource(opt.Seed)), now: opt.Start, w: w, root: RootPolicy(),
		issuer: registry.Issuer{Key: key, SessionID: "journalgen", DefaultLifetime: 10 * 365 * 24 * time.Hour}}
	g.run()
	g.flush(true)
	if cerr := w.Close(); g.err == nil {
		g.err = cerr
	}
	os.Remove(lock)
	return g.stats, g.err
}

func (g *gen) run() {
	perLease := max(4, g.opt.Lines/g.opt.Leases)
	var active []*session
	started := 0
	for g.err == nil && (started < g.opt.Leases || len(active) > 0) {
		for len(active) < g.opt.Concurrent && started < g.opt.Leases {
			started++
			if s := g.begin(started, active, perLease); s != nil {
				active = append(active, s)
			}
		}
		if len(active) == 0 {
			continue
		}
		i := g.rng.Intn(len(active))
		s := active[i]
		g.step(s)
		if s.left--; s.left <= 0 {
			g.end(s, started)
			active = append(active[:i], active[i+1:]...)
		}
		g.flush(false)
	}
}

func (g *gen) tick() time.Time {
	g.now = g.now.Add(time.Duration(20+g.rng.Intn(80)) * time.Millisecond)
	return g.now
}

func (g *gen) hash(parts ...any) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(parts...)))
	return hex.EncodeToString(sum[:])
}

// begin issues a lease (one in fifty is refused; one in five is a child
// of an active session) and starts its session.
func (g *gen) begin(n int, active []*session, perLease int) *session {
	at := g.tick()
	name := fmt.Sprintf("worker-%d", n)
	decl, _ := registry.ParseManifest(manifest(name, "implement task "+fmt.Sprint(n)+" of the generated workload", int64(perLease*4)))
	if n%50 == 0 {
		id := registry.NewLeaseID()
		r := record.NewRefused(at, id, "", []string{"R2"}, "allow.tools names nothing the parent grants (generated refusal)", g.hash(n), nil)
		g.leases = append(g.leases, r.Value())
		g.stats.Refusals++
		g.stats.Leases++
		return nil
	}
	parent := registry.Parent{Manifest: g.root}
	parentID := ""
	if n%5 == 0 && len(active) > 0 {
		parentID = active[g.rng.Intn(len(active))].leaseID
		parent = registry.Parent{ID: parentID, Manifest: g.root}
	}
	dec, err := g.issuer.Issue(decl, parent, at)
	if err != nil {
		g.err = err
		return nil
	}
	ats := record.FormatTime(dec.IssuedAt)
	g.leases = append(g.leases, valueOf(record.NewGranted(ats, dec.LeaseID, parentID, dec.Lease, dec.Declared, dec.DeclaredHash, dec.GrantedHash)))
	if !dec.Narrowed.Diff.Empty() {
		g.leases = append(g.leases, valueOf(record.NewNarrowed(ats, dec.LeaseID, dec.Narrowed.Diff.Summary())))
	}
	g.stats.Leases++
	s := &session{leaseID: dec.LeaseID, admission: registry.NewLeaseID(), parent: parentID, left: perLease - 2}
	sh := g.hash("session", n)
	g.addAudit(record.NewAudit(registry.EventSessionBegun, g.tick(), "turn begins under lease "+record.ShortID(s.leaseID),
		record.Details{AdmissionID: s.admission, LeaseID: s.leaseID, SessionHash: sh, Client: "claude-code"}))
	return s
}

var summaries = []string{
	"Bash: runs git; reads src/registry/service.go",
	"Read: reads src/journal/writer.go",
	"Edit: writes src/tui/feed.go",
	"Bash: runs go; reads src/..., test/...",
	"WebFetch: reaches api.github.com",
	"Write: writes docs/architecture.md",
	"Bash: runs grep, sed; reads src/**/*.go",
}

// step writes one line of a session: mostly a gate decision and the tool
// report that follows it, sometimes usage.
func (g *gen) step(s *session) {
	at := g.tick()
	d := record.Details{LeaseID: s.leaseID, AdmissionID: s.admission, Client: "claude-code"}
	switch r := g.rng.Intn(100); {
	case r < 8:
		d.Source, d.Accurate = "provider_reported", record.Bool(true)
		d.Tokens, d.CostUSD = record.Float(float64(500+g.rng.Intn(20000))), record.Float(float64(g.rng.Intn(300))/1000)
		g.addAudit(record.NewAudit(registry.EventBudgetSpent, at, "", d))
	case r < 50:
		sum := summaries[g.rng.Intn(len(summaries))]
		d.Tool, d.Status, d.Violation = "Bash", "ok", record.Bool(false)
		a := record.NewAudit(registry.EventToolReported, at, sum, d)
		a.RequestHash = g.hash("result", at)
		g.addAudit(a)
	default:
		sum := summaries[g.rng.Intn(len(summaries))]
		d.Tool = "Bash"
		et, v, why, outcome := registry.EventGateAllowed, registry.VerdictAllow, "within the lease", "success"
		if g.rng.Intn(10) == 0 {
			et, v, outcome = registry.EventGateDenied, registry.VerdictDeny, "failure"
			why = "write to /etc/hosts escapes the workspace"
		} else {
			d.Steps = record.Float(1)
		}
		d.Decision = string(v)
		a := record.NewAudit(et, at, sum, d)
		a.Reasoning, a.RequestHash, a.Outcome = why, g.hash("input", at), outcome
		g.addAudit(a)
	}
}

// end finalizes the turn and closes the lease: completed mostly, some
// revoked or expired, a few left open.
func (g *gen) end(s *session, n int) {
	at := g.tick()
	g.addAudit(record.NewAudit(registry.EventSessionFinalized, at, "turn certified", record.Details{AdmissionID: s.admission,
		LeaseID: s.leaseID, Outcome: "certified", TelemetryQuality: "complete", EndSession: record.Bool(true)}))
	var r record.Lease
	switch x := g.rng.Float64(); {
	case x < g.opt.Open && s.parent == "":
		g.stats.Open++
		return
	case x < 0.1:
		r = record.NewRevoked(at, s.leaseID, s.parent, "issuer", "revoked from the cockpit: the task was cancelled")
	case x < 0.15:
		r = record.NewClosed(record.Expired, at, s.leaseID, s.parent, "")
	default:
		r = record.NewClosed(record.Completed, at, s.leaseID, s.parent, "")
	}
	g.leases = append(g.leases, r.Value())
	g.stats.Closed++
}

func valueOf(r record.Lease) map[string]any { return r.Value() }

func (g *gen) addAudit(a record.Audit) { g.audit = append(g.audit, a.Value()) }

// flush writes what is pending, a batch per file (one fsync or so each).
func (g *gen) flush(all bool) {
	const batch = 4096
	if g.err != nil {
		return
	}
	if len(g.leases) >= batch || (all && len(g.leases) > 0) {
		if _, err := g.w.AppendAll(journal.Leases, g.leases); err != nil {
			g.err = err
			return
		}
		g.stats.LeaseLines += len(g.leases)
		g.leases = g.leases[:0]
	}
	if len(g.audit) >= batch || (all && len(g.audit) > 0) {
		if _, err := g.w.AppendAll(journal.Audit, g.audit); err != nil {
			g.err = err
			return
		}
		g.stats.AuditLines += len(g.audit)
		g.audit = g.audit[:0]
	}
}
