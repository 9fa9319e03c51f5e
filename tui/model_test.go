package tui

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// updating reports -update: the teatest golden package already defines
// the flag, and these tests honour it for their own golden files too.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fakeActor records what the cockpit asked for.
type fakeActor struct {
	mu       sync.Mutex
	decided  []string // "id outcome scope reason"
	revoked  []string // "id reason"
	err      error
	revokeTo []string
}

func (f *fakeActor) Decide(id, outcome, scope, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decided = append(f.decided, strings.Join([]string{id, outcome, scope, reason}, "|"))
	return f.err
}

func (f *fakeActor) Revoke(id, reason string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revoked = append(f.revoked, id+"|"+reason)
	return f.revokeTo, f.err
}

var (
	fixtureOnce    sync.Once
	fixtureEntries []entry
	runsOnce       sync.Once
	runsEntries    []entry
)

func entries(t testing.TB) []entry {
	fixtureOnce.Do(func() { fixtureEntries = fixture(t) })
	return fixtureEntries
}

// runEntries is the fixture with two confined runs (fixtureWith).
func runEntries(t testing.TB) []entry {
	runsOnce.Do(func() { runsEntries = fixtureWith(t, true) })
	return runsEntries
}

// newTestModel is the cockpit at a fixed clock, size and colour profile
// (the plain theme), loaded with the fixture journal.
func newTestModel(t testing.TB, w, h int, actor Actor) *model {
	t.Helper()
	return newTestModelOf(t, w, h, actor, entries(t))
}

// newTestModelOf is newTestModel loaded with es.
func newTestModelOf(t testing.TB, w, h int, actor Actor, es []entry) *model {
	t.Helper()
	key := testKey(t)
	opts := Options{Workspace: "/home/dev/shop", Socket: "/home/dev/shop/.leasedeck/registry.sock", Key: &key,
		Mode: Embedded, PID: 4242, location: time.UTC, theme: plainTheme()}
	if actor != nil {
		opts.Actor = actor
	}
	m := newModel(opts)
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, clockMsg(t0.Add(31*time.Second)))
	send(m, journalMsg{Reset: true, Entries: es, Heads: [2]uint64{14, 30}, MACs: true})
	return m
}

// timerFired stands for a timer in tests: the test decides when time
// passes (it sends guardOffMsg, clockMsg… itself), so timers never fire.
type timerFired struct{ d time.Duration }

func testTimer(d time.Duration, _ func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg { return timerFired{d} }
}

// send runs one message through Update and, like the program would,
// every command it returns; timers are dropped (see timerFired).
func send(m *model, msg tea.Msg) []tea.Msg {
	m.timer = testTimer
	_, cmd := m.Update(msg)
	return runCmd(m, cmd)
}

func runCmd(m *model, cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	var out []tea.Msg
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			out = append(out, runCmd(m, c)...)
		}
	case nil, timerFired:
	case actionDone:
		out = append(out, msg)
		out = append(out, send(m, msg)...)
	default:
		out = append(out, msg)
	}
	return out
}

func screen(m *model) string { return ansi.Strip(m.View().Content) }

func press(m *model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "space":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
			if r >= 'A' && r <= 'Z' {
				msg.Code = r + 'a' - 'A'
				msg.Mod = tea.ModShift
			}
		}
		send(m, msg)
	}
}

func typeText(m *model, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./tui -run %s -update to accept):\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}

