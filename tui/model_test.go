package tui

import (
	"errors"
	"flag"
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
)

func entries(t testing.TB) []entry {
	fixtureOnce.Do(func() { fixtureEntries = fixture(t) })
	return fixtureEntries
}

// newTestModel is the cockpit at a fixed clock, size and colour profile
// (the plain theme), loaded with the fixture journal.
func newTestModel(t testing.TB, w, h int, actor Actor) *model {
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
	send(m, journalMsg{Reset: true, Entries: entries(t), Heads: [2]uint64{14, 30}, MACs: true})
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
	}{
		{"cockpit-80x24.golden", 80, 24, []string{"esc"}},
		{"cockpit-160x48.golden", 160, 48, []string{"esc", "down"}},
		{"approval-160x48.golden", 160, 48, nil},
		{"budget-160x48.golden", 160, 48, []string{"esc", "2"}},
		{"lease-160x48.golden", 160, 48, []string{"esc", "4"}},
		{"refused-160x48.golden", 160, 48, []string{"esc", "down", "down"}},
		{"help-80x24.golden", 80, 24, []string{"esc", "?"}},
		{"too-small-20x5.golden", 20, 5, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(t, c.w, c.h, &fakeActor{})
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
	// During the guard, no key decides anything.
	press(m, "y", "Y", "n", "enter")
	if len(fa.decided) != 0 || m.appr.typing {
		t.Fatalf("a key decided during the 400 ms guard: %v typing=%v", fa.decided, m.appr.typing)
	}
	send(m, guardOffMsg{m.appr.id})
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
		send(m, guardOffMsg{m.appr.id})
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
	press(m, "esc")
	if m.overlay != noOverlay {
		t.Fatal("esc did not hide the request")
	}
	// The same request does not come back by itself…
	send(m, journalMsg{Heads: m.heads})
	if m.overlay != noOverlay {
		t.Fatal("a deferred request came back without a new one")
	}
	// …but `a` brings it back, guarded again.
	press(m, "a")
	if m.overlay != approvalOverlay || m.appr.id != id || !m.appr.guard {
		t.Fatalf("a did not reopen the request guarded: %v %v", m.overlay, m.appr)
	}
}

func TestActionErrorShownAndRequestKept(t *testing.T) {
	fa := &fakeActor{err: &wire.Error{Code: wire.JournalUnavailable, Message: "journal is broken"}}
	m := newTestModel(t, 160, 48, fa)
	id := m.appr.id
	send(m, guardOffMsg{id})
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
	send(m, guardOffMsg{m.appr.id})
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
	send(m, guardOffMsg{m.appr.id})
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
