package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/schemas"
)

// Mode says how the cockpit reaches its registry.
type Mode int

const (
	// Embedded: the registry runs in this process (the cockpit took the
	// workspace lock); actions still go through its socket.
	Embedded Mode = iota
	// Attached: another process holds the lock; actions go over the
	// socket with the operator token.
	Attached
	// ReadOnly: watch only; no approve, deny or revoke.
	ReadOnly
)

func (m Mode) String() string {
	return [...]string{"EMBEDDED", "ATTACHED", "READ-ONLY"}[m]
}

// Actor performs the cockpit's actions. The cockpit calls it from a
// tea.Cmd, never from Update.
type Actor interface {
	Decide(approvalID, outcome, scope, reason string) error
	Revoke(leaseID, reason string) (revoked []string, err error)
}

// Options configure the cockpit.
type Options struct {
	Workspace  string        // the workspace root, for the header
	JournalDir string        // the journal the cockpit follows
	Socket     string        // the registry socket, for the status bar
	Key        *registry.Key // the workspace key: lease signatures and line macs; nil skips both
	Mode       Mode
	PID        int   // the registry's pid (this process when embedded)
	Actor      Actor // nil: read-only
	Location   *time.Location
	Theme      *Theme
	Keys       *KeyMap
	Note       string // shown in the header, e.g. the demo's temporary workspace
	// Guard is how long a new approval request ignores keys; default
	// 400 ms.
	Guard time.Duration
	// Now is the clock the ticks read (inside a tea.Cmd, never in
	// Update); default time.Now. Tests fix it.
	Now func() time.Time
}

// Messages the model receives besides JournalMsg.
type (
	// TickMsg sets the clock (tests, and anything that wants to move it);
	// the cockpit's own clock arrives as tickMsg.
	TickMsg time.Time
	tickMsg struct {
		at  time.Time
		gen int
	}
	// RegistryMsg reports the attached registry coming or going.
	RegistryMsg struct {
		Up  bool
		PID int
		Err string
	}
	guardOffMsg struct{ id string }
	flashOffMsg struct{ id int }
	actionDone  struct {
		id      int
		kind    string // approve, deny, revoke
		target  string // approval or lease id
		label   string
		revoked int
		err     error
	}
)

type overlayKind int

const (
	noOverlay overlayKind = iota
	approvalOverlay
	revokeOverlay
	helpOverlay
	filterOverlay
)

// approvalState is the approval modal's state.
type approvalState struct {
	id      string
	guard   bool
	typing  bool
	reason  string
	sending string
	err     string
}

type revokeState struct {
	id      string
	reason  string
	cascade int
	sending bool
	err     string
}

// Model is the cockpit's one root model (UI rule 1): everything below it
// is plain structs and pure renderers.
type Model struct {
	opts  Options
	theme *Theme
	keys  KeyMap
	loc   *time.Location

	deck *Deck
	tree tree
	now  time.Time

	w, h int
	lay  layout

	tab       tab
	detailOff int
	detail    detailCache
	rows      map[rowKey]string
	docs      map[string]LeaseDoc
	ver       registry.Verifier

	loaded     bool
	heads      [2]uint64
	breaks     []string
	macs       bool
	journalErr string

	regUp  bool
	regPID int
	regErr string

	overlay  overlayKind
	appr     approvalState
	rev      revokeState
	filterIn string
	helpOff  int
	seenReq  map[string]bool // every request ever shown, for the bell
	deferred map[string]bool // requests hidden by esc until a new one arrives
	deciding map[string]bool // decisions sent (or done) from here

	counts     counts
	nextExpiry time.Time // the earliest expires_at among open leases
	tickGen    int
	tickFast   bool
	feedCache  feedCache

	// timer is tea.Tick; tests replace it so that they own time.
	timer func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	flash    string
	flashErr bool
	flashID  int
	actionID int
}

type rowKey struct {
	id                          string
	width                       int
	ver                         uint64
	left                        string
	selected, expanded, context bool
	status                      string
}

type detailCache struct {
	id    string
	tab   tab
	width int
	ver   uint64
	sec   int64
	lines []string
}