func TestGoldenViews(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
		keys []string
		runs bool // the fixture with confined runs
	}{
		{"cockpit-80x24.golden", 80, 24, []string{"esc"}, false},
		{"cockpit-160x48.golden", 160, 48, []string{"esc", "down"}, false},
		{"approval-160x48.golden", 160, 48, nil, false},
		{"budget-160x48.golden", 160, 48, []string{"esc", "2"}, false},
		{"lease-160x48.golden", 160, 48, []string{"esc", "4"}, false},
		{"refused-160x48.golden", 160, 48, []string{"esc", "down", "down"}, false},
		{"help-80x24.golden", 80, 24, []string{"esc", "?"}, false},
		{"too-small-20x5.golden", 20, 5, nil, false},
		{"queue-160x48.golden", 160, 48, []string{"a"}, false},
		{"quit-80x24.golden", 80, 24, []string{"q"}, false},
		{"revoked-160x48.golden", 160, 48, []string{"esc", "down", "down", "down"}, false},
		{"revoked-child-160x48.golden", 160, 48, []string{"esc", "down", "down", "down", "down"}, false},
		{"confined-160x48.golden", 160, 48, []string{"esc", "down", "down", "down", "down", "down"}, true},
		{"confined-80x24.golden", 80, 24, []string{"esc", "down", "down", "down", "down", "down"}, true},
		{"unconfined-160x48.golden", 160, 48, []string{"esc", "down", "down", "down", "down", "down", "down"}, true},
		{"confined-too-small-20x5.golden", 20, 5, []string{"esc"}, true},
		{"asked-in-client-160x48.golden", 160, 48, []string{"esc", "a"}, true},
		{"asked-in-client-80x24.golden", 80, 24, []string{"esc", "a"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			es := entries(t)
			if c.runs {
				es = runEntries(t)
			}
			m := newTestModelOf(t, c.w, c.h, &fakeActor{}, es)
			press(m, c.keys...)
			got := screen(m)
			for i, l := range strings.Split(got, "\n") {
				if w := ansi.StringWidth(l); w != c.w {
					t.Errorf("line %d is %d cells wide, want %d: %q", i, w, c.w, l)
				}
			}
			if n := strings.Count(got, "\n") + 1; n != c.h {
				t.Errorf("%d lines, want %d", n, c.h)
			}
			golden(t, c.name, got)
		})
	}
}

