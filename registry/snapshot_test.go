package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
)

// snapshotted is a fixture whose registry keeps snapshots (written only
// when a test asks) and a journal head, in a state directory of its own.
func snapshotted(t *testing.T) (*fixture, func(snapDir string) Config) {
	t.Helper()
	state := t.TempDir()
	cfgFor := func(f *fixture, snapDir string) Config {
		return Config{Workspace: f.dir, JournalDir: filepath.Join(f.dir, ".leasedeck", "journal"),
			LockPath: filepath.Join(f.dir, ".leasedeck", "registry.lock"), Key: f.key,
			HeadPath: filepath.Join(state, "journal.head"), CheckpointKeyPath: filepath.Join(state, "checkpoint.key"),
			Root: policyManifest(f.t), SnapshotDir: snapDir, SnapshotEvery: -1}
	}
	f := newFixtureWith(t, func(c *Config) {
		c.HeadPath, c.CheckpointKeyPath = filepath.Join(state, "journal.head"), filepath.Join(state, "checkpoint.key")
		c.SnapshotDir, c.SnapshotEvery = filepath.Join(state, "snapshots"), -1
	})
	return f, func(snapDir string) Config { return cfgFor(f, snapDir) }
}

// workload drives the registry through what its clients do: sessions and
// their subagents, turns, allowed, denied and held calls (approved once,
// for the lease, denied), reports, usage, leases issued and revoked,
// time passing until leases expire. after runs between steps.
func workload(t *testing.T, f *fixture, rng *rand.Rand, steps int, after func(step int)) {
	t.Helper()
	ctx := context.Background()
	var sessions []string
	var turns []string
	var leases []string
	write := func(p string) ToolCall {
		return ToolCall{Tool: "Write", Input: map[string]any{"file_path": p, "content": "x"}}
	}
	for i := 0; i < steps; i++ {
		switch r := rng.Intn(100); {
		case r < 10 || len(turns) == 0:
			sess := fmt.Sprintf("session-%d", len(sessions))
			req := AdmitRequest{Client: "claude-code", Session: sess, Manifest: agentManifest("agent", int64(5+rng.Intn(40)), nil), Prompt: "p", Turn: fmt.Sprint(i)}
			if len(sessions) > 0 && rng.Intn(3) == 0 {
				req.ParentSession, req.AgentName = sessions[rng.Intn(len(sessions))], "subagent"
			}
			if a, err := f.svc.Admit(req); err == nil && a.Allowed {
				sessions, turns, leases = append(sessions, sess), append(turns, a.AdmissionID), append(leases, a.LeaseID)
			}
		case r < 15:
			if a, err := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: sessions[rng.Intn(len(sessions))], Prompt: "again"}); err == nil && a.Allowed {
				turns = append(turns, a.AdmissionID)
			}
		case r < 45:
			p := "src/f.go"
			if rng.Intn(4) == 0 {
				p = "docs/outside.md"
			}
			f.svc.GateAdmission(ctx, turns[rng.Intn(len(turns))], GateRequest{Call: write(p)})
		case r < 52:
			heldCall(t, f, turns[rng.Intn(len(turns))], rng)
		case r < 62:
			f.svc.Report(turns[rng.Intn(len(turns))], write("src/f.go"), "success", "", "Write: src/f.go")
		case r < 70:
			tok, cost := float64(rng.Intn(5000)), float64(rng.Intn(100))/100
			f.svc.Telemetry(turns[rng.Intn(len(turns))], &tok, &cost, "provider_reported")
		case r < 75:
			f.svc.Finalize(turns[rng.Intn(len(turns))], "completed", rng.Intn(4) == 0, false)
		case r < 82:
			parent := ""
			if len(leases) > 0 && rng.Intn(2) == 0 {
				parent = leases[rng.Intn(len(leases))]
			}
			if res, err := f.svc.Issue(agentManifest("worker", 10, nil), parent); err == nil && res.LeaseID != "" {
				leases = append(leases, res.LeaseID)
			}
		case r < 87:
			f.svc.Revoke(leases[rng.Intn(len(leases))], "operator", "test revocation")
		case r < 90:
			f.svc.Finish(leases[rng.Intn(len(leases))], Completed, "done")
		default:
			f.clk.Add(time.Duration(rng.Intn(20)) * time.Minute)
			f.svc.kickSweeper()
		}
		if after != nil {
			after(i)
		}
	}
}