// New builds the cockpit model.
func New(opts Options) *Model {
	m := &Model{
		opts: opts, theme: opts.Theme, loc: opts.Location,
		deck: NewDeck(), tree: newTree(),
		rows: map[rowKey]string{}, docs: map[string]LeaseDoc{},
		seenReq: map[string]bool{}, deferred: map[string]bool{}, deciding: map[string]bool{},
		regUp: true, regPID: opts.PID, timer: tea.Tick,
	}
	if m.theme == nil {
		m.theme = NewTheme(true)
	}
	if opts.Keys != nil {
		m.keys = *opts.Keys
	} else {
		m.keys = DefaultKeyMap()
	}
	if m.loc == nil {
		m.loc = time.Local
	}
	if m.opts.Now == nil {
		m.opts.Now = time.Now
	}
	if m.opts.Guard <= 0 {
		m.opts.Guard = 400 * time.Millisecond
	}
	return m
}

// Init starts the clock and asks the terminal for its background, so the
// palette fits it.
func (m *Model) Init() tea.Cmd {
	m.tickGen++
	gen, now := m.tickGen, m.opts.Now
	return tea.Batch(tea.RequestBackgroundColor, func() tea.Msg { return tickMsg{now(), gen} })
}

// The clock ticks once a second only while something on screen counts
// seconds (an approval's countdown, a lease with under an hour left, the
// Budget tab); otherwise once a minute, on the minute. An idle cockpit
// thus wakes up once a minute, not sixty or even one time a second.
func (m *Model) needSeconds() bool {
	if m.overlay == approvalOverlay || m.tab == tabBudget || m.tab == tabActivity {
		return true
	}
	for _, r := range m.tree.visible() {
		if l := m.deck.St.Leases[r.id]; l != nil && l.Status == registry.Granted {
			if left := l.ExpiresAt.Sub(m.now); left > 0 && left < time.Hour {
				return true
			}
		}
	}
	return false
}

// scheduleTick starts a new clock chain; an older one dies at its next
// tick (its generation no longer matches).
func (m *Model) scheduleTick() tea.Cmd {
	m.tickGen++
	gen := m.tickGen
	m.tickFast = m.needSeconds()
	d := time.Minute
	if m.tickFast {
		d = time.Second
	}
	now := m.opts.Now
	return tea.Every(d, func(time.Time) tea.Msg { return tickMsg{now(), gen} })
}

func (m *Model) readOnly() bool { return m.opts.Actor == nil || m.opts.Mode == ReadOnly }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.tree.selected()
	cmd := m.update(msg)
	if after := m.tree.selected(); after != before {
		m.detailOff = 0
		m.ensureDoc(after)
	}
	if m.tickGen > 0 && !m.tickFast && m.needSeconds() {
		// Something now counts seconds: switch to the fast clock at once.
		cmd = tea.Batch(cmd, m.scheduleTick())
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.relayout()
		return nil
	case tea.BackgroundColorMsg:
		if m.opts.Theme == nil {
			m.theme = NewTheme(msg.IsDark())
			clear(m.rows)
			m.detail = detailCache{}
			m.feedCache = feedCache{}
		}
		return nil
	case TickMsg:
		m.setNow(time.Time(msg))
		return nil
	case tickMsg:
		if msg.gen != m.tickGen {
			return nil // a superseded clock
		}
		m.setNow(msg.at)
		return m.scheduleTick()
	case JournalMsg:
		return m.onJournal(msg)
	case RegistryMsg:
		m.regUp, m.regErr = msg.Up, msg.Err
		if msg.PID > 0 {
			m.regPID = msg.PID
		}
		m.relayout()
		return nil
	case guardOffMsg:
		if m.overlay == approvalOverlay && m.appr.id == msg.id {
			m.appr.guard = false
		}
		return nil
	case flashOffMsg:
		if msg.id == m.flashID {
			m.flash = ""
		}
		return nil
	case actionDone:
		return m.onAction(msg)
	case tea.MouseWheelMsg:
		return m.onWheel(msg)
	case tea.MouseClickMsg:
		return m.onClick(msg)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return nil
}