func TestTreeShowsEveryLeaseAndRefusal(t *testing.T) {
	m := newTestModel(t, 160, 48, &fakeActor{})
	press(m, "esc")
	s := screen(m)
	for _, want := range []string{"claude-code #1", "test-writer", "ticket-bot", "codex-cli #2", "docs-writer",
		"✗", "⊘", "◆", "revoked", "refused", "chain ✓ verified", "⚑ 1 pending", "leases #14 audit #30",
		"EMBEDDED registry pid 4242"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if got := len(m.tree.rows); got != 5 {
		t.Errorf("%d rows, want 5", got)
	}
}

func TestApprovalModalGuardAndKeys(t *testing.T) {
	fa := &fakeActor{}
	m := newTestModel(t, 160, 48, fa)
	if m.overlay != approvalOverlay || !m.appr.guard {
		t.Fatalf("the pending request did not pop up guarded: overlay %v guard %v", m.overlay, m.appr.guard)
	}
	if !strings.Contains(screen(m), "APPROVAL NEEDED") || !strings.Contains(screen(m), "command:rm") {
		t.Fatalf("modal not drawn:\n%s", screen(m))
	}
	// During the guard, no key decides anything: the request steps
	// aside and the key goes to the screen beneath.
	press(m, "y", "Y", "n")
	if len(fa.decided) != 0 || m.appr.typing || m.overlay != noOverlay {
		t.Fatalf("a key decided during the 400 ms guard: %v typing=%v overlay=%v", fa.decided, m.appr.typing, m.overlay)
	}
	// It comes back only once the keyboard is still, guarded again.
	settle(m)
	if m.overlay != approvalOverlay || !m.appr.guard {
		t.Fatalf("the request did not come back guarded: %v %+v", m.overlay, m.appr)
	}
	unguard(m)
	// Enter never approves: it starts a deny.
	press(m, "enter")
	if !m.appr.typing || len(fa.decided) != 0 {
		t.Fatalf("enter did not start a deny: typing=%v decided=%v", m.appr.typing, fa.decided)
	}
	typeText(m, "not now")
	press(m, "enter")
	if len(fa.decided) != 1 || !strings.HasSuffix(fa.decided[0], "|denied||not now") {
		t.Fatalf("deny not sent with its reason: %v", fa.decided)
	}
	if m.overlay == approvalOverlay {
		t.Error("the modal stayed open after the decision")
	}
}

func TestApproveOnceAndForLease(t *testing.T) {
	for _, c := range []struct{ key, want string }{{"y", "|approved|once|"}, {"Y", "|approved|lease|"}} {
		fa := &fakeActor{}
		m := newTestModel(t, 80, 24, fa)
		unguard(m)
		press(m, c.key)
		if len(fa.decided) != 1 || !strings.HasSuffix(fa.decided[0], c.want) {
			t.Errorf("%s sent %v, want …%s", c.key, fa.decided, c.want)
		}
		if !strings.Contains(screen(m), "approved") {
			t.Errorf("%s: no confirmation on screen:\n%s", c.key, screen(m))
		}
	}
}

func TestDeferHidesUntilANewRequest(t *testing.T) {
	m := newTestModel(t, 80, 24, &fakeActor{})
	id := m.appr.id
	unguard(m)
	press(m, "esc")
	if m.overlay != noOverlay {
		t.Fatal("esc did not hide the request")
	}
	// The same request does not come back by itself…
	settle(m)
	send(m, journalMsg{Heads: m.heads})
	if m.overlay != noOverlay {
		t.Fatal("a deferred request came back without a new one")
	}
	// …but `a` lists it, and enter opens it.
	press(m, "a")
	if m.overlay != queueOverlay || !strings.Contains(screen(m), "APPROVALS — 1 waiting") {
		t.Fatalf("a did not open the approvals view: %v\n%s", m.overlay, screen(m))
	}
	press(m, "enter")
	if m.overlay != approvalOverlay || m.appr.id != id || m.appr.guard {
		t.Fatalf("enter did not open the request: %v %v", m.overlay, m.appr)
	}
}

func TestActionErrorShownAndRequestKept(t *testing.T) {
	fa := &fakeActor{err: &wire.Error{Code: wire.JournalUnavailable, Message: "journal is broken"}}
	m := newTestModel(t, 160, 48, fa)
	id := m.appr.id
	unguard(m)
	press(m, "y")
	if m.overlay != approvalOverlay || m.appr.id != id {
		t.Fatal("the request was not shown again after the failure")
	}
	if s := screen(m); !strings.Contains(s, "journal is broken") {
		t.Errorf("the error is not on screen:\n%s", s)
	}
}

func TestRevokeNeedsReasonAndShowsCascade(t *testing.T) {
	fa := &fakeActor{revokeTo: []string{"a", "b"}}
	m := newTestModel(t, 160, 48, fa)
	press(m, "esc") // defer the approval
	// The first row is the claude-code session: it and its live child.
	press(m, "x")
	if m.overlay != revokeOverlay {
		t.Fatalf("x did not open the revoke confirmation: %s", m.flash)
	}
	if m.rev.cascade != 2 || !strings.Contains(screen(m), "This closes 2 live leases: this one and 1 below it.") {
		t.Fatalf("blast radius wrong (%d):\n%s", m.rev.cascade, screen(m))
	}
	press(m, "enter")
	if len(fa.revoked) != 0 || m.rev.err == "" {
		t.Fatal("revoked without a reason")
	}
	typeText(m, "runaway")
	press(m, "backspace")
	typeText(m, "y agent")
	press(m, "enter")
	if len(fa.revoked) != 1 || !strings.HasSuffix(fa.revoked[0], "|runaway agent") {
		t.Fatalf("revoke sent %v", fa.revoked)
	}
	if m.overlay == revokeOverlay || !strings.Contains(m.flash, "revoked 2 lease(s)") {
		t.Errorf("no confirmation: overlay %v flash %q", m.overlay, m.flash)
	}
}

func TestRevokeClosedLeaseRefused(t *testing.T) {
	fa := &fakeActor{}
	m := newTestModel(t, 160, 48, fa)
	press(m, "esc")
	m.tree.cursor = m.tree.index[findAgent(t, m, "codex-cli #2")]
	press(m, "x")
	if m.overlay == revokeOverlay || !strings.Contains(m.flash, "revoked: nothing to revoke") {
		t.Errorf("a revoked lease offered to revoke again: %v %q", m.overlay, m.flash)
	}
}

func findAgent(t *testing.T, m *model, name string) string {
	for _, id := range m.deck.St.Order {
		if m.deck.St.Leases[id].Agent().Name == name {
			return id
		}
	}
	t.Fatalf("no lease for %s", name)
	return ""
}

func TestReadOnlyNeverActs(t *testing.T) {
	key := testKey(t)
	m := newModel(Options{Mode: ReadOnly, location: time.UTC, theme: plainTheme(), Key: &key})
	send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	send(m, journalMsg{Reset: true, Entries: entries(t), MACs: true})
	if m.overlay != noOverlay {
		t.Fatal("a read-only cockpit popped an approval")
	}
	press(m, "x")
	if m.overlay != noOverlay || !strings.Contains(m.flash, "read-only") {
		t.Errorf("x in read-only: %v %q", m.overlay, m.flash)
	}
	if s := screen(m); !strings.Contains(s, "READ-ONLY") || !strings.Contains(s, "⚑ 1 pending") {
		t.Errorf("status bar:\n%s", s)
	}
}

func TestBrokenChainBannerAndReadOnly(t *testing.T) {
	fa := &fakeActor{}
	m := newTestModel(t, 100, 30, fa)
	press(m, "esc")
	send(m, journalMsg{Breaks: []string{"audit.jsonl seq 12: prev does not match the line before"}, Heads: m.heads, MACs: true})
	s := screen(m)
	if !strings.Contains(s, "JOURNAL CHAIN BROKEN") || !strings.Contains(s, "chain ✗ BROKEN") {
		t.Fatalf("no banner:\n%s", s)
	}
	press(m, "x")
	if m.overlay == revokeOverlay || !strings.Contains(m.flash, "chain is broken") {
		t.Errorf("revoke allowed on a broken chain: %q", m.flash)
	}
	press(m, "a")
	unguard(m)
	press(m, "y")
	if len(fa.decided) != 0 {
		t.Errorf("approved on a broken chain: %v", fa.decided)
	}
}

func TestRegistryGoneWhileAttached(t *testing.T) {
	fa := &fakeActor{}
	key := testKey(t)
	m := newModel(Options{Mode: Attached, PID: 777, Actor: fa, location: time.UTC, theme: plainTheme(), Key: &key})
	send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	send(m, journalMsg{Reset: true, Entries: entries(t), MACs: true})
	if !strings.Contains(screen(m), "attached to pid 777") {
		t.Fatalf("status bar:\n%s", screen(m))
	}
	send(m, registryMsg{Up: false, Err: "the registry closed its socket"})
	s := screen(m)
	if !strings.Contains(s, "registry pid 777 is GONE") || !strings.Contains(s, "REGISTRY pid 777 IS GONE") {
		t.Fatalf("no sign the registry died:\n%s", s)
	}
	unguard(m)
	press(m, "y")
	if len(fa.decided) != 0 || !strings.Contains(m.appr.err, "is gone") {
		t.Errorf("acted with the registry gone: %v %q", fa.decided, m.appr.err)
	}
	send(m, registryMsg{Up: true, PID: 778})
	if !strings.Contains(screen(m), "attached to pid 778") {
		t.Errorf("did not notice the registry back:\n%s", screen(m))
	}
}

func TestTerminalTooSmall(t *testing.T) {
	for _, sz := range [][2]int{{20, 5}, {1, 1}, {59, 40}, {200, 10}} {
		m := newTestModel(t, sz[0], sz[1], &fakeActor{})
		s := screen(m)
		if !strings.Contains(strings.ReplaceAll(s, "\n", " "), "too") && sz[0] > 4 {
			t.Errorf("%v: no message:\n%s", sz, s)
		}
		press(m, "x", "y", "down", "?") // nothing may crash
		_ = screen(m)
	}
	m := newTestModel(t, 20, 5, &fakeActor{})
	send(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	if !strings.Contains(screen(m), "Leases") {
		t.Error("growing the terminal did not bring the cockpit back")
	}
}

func TestFilterSortAndHelp(t *testing.T) {
	m := newTestModel(t, 160, 48, &fakeActor{})
	press(m, "esc", "/")
	typeText(m, "agent:docs")
	press(m, "enter")
	if len(m.tree.rows) != 2 || !m.tree.rows[0].context || m.tree.rows[1].context {
		t.Fatalf("filter rows: %+v", m.tree.rows)
	}
	if !strings.Contains(screen(m), `filter "agent:docs": 2 shown`) {
		t.Errorf("filter not shown:\n%s", screen(m))
	}
	press(m, "/", "esc")
	if len(m.tree.rows) != 5 {
		t.Fatalf("esc did not clear the filter: %d rows", len(m.tree.rows))
	}
	press(m, "/")
	typeText(m, "status:refused")
	press(m, "enter")
	if len(m.tree.rows) != 2 || m.deck.St.Leases[m.tree.rows[1].id].Status != registry.Refused {
		t.Errorf("status filter: %+v", m.tree.rows)
	}
	press(m, "/", "esc", "/")
	typeText(m, "tool:write")
	press(m, "enter")
	if len(m.tree.rows) != 4 { // claude-code #1 > test-writer, codex-cli #2 > docs-writer
		t.Errorf("tool filter: %d rows", len(m.tree.rows))
	}
	press(m, "/", "esc")
	for i := 0; i < int(sortModes); i++ {
		press(m, "s")
		if len(m.tree.rows) != 5 {
			t.Fatalf("sort %v lost rows", m.tree.sort)
		}
	}
	if m.tree.sort != sortIssued {
		t.Errorf("s did not cycle back: %v", m.tree.sort)
	}
	press(m, "?")
	s := screen(m)
	for range 80 { // the help is taller than the screen: read all of it
		press(m, "j")
		s += screen(m)
	}
	for _, g := range legendGlyphs {
		if !strings.Contains(s, g[1]) {
			t.Errorf("the legend lacks %q", g[1])
		}
	}
	for _, sec := range defaultKeyMap().Sections() {
		for _, b := range sec.Bindings {
			if !strings.Contains(s, b.Help().Desc) {
				t.Errorf("help lacks %q", b.Help().Desc)
			}
		}
	}
}

func TestExpandCollapseAndMouse(t *testing.T) {
	m := newTestModel(t, 160, 48, &fakeActor{})
	press(m, "esc", "space")
	if len(m.tree.rows) != 3 {
		t.Fatalf("collapse: %d rows", len(m.tree.rows))
	}
	press(m, "l")
	if len(m.tree.rows) != 5 {
		t.Fatalf("expand: %d rows", len(m.tree.rows))
	}
	press(m, "down", "h") // on the child: h goes to its parent
	if m.tree.cursor != 0 {
		t.Errorf("h on a leaf did not go to the parent: %d", m.tree.cursor)
	}
	send(m, tea.MouseClickMsg{X: 5, Y: m.lay.treeY + 3, Button: tea.MouseLeft})
	if m.tree.cursor != 3 {
		t.Errorf("click selected row %d", m.tree.cursor)
	}
	send(m, tea.MouseWheelMsg{X: 150, Y: m.lay.detY + 2, Button: tea.MouseWheelDown})
	if m.detailOff == 0 {
		t.Error("wheel over the detail pane did not scroll it")
	}
	send(m, tea.WindowSizeMsg{Width: 90, Height: 30})
	if m.lay.side || m.tree.height != m.lay.treeH {
		t.Errorf("resize: %+v", m.lay)
	}
}

func TestWindowTitleAndBell(t *testing.T) {
	m := newModel(Options{Actor: &fakeActor{}, location: time.UTC, theme: plainTheme()})
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	_, cmd := m.Update(journalMsg{Reset: true, Entries: entries(t)})
	rang := false
	for _, msg := range runCmd(m, cmd) {
		if r, ok := msg.(tea.RawMsg); ok && r.Msg == "\a" {
			rang = true
		}
	}
	if !rang {
		t.Error("no bell for a new request")
	}
	if got := m.View().WindowTitle; got != "leasedeck — 1 pending approval(s)" {
		t.Errorf("title %q", got)
	}
}

func TestActionErrorMessages(t *testing.T) {
	if got := actionError(errors.Join(wire.ErrUnreachable, errors.New("dial unix x: connect: no such file"))); !strings.Contains(got, "unreachable") {
		t.Errorf("%q", got)
	}
}

// unguard ends the key guard of the open request, as its timer would.
func unguard(m *model) { send(m, guardOffMsg{m.appr.id, m.appr.gen}) }

// settle says the keyboard has been still, as the quiet timer would.
func settle(m *model) { send(m, quietMsg{m.keySeq}) }

// splitAtRequest is the fixture before its approval request and from it.
func splitAtRequest(t *testing.T) (before, from []entry) {
	es := entries(t)
	for i, e := range es {
		if e.Value["event_type"] == "leasedeck.approval.requested" {
			return es[:i], es[i:]
		}
	}
	t.Fatal("the fixture has no approval request")
	return nil, nil
}

// Typing a filter while a request arrives decides nothing: the request
// waits while a text field is open and while keys come, and a key
// typed into a request that opened by itself puts it aside and goes
// where it was aimed.
func TestTypingThroughAnArrivingRequestDecidesNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		arrive int // after this many runes of the typing
	}{{"before the slash", 0}, {"inside the filter", 4}, {"between filters", 14}, {"at the last enter", 39}} {
		t.Run(c.name, func(t *testing.T) {
			fa := &fakeActor{}
			m := newTestModel(t, 160, 48, fa)
			before, from := splitAtRequest(t)
			send(m, journalMsg{Reset: true, Entries: before, Heads: m.heads, MACs: true})
			typed := []string{}
			for _, r := range "/status:ready\n/tool:WebFetch\n/tool:Bash\n" {
				typed = append(typed, string(r))
			}
			for i, k := range typed {
				if i == c.arrive {
					send(m, journalMsg{Entries: from, Heads: m.heads, MACs: true})
				}
				if k == "\n" {
					k = "enter"
				}
				press(m, k)
				if i == c.arrive {
					unguard(m) // even with the guard over, typing decides nothing
				}
			}
			if len(fa.decided) != 0 {
				t.Fatalf("typing decided %v", fa.decided)
			}
			if m.tree.filter.raw != "tool:Bash" {
				t.Errorf("the typing did not reach the filter: %q", m.tree.filter.raw)
			}
			// Once the keyboard is still the request opens, guarded.
			settle(m)
			if m.overlay != approvalOverlay || !m.appr.guard {
				t.Fatalf("the request did not open once the keyboard was still: %v %+v", m.overlay, m.appr)
			}
			unguard(m)
			press(m, "y")
			if len(fa.decided) != 1 || !strings.Contains(fa.decided[0], "|approved|once|") {
				t.Errorf("a deliberate y did not approve: %v", fa.decided)
			}
		})
	}
}