// heldCall makes a call a human must decide, and decides it.
func heldCall(t *testing.T, f *fixture, turn string, rng *rand.Rand) {
	t.Helper()
	done := make(chan GateAnswer, 1)
	go func() {
		a, _ := f.svc.GateAdmission(context.Background(), turn, GateRequest{Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "rm src/old.go"}}})
		done <- a
	}()
	deadline := time.After(10 * time.Second)
	for {
		changed := f.svc.book.Changed()
		if p := f.svc.PendingApprovals(); len(p) > 0 {
			outcome, scope := approvals.Approved, approvals.Once
			switch rng.Intn(3) {
			case 1:
				scope = approvals.ForLease
			case 2:
				outcome, scope = approvals.Denied, ""
			}
			f.svc.DecideApproval(p[0].ID, outcome, scope, "test decision", "test")
			<-done
			return
		}
		select {
		case <-changed:
		case <-done:
			return // answered without asking (a closed lease, a covered grant)
		case <-deadline:
			t.Fatal("the held call was neither asked nor answered")
		}
	}
}

// sameFold fails the test where two rebuilt states differ, naming the
// first lease, session or admission that does.
func sameFold(t *testing.T, what string, want, got Folded) {
	t.Helper()
	if reflect.DeepEqual(want.State, got.State) && reflect.DeepEqual(want.Book, got.Book) {
		return
	}
	show := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, id := range want.State.Order {
		w, g := want.State.Leases[id], got.State.Leases[id]
		if g == nil || !reflect.DeepEqual(w, g) {
			ws, _ := leaseSnapshot(w)
			var gs snapLease
			if g != nil {
				gs, _ = leaseSnapshot(g)
			}
			t.Fatalf("%s: lease %s differs:\nwant %s\ngot  %s", what, id, show(ws), show(gs))
		}
	}
	for _, pair := range []struct {
		name string
		w, g any
	}{{"order", want.State.Order, got.State.Order}, {"sessions", want.State.Sessions, got.State.Sessions},
		{"admissions", want.State.Admissions, got.State.Admissions}, {"capabilities", want.State.Capabilities, got.State.Capabilities},
		{"approvals", want.Book, got.Book}} {
		if !reflect.DeepEqual(pair.w, pair.g) {
			t.Fatalf("%s: %s differ:\nwant %s\ngot  %s", what, pair.name, show(pair.w), show(pair.g))
		}
	}
	t.Fatalf("%s: the states differ", what)
}

// A start from a snapshot taken at any point of a registry's life, plus
// the replay of the journal after it, rebuilds the state a full replay
// does, field for field (leases open and compacted, their places in the
// files, sessions with their capability hashes, admissions, approvals and
// remembered grants).
func TestSnapshotPlusTailIsTheFullReplay(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			f, cfgFor := snapshotted(t)
			rng := rand.New(rand.NewSource(seed))
			var snaps [][]byte
			workload(t, f, rng, 160, func(int) {
				if rng.Intn(5) != 0 {
					return
				}
				path, err := f.svc.WriteSnapshot()
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, b)
			})
			if err := f.svc.Close(); err != nil {
				t.Fatal(err)
			}
			full, err := FoldForTest(cfgFor(t.TempDir()))
			if err != nil || full.Start.FromSnapshot {
				t.Fatalf("full replay: %v %+v", err, full.Start)
			}
			if len(full.Book.Entries) == 0 || len(full.State.Capabilities) == 0 || len(full.State.Admissions) == 0 {
				t.Fatalf("the workload made no approvals, capabilities or admissions: %d %d %d", len(full.Book.Entries), len(full.State.Capabilities), len(full.State.Admissions))
			}
			for i, b := range snaps {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "snapshot-a.json"), b, 0o600); err != nil {
					t.Fatal(err)
				}
				got, err := FoldForTest(cfgFor(dir))
				if err != nil {
					t.Fatal(err)
				}
				if !got.Start.FromSnapshot || len(got.Start.Refused) > 0 || got.Start.Replayed >= full.Start.Replayed {
					t.Fatalf("snapshot %d not used: %+v", i, got.Start)
				}
				sameFold(t, fmt.Sprintf("snapshot %d of %d", i+1, len(snaps)), full, got)
			}
			if len(snaps) < 10 {
				t.Fatalf("only %d snapshots taken", len(snaps))
			}
		})
	}
}