func (m *Model) onJournal(msg JournalMsg) tea.Cmd {
	if msg.Err != "" {
		m.journalErr = msg.Err
		m.relayout()
		return nil
	}
	m.journalErr = ""
	if msg.Reset {
		// First load, or the files were truncated or replaced: fold
		// everything again from scratch.
		m.deck = NewDeck()
		m.breaks = nil
		clear(m.rows)
		m.detail = detailCache{}
		m.docs = map[string]LeaseDoc{}
		m.loaded = true
	}
	m.deck.Apply(msg.Entries)
	m.heads, m.macs = msg.Heads, msg.MACs
	m.breaks = append(m.breaks, msg.Breaks...)
	if len(m.breaks) > 50 {
		m.breaks = append(m.breaks[:1], m.breaks[len(m.breaks)-49:]...)
	}
	if m.now.IsZero() {
		m.now = latest(msg.Entries)
	}
	m.tree.rebuild(m.deck, m.now)
	m.recount()
	if msg.Reset && m.tree.selected() == "" && len(m.tree.rows) > 0 {
		m.tree.cursor = 0
	}
	m.relayout()
	return m.syncApproval()
}

// setNow moves the clock. The header's figures and a time-sorted tree
// are refreshed only when a lease may have expired since.
func (m *Model) setNow(t time.Time) {
	m.now = t
	if !m.nextExpiry.IsZero() && !t.Before(m.nextExpiry) {
		m.recount()
		if m.tree.sort == sortTimeLeft || m.tree.sort == sortStatus || !m.tree.filter.empty() {
			m.tree.rebuild(m.deck, m.now)
		}
	}
}

// latest is the newest time in a batch: the clock until the first tick.
func latest(es []Entry) time.Time {
	var t time.Time
	for _, e := range es {
		s := str(e.Value, "at")
		if s == "" {
			s = str(e.Value, "timestamp")
		}
		if at, err := registry.ParseTime(s); err == nil && at.After(t) {
			t = at
		}
	}
	return t
}

// candidate is the request the approval modal should show: the oldest
// pending one not decided from here, not deferred, on a live lease.
func (m *Model) candidate() (approvals.Request, int, bool) {
	var out approvals.Request
	found, n := false, 0
	for _, r := range m.deck.Pending() {
		if m.deciding[r.ID] || m.deferred[r.ID] {
			continue
		}
		if ok, _ := m.deck.St.Live(r.LeaseID, m.now); !ok {
			continue
		}
		n++
		if !found {
			out, found = r, true
		}
	}
	return out, n, found
}

// syncApproval opens, switches or closes the approval modal after any
// change, and rings the bell for requests never seen before.
func (m *Model) syncApproval() tea.Cmd {
	var cmds []tea.Cmd
	fresh := false
	for _, r := range m.deck.Pending() {
		if !m.seenReq[r.ID] {
			m.seenReq[r.ID] = true
			fresh = true
		}
	}
	if fresh && !m.readOnly() {
		cmds = append(cmds, tea.Raw("\a"))
	}
	m.prune()
	if m.readOnly() {
		return tea.Batch(cmds...)
	}
	if m.overlay == approvalOverlay {
		// Keep showing a request while it is still waiting for a human.
		if m.isPending(m.appr.id) && !m.deciding[m.appr.id] && !m.deferred[m.appr.id] && m.leaseLive(m.appr.id) {
			return tea.Batch(cmds...)
		}
		m.overlay = noOverlay
	}
	if c, _, ok := m.candidate(); ok && m.overlay == noOverlay {
		cmds = append(cmds, m.openApproval(c.ID))
	}
	return tea.Batch(cmds...)
}

func (m *Model) leaseLive(approvalID string) bool {
	r, _, ok := m.deck.Book.Get(approvalID)
	if !ok {
		return false
	}
	live, _ := m.deck.St.Live(r.LeaseID, m.now)
	return live
}