// A y that comes hard on the heels of another key (the y of "ready")
// is typing, not a decision, even on a request drawn and past its guard.
func TestADecisionKeyMustFollowAPause(t *testing.T) {
	fa := &fakeActor{}
	m := newTestModel(t, 160, 48, fa)
	unguard(m)
	send(m, tea.KeyPressMsg{Code: 'd', Text: "d"}) // steps it aside
	settle(m)
	unguard(m)
	m.quiet = false // a key a moment ago, its quiet timer not yet fired
	press(m, "y")
	if len(fa.decided) != 0 || m.overlay == approvalOverlay {
		t.Fatalf("a y inside typing decided: %v overlay %v", fa.decided, m.overlay)
	}
}

// An empty cockpit says what to do next, with the exact commands.
func TestEmptyCockpitSaysWhatToDo(t *testing.T) {
	m := newModel(Options{Workspace: "/home/dev/shop", Actor: &fakeActor{}, PID: 1, location: time.UTC, theme: plainTheme()})
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	send(m, clockMsg(t0))
	send(m, journalMsg{Reset: true})
	s := screen(m)
	for _, want := range []string{"No leases yet", "leasedeck install claude-code", "codex, gemini, vscode", "cd /home/dev/shop && claude", "leasedeck demo"} {
		if !strings.Contains(s, want) {
			t.Errorf("the empty cockpit lacks %q:\n%s", want, s)
		}
	}
	golden(t, "empty-100x30.golden", s)
	// Nothing depends on it: q quits at once.
	if msgs := send(m, tea.KeyPressMsg{Code: 'q', Text: "q"}); !hasQuit(msgs) {
		t.Errorf("q did not quit an empty cockpit: %v", msgs)
	}
}