// TestSnapshotCoversEveryField fails when a type the fold fills gains a
// field the snapshot does not carry: add it to snapshotstate.go (and to
// this list) rather than lose it at the next start.
func TestSnapshotCoversEveryField(t *testing.T) {
	carried := map[reflect.Type]string{
		reflect.TypeFor[State]():       "Leases Order Sessions Admissions Capabilities ClientAsks AnsweredAsks",
		reflect.TypeFor[LeaseState]():  "ID ParentID Status Declared DeclaredHash Granted Lease GrantedHash Narrowing Reasons Reason RevokedBy IssuedAt ExpiresAt ClosedAt Spent SpendSeries Children Activity LastActivity Decisions Compacted Run where agent purpose",
		reflect.TypeFor[lineRange]():   "located record recordSeq first firstSeq last",
		reflect.TypeFor[Manifest]():    "Raw SchemaVersion Agent Purpose HasPurpose Allow Deny Budget Approvals",
		reflect.TypeFor[Budget]():      "vals set",
		reflect.TypeFor[Session]():     "Hash LeaseID Client ParentHash Current CapabilityHash",
		reflect.TypeFor[Admission]():   "ID LeaseID SessionHash Client BegunAt Gated Allowed Denied Reported Ungated Violations Telemetry Estimates Finalized pendingOK",
		reflect.TypeFor[Spend]():       "Steps Tokens CostUSD",
		reflect.TypeFor[SpendSeries](): "Width Steps Tokens",
		reflect.TypeFor[GateEvent]():   "At Tool Decision Reason Summary",
		reflect.TypeFor[ClientAsk]():   "ID LeaseID AdmissionID Client Tool ToolUseID Summary Names InputHash AskedAt Outcome Source AnsweredAt",
	}
	for typ, fields := range carried {
		var have []string
		for i := 0; i < typ.NumField(); i++ {
			have = append(have, typ.Field(i).Name)
		}
		if got := strings.Join(have, " "); got != fields {
			t.Errorf("%s has fields %q; the snapshot carries %q", typ.Name(), got, fields)
		}
	}
}