// prune forgets decided requests once the sets grow: a decided request
// never comes back, so a long-running cockpit need not remember it.
func (m *Model) prune() {
	if len(m.seenReq)+len(m.deciding)+len(m.deferred) < 1024 {
		return
	}
	pending := map[string]bool{}
	for _, r := range m.deck.Pending() {
		pending[r.ID] = true
	}
	for _, set := range []map[string]bool{m.seenReq, m.deciding, m.deferred} {
		for id := range set {
			if !pending[id] {
				delete(set, id)
			}
		}
	}
}

func (m *Model) isPending(id string) bool {
	for _, r := range m.deck.Pending() {
		if r.ID == id {
			return true
		}
	}
	return false
}

// openApproval shows a request with the key guard up: for 400 ms every
// decision key is ignored, so a keystroke meant for the tree cannot
// decide a request that popped up under it.
func (m *Model) openApproval(id string) tea.Cmd {
	err := ""
	if m.appr.id == id {
		err = m.appr.err
	}
	m.overlay = approvalOverlay
	m.appr = approvalState{id: id, guard: true, err: err}
	return m.timer(m.opts.Guard, func(time.Time) tea.Msg { return guardOffMsg{id} })
}

func (m *Model) setFlash(s string, isErr bool) tea.Cmd {
	m.flashID++
	m.flash, m.flashErr = s, isErr
	id := m.flashID
	return m.timer(6*time.Second, func(time.Time) tea.Msg { return flashOffMsg{id} })
}

// canAct says why actions are refused, or "".
func (m *Model) canAct() string {
	switch {
	case m.opts.Mode == ReadOnly || m.opts.Actor == nil:
		return "read-only: this cockpit watches without acting"
	case len(m.breaks) > 0:
		return "the journal chain is broken: the cockpit is read-only until it is repaired (leasedeck journal verify)"
	case !m.regUp:
		return fmt.Sprintf("the registry (pid %d) is gone: nothing can be decided until it runs again", m.regPID)
	}
	return ""
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	switch m.overlay {
	case approvalOverlay:
		return m.approvalKey(msg)
	case revokeOverlay:
		return m.revokeKey(msg)
	case helpOverlay:
		switch {
		case key.Matches(msg, m.keys.Help.Close):
			m.overlay = noOverlay
			return m.syncApproval()
		case key.Matches(msg, m.keys.Help.Down):
			m.helpOff = min(m.helpOff+1, max(len(HelpLines(m.theme, m.keys, 10))-(m.h-2)+1, 0))
		case key.Matches(msg, m.keys.Help.Up):
			m.helpOff = max(m.helpOff-1, 0)
		}
		return nil
	case filterOverlay:
		return m.filterKey(msg)
	}
	if m.lay.tooSmall {
		if key.Matches(msg, m.keys.Tree.Quit) {
			return tea.Quit
		}
		return nil
	}
	k := m.keys.Tree
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Up):
		m.tree.move(-1)
	case key.Matches(msg, k.Down):
		m.tree.move(1)
	case key.Matches(msg, k.PageUp):
		m.tree.move(-max(m.tree.height-1, 1))
	case key.Matches(msg, k.PageDown):
		m.tree.move(max(m.tree.height-1, 1))
	case key.Matches(msg, k.Top):
		m.tree.move(-len(m.tree.rows))
	case key.Matches(msg, k.Bottom):
		m.tree.move(len(m.tree.rows))
	case key.Matches(msg, k.Toggle):
		if id := m.tree.selected(); id != "" && len(m.deck.Children(id)) > 0 {
			m.tree.collapsed[id] = !m.tree.collapsed[id]
			m.tree.rebuild(m.deck, m.now)
			m.relayout()
		}
	case key.Matches(msg, k.Collapse):
		id := m.tree.selected()
		if id != "" && len(m.deck.Children(id)) > 0 && !m.tree.collapsed[id] {
			m.tree.collapsed[id] = true
			m.tree.rebuild(m.deck, m.now)
		} else if l := m.deck.St.Leases[id]; l != nil {
			if i, ok := m.tree.index[l.ParentID]; ok {
				m.tree.cursor = i
				m.tree.clamp()
			}
		}
	case key.Matches(msg, k.Expand):
		if id := m.tree.selected(); m.tree.collapsed[id] {
			delete(m.tree.collapsed, id)
			m.tree.rebuild(m.deck, m.now)
		}
	case key.Matches(msg, k.NextTab):
		m.tab = (m.tab + 1) % tabCount
		m.detailOff = 0
	case key.Matches(msg, k.PrevTab):
		m.tab = (m.tab + tabCount - 1) % tabCount
		m.detailOff = 0
	case key.Matches(msg, k.Tab):
		m.tab = tab(msg.String()[0] - '1')
		m.detailOff = 0
	case key.Matches(msg, k.DetailDown):
		m.detailOff += max(m.lay.detH/2, 1)
	case key.Matches(msg, k.DetailUp):
		m.detailOff = max(m.detailOff-max(m.lay.detH/2, 1), 0)
	case key.Matches(msg, k.Sort):
		m.tree.sort = (m.tree.sort + 1) % sortModes
		m.tree.rebuild(m.deck, m.now)
		return m.setFlash("sorted by "+m.tree.sort.String(), false)
	case key.Matches(msg, k.Filter):
		m.overlay = filterOverlay
		m.filterIn = m.tree.filter.raw
	case key.Matches(msg, k.Help):
		m.overlay, m.helpOff = helpOverlay, 0
	case key.Matches(msg, k.Approvals):
		if why := m.canAct(); why != "" && m.opts.Actor == nil {
			return m.setFlash(why, true)
		}
		clear(m.deferred)
		if _, _, ok := m.candidate(); !ok {
			return m.setFlash("no pending approvals", false)
		}
		return m.syncApproval()
	case key.Matches(msg, k.Revoke):
		return m.startRevoke()
	}
	return nil
}