func hasQuit(msgs []tea.Msg) bool {
	for _, msg := range msgs {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// A long call is shown whole: its numbered lines scroll, the programs
// the gate derived stay above them, and the dialog says how much is
// below before anything can be approved.
func TestApprovalShowsALongCallWhole(t *testing.T) {
	es := append([]entry(nil), entries(t)...)
	long := "# " + strings.Repeat("a harmless looking comment ", 30)
	for i, e := range es {
		if e.Value["event_type"] != "leasedeck.approval.requested" {
			continue
		}
		v := map[string]any{}
		for k, x := range e.Value {
			v[k] = x
		}
		text := long + strings.Repeat("\necho step", 30) + "\nrm -rf ~/"
		v["call"] = map[string]any{"text": text, "programs": []any{"echo", "rm"}, "writes": []any{"~/"}}
		es[i] = entry{Kind: e.Kind, Seq: e.Seq, Value: v}
	}
	m := newTestModel(t, 160, 48, &fakeActor{})
	send(m, journalMsg{Reset: true, Entries: es, Heads: m.heads, MACs: true})
	unguard(m)
	s := screen(m)
	for _, want := range []string{"runs    echo, rm", "writes  ~/", "1│ # a harmless looking comment", "┆", "more line(s) below: read them before approving"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "rm -rf ~/") {
		t.Fatalf("the last line is visible without scrolling; the test needs a longer call:\n%s", s)
	}
	for range 60 {
		press(m, "j")
		settle(m)
	}
	if s := screen(m); !strings.Contains(s, "32│ rm -rf ~/") {
		t.Errorf("scrolling did not reach the last line:\n%s", s)
	}
}

// Many requests: the approvals view lists them all, sorts and filters
// them, and denies the marked ones with one reason.
func TestApprovalsViewBulkDeny(t *testing.T) {
	es := append([]entry(nil), entries(t)...)
	var req entry
	for _, e := range es {
		if e.Value["event_type"] == "leasedeck.approval.requested" {
			req = e
		}
	}
	seq := es[len(es)-1].Seq
	for i := 2; i <= 4; i++ {
		v := map[string]any{}
		for k, x := range req.Value {
			v[k] = x
		}
		d := map[string]any{}
		for k, x := range req.Value["details"].(map[string]any) {
			d[k] = x
		}
		d["approval_id"] = fmt.Sprintf("ffffffff-0000-4000-8000-%012d", i)
		v["details"] = d
		v["summary"] = fmt.Sprintf("Bash: runs curl #%d", i)
		seq++
		es = append(es, entry{Kind: req.Kind, Seq: seq, Value: v})
	}
	fa := &fakeActor{}
	m := newTestModel(t, 160, 48, fa)
	send(m, journalMsg{Reset: true, Entries: es, Heads: m.heads, MACs: true})
	press(m, "a")
	if m.overlay != queueOverlay || len(m.queueRows()) != 4 {
		t.Fatalf("the view does not list 4 requests: %v %d\n%s", m.overlay, len(m.queueRows()), screen(m))
	}
	press(m, "/")
	typeText(m, "curl #3")
	press(m, "enter")
	if rows := m.queueRows(); len(rows) != 1 {
		t.Fatalf("the filter left %d rows", len(rows))
	}
	press(m, "/", "esc", "space", "space", "D")
	typeText(m, "code freeze")
	press(m, "enter")
	if len(fa.decided) != 2 {
		t.Fatalf("the bulk deny sent %v", fa.decided)
	}
	for _, d := range fa.decided {
		if !strings.HasSuffix(d, "|denied||code freeze") {
			t.Errorf("not a deny with the one reason: %q", d)
		}
	}
	if !strings.Contains(m.flash, "denied 2 request(s): code freeze") || len(m.queueRows()) != 2 {
		t.Errorf("after the bulk deny: flash %q, %d rows left", m.flash, len(m.queueRows()))
	}
}

// The bell rings once for a burst, not once per request, and M mutes it.
func TestBellIsRateLimitedAndMutable(t *testing.T) {
	rings := func(msgs []tea.Msg) int {
		n := 0
		for _, msg := range msgs {
			if r, ok := msg.(tea.RawMsg); ok && strings.HasPrefix(fmt.Sprint(r.Msg), "\a") {
				n++
			}
		}
		return n
	}
	m := newModel(Options{Actor: &fakeActor{}, location: time.UTC, theme: plainTheme(), notify: notifyOSC9})
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	before, from := splitAtRequest(t)
	send(m, journalMsg{Reset: true, Entries: before})
	got := send(m, journalMsg{Entries: from})
	if rings(got) != 1 {
		t.Fatalf("first request: %d rings", rings(got))
	}
	var note string
	for _, msg := range got {
		if r, ok := msg.(tea.RawMsg); ok {
			note = fmt.Sprint(r.Msg)
		}
	}
	if !strings.Contains(note, "\x1b]9;1 approval request(s) waiting") {
		t.Errorf("no desktop notification: %q", note)
	}
	// A second request inside the quiet period does not ring…
	m.seenReq = map[string]bool{}
	if n := rings(runCmd(m, m.syncApproval())); n != 0 {
		t.Errorf("rang %d times inside the quiet period", n)
	}
	// …until it ends, once.
	if n := rings(send(m, bellOffMsg{})); n != 1 {
		t.Errorf("the end of the quiet period rang %d times", n)
	}
	send(m, bellOffMsg{})
	m.overlay = noOverlay
	press(m, "M")
	m.seenReq = map[string]bool{}
	if n := rings(runCmd(m, m.syncApproval())); n != 0 || !m.bellMuted {
		t.Errorf("a muted bell rang %d times", n)
	}
}

func TestNotifierFromTheTerminal(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want notifier
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, notifyOSC9},
		{map[string]string{"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/x"}, notifyNone},
		{map[string]string{"TERM": "rxvt-unicode-256color"}, notifyOSC777},
		{map[string]string{"TERM": "xterm-256color"}, notifyNone},
		{map[string]string{"LEASEDECK_NOTIFY": "osc777", "TMUX": "/tmp/x"}, notifyOSC777},
		{map[string]string{"LEASEDECK_NOTIFY": "off", "TERM_PROGRAM": "WezTerm"}, notifyNone},
	} {
		if got := detectNotifier(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %q, want %q", c.env, got, c.want)
		}
	}
	if s := notifyOSC777.notification("a;b\x07c"); s != "\x1b]777;notify;leasedeck;a,b c\a" {
		t.Errorf("an unsafe body reached the terminal: %q", s)
	}
}