// takeSnapshots runs a workload and keeps a copy of a snapshot taken
// halfway and one at the end.
func takeSnapshots(t *testing.T, f *fixture) (older, newest []byte) {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	keep := func() []byte {
		path, err := f.svc.WriteSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	workload(t, f, rng, 60, nil)
	older = keep()
	workload(t, f, rng, 60, nil)
	newest = keep()
	if err := f.svc.Close(); err != nil {
		t.Fatal(err)
	}
	return older, newest
}

func onlySnapshot(t *testing.T, data []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "snapshot-00000000000000000001-00000000000000000001.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An agent runs as the registry's user and can write the state directory
// (in hook mode nothing but the gate keeps it out). Whatever it does to a
// snapshot, the registry's state after a start is the full replay's.
func TestSnapshotAttacksCannotChangeTheState(t *testing.T) {
	f, cfgFor := snapshotted(t)
	older, newest := takeSnapshots(t, f)
	full, err := FoldForTest(cfgFor(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	other := Config{Key: mustKey(t, "a-different-workspace-key-000000")}
	foreign := append([]byte(nil), newest...)
	if h, sb, err := decodeSnapshotHeader(f.key, newest); err == nil {
		foreign = append(append(append([]byte(nil), mustJSON(t, h)...), '\n'), sb...)
		foreign = append(append(foreign, '\n'), snapshotMAC(other.Key, mustJSON(t, h), sb)...)
		foreign = append(foreign, '\n')
	}
	// What an agent would want: spend forgotten, so the budget is fresh.
	edited := []byte(strings.Replace(string(newest), `"spent":{"Steps":`, `"spent":{"Steps":-1000,"X":`, 1))
	if string(edited) == string(newest) {
		t.Fatal("the edit changed nothing")
	}
	cases := []struct {
		name     string
		data     []byte
		fromSnap bool
	}{
		{"an edited snapshot (the mac no longer matches)", edited, false},
		{"a truncated snapshot", newest[:len(newest)/2], false},
		{"a snapshot of another workspace's key", foreign, false},
		{"an empty file", nil, false},
		{"an older valid snapshot swapped in: the longer tail still ends at the current state", older, true},
		{"the newest snapshot", newest, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FoldForTest(cfgFor(onlySnapshot(t, c.data)))
			if err != nil {
				t.Fatal(err)
			}
			if got.Start.FromSnapshot != c.fromSnap || (!c.fromSnap && len(got.Start.Refused) == 0) {
				t.Fatalf("start %+v", got.Start)
			}
			sameFold(t, c.name, full, got)
		})
	}
}

func mustKey(t *testing.T, s string) Key {
	k, err := NewKey([]byte(s), false)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A snapshot whose position the journal no longer matches is refused:
// the journal changed before the position (a line edited, a line removed,
// the file rewritten), or cut short of it (a snapshot newer than the
// journal). The start replays everything and so reports what the full
// replay finds.
func TestSnapshotOfAnotherJournalIsRefused(t *testing.T) {
	edits := []struct {
		name string
		edit func(t *testing.T, audit []byte) []byte
	}{
		{"a line before the position edited", func(t *testing.T, b []byte) []byte {
			return []byte(strings.Replace(string(b), "registry started", "registry startet", 1))
		}},
		{"a line before the position removed", func(t *testing.T, b []byte) []byte {
			i := strings.IndexByte(string(b), '\n')
			return b[i+1:]
		}},
		{"the file cut before the position (the snapshot is newer than the journal)", func(t *testing.T, b []byte) []byte {
			return b[:len(b)/3]
		}},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			f, cfgFor := snapshotted(t)
			_, newest := takeSnapshots(t, f)
			path := filepath.Join(f.dir, ".leasedeck", "journal", "audit.jsonl")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cut := e.edit(t, b)
			cut = cut[:strings.LastIndexByte(string(cut), '\n')+1]
			if err := os.WriteFile(path, cut, 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := cfgFor(onlySnapshot(t, newest))
			s := &Service{cfg: cfg, st: NewState(), book: approvals.New(), snaps: newSnapshotter(cfg)}
			w, _, err := s.openJournal()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if s.start.FromSnapshot || len(s.start.Refused) == 0 || !strings.Contains(strings.Join(s.start.Refused, ";"), "does not match the journal") {
				t.Fatalf("start %+v", s.start)
			}
			if len(w.Breaks()) == 0 {
				t.Fatalf("the full replay found nothing wrong with %s", e.name)
			}
		})
	}
}

// The refusal is in the audit journal, where `journal verify` and the
// cockpit show it, and the registry serves the full replay's state.
func TestSnapshotRefusalIsJournaled(t *testing.T) {
	f, _ := snapshotted(t)
	_, newest := takeSnapshots(t, f)
	snapDir := filepath.Join(filepath.Dir(f.svc.cfg.HeadPath), "snapshots")
	for _, n := range (snapshotStore{dir: snapDir}).names() {
		os.Remove(filepath.Join(snapDir, n))
	}
	bad := []byte(strings.Replace(string(newest), `"decisions":`, `"decisions":9`, 1))
	if string(bad) == string(newest) {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(filepath.Join(snapDir, "snapshot-x.json"), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	f.open()
	st := f.svc.Start()
	if st.FromSnapshot || len(st.Refused) != 1 || !strings.Contains(st.Refused[0], "mac mismatch") {
		t.Fatalf("start %+v", st)
	}
	if text := journalText(t, f); !strings.Contains(text, EventSnapshotRefused) || !strings.Contains(text, "replayed the whole journal") {
		t.Fatal("no leasedeck.snapshot.refused line in the journal")
	}
}

// Only the registry's own two newest snapshots are kept: a file left by a
// journal started over, or put there by someone else, is removed at the
// next write rather than outliving them under a higher seq.
func TestSnapshotWriteKeepsOnlyItsOwn(t *testing.T) {
	f, _ := snapshotted(t)
	dir := f.svc.snaps.store.dir
	os.MkdirAll(dir, 0o700)
	planted := filepath.Join(dir, "snapshot-99999999999999999999-99999999999999999999.json")
	if err := os.WriteFile(planted, []byte("not a snapshot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	workload(t, f, rand.New(rand.NewSource(3)), 10, nil)
	first, err := f.svc.WriteSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	workload(t, f, rand.New(rand.NewSource(4)), 10, nil)
	second, err := f.svc.WriteSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	names := f.svc.snaps.store.names()
	if len(names) != 2 || filepath.Join(dir, names[0]) != first || filepath.Join(dir, names[1]) != second {
		t.Fatalf("kept %v, wrote %s and %s", names, first, second)
	}
}