func (m *Model) startRevoke() tea.Cmd {
	if why := m.canAct(); why != "" {
		return m.setFlash(why, true)
	}
	id := m.tree.selected()
	l := m.deck.St.Leases[id]
	if l == nil {
		return m.setFlash("no lease selected", true)
	}
	if !l.Open(m.now) {
		return m.setFlash(fmt.Sprintf("lease %s is %s: nothing to revoke", shortID(id), displayStatus(m.deck.St, l, m.now)), true)
	}
	m.overlay = revokeOverlay
	m.rev = revokeState{id: id, cascade: len(m.deck.LiveSubtree(id, m.now))}
	return nil
}

// editText applies a key to a one-line text field; ok is false when the
// key is not text editing.
func editText(s string, msg tea.KeyPressMsg, clearKey key.Binding) (string, bool) {
	switch {
	case key.Matches(msg, clearKey):
		return "", true
	case msg.String() == "backspace":
		r := []rune(s)
		if len(r) > 0 {
			r = r[:len(r)-1]
		}
		return string(r), true
	case msg.Text != "":
		if len([]rune(s)) >= 200 {
			return s, true
		}
		return s + clean(msg.Text), true
	case msg.String() == "space":
		return s + " ", true
	}
	return s, false
}

func (m *Model) approvalKey(msg tea.KeyPressMsg) tea.Cmd {
	a := &m.appr
	k := m.keys.Approval
	if a.sending != "" {
		return nil
	}
	if a.typing {
		switch {
		case key.Matches(msg, m.keys.Reason.Confirm):
			reason := strings.TrimSpace(a.reason)
			if reason == "" {
				reason = "denied in the cockpit"
			}
			return m.decide(a.id, "denied", "", reason)
		case key.Matches(msg, m.keys.Reason.Cancel):
			a.typing = false
			return nil
		}
		a.reason, _ = editText(a.reason, msg, m.keys.Reason.Clear)
		return nil
	}
	if key.Matches(msg, k.Defer) {
		// Hide every request pending now; the next new one pops up.
		for _, r := range m.deck.Pending() {
			m.deferred[r.ID] = true
		}
		m.overlay = noOverlay
		return m.setFlash("approvals deferred: press a to see them", false)
	}
	if a.guard {
		return nil // the 400 ms guard: a stray key decides nothing
	}
	switch {
	case key.Matches(msg, k.ApproveOnce):
		return m.decide(a.id, "approved", "once", "")
	case key.Matches(msg, k.ApproveLease):
		return m.decide(a.id, "approved", "lease", "")
	case key.Matches(msg, k.Deny), key.Matches(msg, k.Enter):
		// Enter only ever starts a deny: it never approves.
		a.typing, a.reason = true, ""
	}
	return nil
}