// q asks while this cockpit's registry governs live sessions, says what
// is affected, and tells the waiting agents the truth when it quits.
func TestQuitAsksAndTellsTheAgents(t *testing.T) {
	fa := &fakeActor{}
	m := newTestModel(t, 120, 40, fa)
	unguard(m)
	press(m, "q")
	if m.overlay != quitOverlay {
		t.Fatalf("q did not ask: %v", m.overlay)
	}
	s := screen(m)
	for _, want := range []string{"QUIT AND STOP THE REGISTRY?", "governs 1 live session(s)", "1 approval request(s) are waiting", "registry stopped"} {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	press(m, "esc")
	if m.overlay != noOverlay || len(fa.decided) != 0 {
		t.Fatalf("esc did not stay: %v %v", m.overlay, fa.decided)
	}
	press(m, "q")
	msgs := send(m, tea.KeyPressMsg{Code: 'y', Text: "y"})
	if len(fa.decided) != 1 || !strings.HasSuffix(fa.decided[0], "|denied||"+reasonRegistryStopped) {
		t.Errorf("the waiting agent was not told: %v", fa.decided)
	}
	_ = msgs
}

// A request that closes while its deny reason is being typed (decided
// elsewhere, or expired) does not hand the rest of the typing to the
// screen beneath, where "fix the tests⏎" would start and confirm a
// revocation.
func TestTypingOutlivesAClosedRequestHarmlessly(t *testing.T) {
	fa := &fakeActor{}
	m := newTestModel(t, 160, 48, fa)
	unguard(m)
	press(m, "n")
	typeText(m, "no")
	// Decided from another cockpit meanwhile.
	id := m.appr.id
	seq := m.heads[1] + 1
	send(m, journalMsg{Entries: []entry{{Kind: 1, Seq: seq, Value: map[string]any{
		"schema_version": "1.2", "timestamp": "2026-03-14T09:30:40Z", "event_type": "leasedeck.approval.decided",
		"details": map[string]any{"approval_id": id, "outcome": "denied", "by": "operator"}}}}})
	if m.overlay == approvalOverlay {
		t.Fatal("the decided request stayed open")
	}
	typeText(m, " fix the tests")
	press(m, "enter")
	if m.overlay == revokeOverlay || len(fa.revoked) != 0 || len(fa.decided) != 0 {
		t.Fatalf("typing reached the screen beneath: overlay %v revoked %v decided %v", m.overlay, fa.revoked, fa.decided)
	}
	settle(m)
	press(m, "x")
	if m.overlay != revokeOverlay {
		t.Errorf("after a pause, keys do not work again: %v", m.overlay)
	}
}

// Closed leases explain themselves: one that ran out of time says so,
// and a refused one whose manifest does not even parse still shows the
// refusal rather than a blank row.
func TestClosedAndRefusedLeasesExplainThemselves(t *testing.T) {
	m := newTestModel(t, 160, 48, &fakeActor{})
	unguard(m)
	press(m, "esc")
	send(m, clockMsg(t0.Add(9*time.Hour)))
	s := screen(m)
	for _, want := range []string{"◌ EXPIRED", "by   its time limit", "why  it reached expires_at (8h00m after issue)"} {
		if !strings.Contains(s, want) {
			t.Errorf("an expired lease does not say %q:\n%s", want, s)
		}
	}
	for _, c := range []struct {
		declared      map[string]any
		reason        string
		codes         []string
		agent, prefix string
	}{
		{nil, "", []string{"R1"}, "(invalid manifest)", "refused: R1: "},
		{map[string]any{"agent": map[string]any{"name": "half-written"}}, "manifest: /intent is required", nil, "half-written", "refused: manifest: /intent is required"},
		{map[string]any{"agent": 7}, "", nil, "(invalid manifest)", "refused: refused"},
	} {
		l := &registry.LeaseState{ID: "x", Status: registry.Refused, Declared: c.declared, Reason: c.reason, Reasons: c.codes}
		agent, purpose := refusedLabel(l)
		if agent != c.agent || !strings.HasPrefix(purpose, c.prefix) {
			t.Errorf("%v: %q / %q, want %q / %q…", c.declared, agent, purpose, c.agent, c.prefix)
		}
	}
}