func (m *Model) decide(id, outcome, scope, reason string) tea.Cmd {
	if why := m.canAct(); why != "" {
		m.appr.err = why
		m.appr.typing = false
		return nil
	}
	r, _, _ := m.deck.Book.Get(id)
	label := r.Tool
	if r.Summary != "" {
		label = r.Summary
	}
	verb := "approving"
	if outcome == "denied" {
		verb = "denying"
	}
	m.deciding[id] = true
	m.overlay = noOverlay
	m.actionID++
	aid, actor := m.actionID, m.opts.Actor
	kind := "approve"
	if outcome == "denied" {
		kind = "deny"
	} else if scope == "lease" {
		kind = "approve-lease"
	}
	run := func() tea.Msg {
		err := actor.Decide(id, outcome, scope, reason)
		return actionDone{id: aid, kind: kind, target: id, label: label, err: err}
	}
	return tea.Batch(m.setFlash(verb+" "+clean(label)+"…", false), run)
}

func (m *Model) revokeKey(msg tea.KeyPressMsg) tea.Cmd {
	r := &m.rev
	if r.sending {
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Reason.Cancel):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, m.keys.Reason.Confirm):
		reason := strings.TrimSpace(r.reason)
		if reason == "" {
			r.err = "a revocation needs a reason"
			return nil
		}
		if why := m.canAct(); why != "" {
			r.err = why
			return nil
		}
		r.sending, r.err = true, ""
		m.actionID++
		aid, actor, id := m.actionID, m.opts.Actor, r.id
		return func() tea.Msg {
			ids, err := actor.Revoke(id, reason)
			return actionDone{id: aid, kind: "revoke", target: id, revoked: len(ids), err: err}
		}
	}
	r.reason, _ = editText(r.reason, msg, m.keys.Reason.Clear)
	return nil
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Filter.Apply):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, m.keys.Filter.Clear):
		m.filterIn = ""
		m.tree.filter = filterQuery{}
		m.tree.rebuild(m.deck, m.now)
		m.overlay = noOverlay
		return m.syncApproval()
	}
	if s, ok := editText(m.filterIn, msg, m.keys.Reason.Clear); ok {
		m.filterIn = s
		m.tree.filter = parseFilter(s)
		m.tree.rebuild(m.deck, m.now)
	}
	return nil
}

func (m *Model) onAction(a actionDone) tea.Cmd {
	if a.err != nil {
		msg := actionError(a.err)
		switch a.kind {
		case "revoke":
			if m.overlay == revokeOverlay && m.rev.id == a.target {
				m.rev.sending, m.rev.err = false, msg
				return nil
			}
			return m.setFlash("revoke failed: "+msg, true)
		default:
			// The request is decidable again: show it with the error.
			delete(m.deciding, a.target)
			m.appr = approvalState{id: a.target, err: msg}
			return tea.Batch(m.setFlash(a.kind+" failed: "+msg, true), m.syncApproval())
		}
	}
	switch a.kind {
	case "revoke":
		if m.overlay == revokeOverlay && m.rev.id == a.target {
			m.overlay = noOverlay
		}
		return tea.Batch(m.setFlash(fmt.Sprintf("revoked %d lease(s) from %s", a.revoked, shortID(a.target)), false), m.syncApproval())
	case "approve":
		return tea.Batch(m.setFlash("approved once: "+clean(a.label), false), m.syncApproval())
	case "approve-lease":
		return tea.Batch(m.setFlash("approved for the lease: "+clean(a.label), false), m.syncApproval())
	}
	return tea.Batch(m.setFlash("denied: "+clean(a.label), false), m.syncApproval())
}

// actionError says what went wrong in words a person can act on.
func actionError(err error) string {
	var re *registry.RemoteError
	switch {
	case errors.As(err, &re):
		return re.Message
	case errors.Is(err, registry.ErrUnreachable):
		return "the registry is unreachable: " + err.Error()
	}
	return err.Error()
}

func (m *Model) onWheel(msg tea.MouseWheelMsg) tea.Cmd {
	mo := msg.Mouse()
	d := 0
	switch mo.Button {
	case tea.MouseWheelUp:
		d = -3
	case tea.MouseWheelDown:
		d = 3
	default:
		return nil
	}
	if m.overlay != noOverlay {
		return nil
	}
	if m.inDetail(mo.X, mo.Y) {
		m.detailOff = max(m.detailOff+d, 0)
		return nil
	}
	m.tree.scroll(d)
	return nil
}

func (m *Model) onClick(msg tea.MouseClickMsg) tea.Cmd {
	mo := msg.Mouse()
	if m.overlay != noOverlay || mo.Button != tea.MouseLeft {
		return nil
	}
	y := mo.Y - m.lay.treeY
	if y >= 0 && y < m.lay.treeH && mo.X < m.lay.treeW {
		if i := m.tree.offset + y; i < len(m.tree.rows) {
			m.tree.cursor = i
			m.tree.clamp()
		}
	}
	return nil
}

func (m *Model) inDetail(x, y int) bool {
	if m.lay.side {
		return x > m.lay.treeW && y >= m.lay.detY && y < m.lay.detY+m.lay.detH
	}
	return y >= m.lay.detY && y < m.lay.detY+m.lay.detH
}

// ensureDoc prepares a lease's Lease tab once: its signed JSON, pretty,
// and whether its signature verifies with the workspace key. A signed
// lease never changes, so this is computed once per lease, in Update.
func (m *Model) ensureDoc(id string) {
	if id == "" {
		return
	}
	if _, ok := m.docs[id]; ok {
		return
	}
	l := m.deck.St.Leases[id]
	if l == nil {
		return
	}
	d := LeaseDoc{Refused: l.Lease == nil}
	src := any(l.Lease)
	if d.Refused {
		src = l.Declared
	}
	if src != nil {
		if b, err := schemas.Pretty(src); err == nil {
			d.JSON = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		}
	}
	if d.Refused && src != nil {
		d.JSON = append([]string{"declared manifest:"}, d.JSON...)
	}
	if !d.Refused && m.opts.Key != nil {
		d.Checked = true
		d.KeyFP = m.opts.Key.Fingerprint()
		for _, p := range m.ver.Verify(l.Lease, *m.opts.Key) {
			d.Problems = append(d.Problems, p.String())
		}
	}
	if len(m.docs) > 2048 {
		clear(m.docs)
	}
	m.docs[id] = d
}

// Title is the terminal window's title: the pending count at a glance.
func (m *Model) Title() string {
	n := len(m.deck.Pending())
	if n == 0 {
		return "leasedeck"
	}
	return fmt.Sprintf("leasedeck — %d pending approval(s)", n)
}

// Deck exposes the folded state (tests, benchmarks).
func (m *Model) Deck() *Deck { return m.deck }

// pidLabel is the registry segment of the status bar, long and short.
func (m *Model) pidLabel() (long, short string, ok bool) {
	p := m.regPID
	switch {
	case m.opts.Mode == Attached && !m.regUp:
		return fmt.Sprintf("registry pid %d is GONE", p), fmt.Sprintf("pid %d GONE", p), false
	case m.opts.Mode == Attached:
		return fmt.Sprintf("attached to pid %d", p), fmt.Sprintf("attached to pid %d", p), true
	case m.opts.Mode == ReadOnly && p > 0 && !m.regUp:
		return fmt.Sprintf("registry pid %d is GONE", p), fmt.Sprintf("pid %d GONE", p), false
	case m.opts.Mode == ReadOnly && p > 0:
		return fmt.Sprintf("watching registry pid %d", p), fmt.Sprintf("pid %d", p), true
	case m.opts.Mode == ReadOnly:
		return "no registry running", "no registry", true
	}
	return fmt.Sprintf("registry pid %d", p), fmt.Sprintf("pid %d", p), true
}
