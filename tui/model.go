package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/schemas"
)

// Messages the model receives besides journalMsg.
type (
	// clockMsg sets the clock (tests, and anything that wants to move it);
	// the cockpit's own clock arrives as tickMsg.
	clockMsg time.Time
	tickMsg  struct {
		at  time.Time
		gen int
	}
	// registryMsg reports the attached registry coming or going.
	registryMsg struct {
		Up  bool
		PID int
		Err string
	}
	guardOffMsg struct {
		id  string
		gen int
	}
	// quietMsg says the keyboard has been still since key number seq.
	quietMsg    struct{ seq int }
	flashOffMsg struct{ id int }
	actionDone  struct {
		id      int
		kind    string // approve, deny, revoke
		target  string // approval or lease id
		label   string
		revoked int      // leases revoked, or requests denied by a bulk deny
		failed  []string // requests a bulk deny could not deny
		err     error
	}
)

// model is the cockpit's one root model (UI rule 1): everything below it
// is plain structs and pure renderers.
type model struct {
	opts  Options
	theme *theme
	keys  keyMap
	loc   *time.Location

	deck *deck
	tree tree
	now  time.Time

	w, h int
	lay  layout

	tab       tab
	detailOff int
	detail    detailCache
	rows      map[rowKey]string
	docs      map[string]leaseDoc
	history   map[string]bool // compacted leases whose history was asked for (history.go)
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
	apprGen  int
	queue    queueState
	quit     quitState
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

	// keySeq counts key presses; quiet is set once the keyboard has been
	// still for opts.quietFor after the last one. A request opens by
	// itself only while quiet.
	keySeq int
	quiet  bool
	typing bool // the key being handled came hard on the heels of another
	// swallow drops keys until the keyboard is still: set when a text
	// field closed under the user's typing.
	swallow bool

	bellMuted, bellCooling bool
	bellOwed               int // new requests not yet rung for

	// background: the user quit asking for a registry to keep serving.
	background bool

	flash    string
	flashErr bool
	flashID  int
	actionID int
}

// newModel builds the cockpit model.
func newModel(opts Options) *model {
	m := &model{
		opts: opts, theme: opts.theme, loc: opts.location,
		deck: newDeck(), tree: newTree(),
		rows: map[rowKey]string{}, docs: map[string]leaseDoc{},
		seenReq: map[string]bool{}, deferred: map[string]bool{}, deciding: map[string]bool{},
		regUp: true, regPID: opts.PID, timer: tea.Tick, quiet: true,
	}
	if m.theme == nil {
		m.theme = newTheme(true)
	}
	if opts.keys != nil {
		m.keys = *opts.keys
	} else {
		m.keys = defaultKeyMap()
	}
	if m.loc == nil {
		m.loc = time.Local
	}
	if m.opts.now == nil {
		m.opts.now = time.Now
	}
	if m.opts.guard <= 0 {
		m.opts.guard = 400 * time.Millisecond
	}
	if m.opts.quietFor <= 0 {
		m.opts.quietFor = 700 * time.Millisecond
	}
	return m
}

// Init starts the clock and asks the terminal for its background, so the
// palette fits it.
func (m *model) Init() tea.Cmd {
	m.tickGen++
	gen, now := m.tickGen, m.opts.now
	return tea.Batch(tea.RequestBackgroundColor, func() tea.Msg { return tickMsg{now(), gen} })
}

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.tree.selected()
	cmd := m.update(msg)
	if after := m.tree.selected(); after != before {
		m.detailOff = 0
		cmd = tea.Batch(cmd, m.ensureHistory(after))
		m.ensureDoc(after)
	}
	if m.tickGen > 0 && !m.tickFast && m.needSeconds() {
		// Something now counts seconds: switch to the fast clock at once.
		cmd = tea.Batch(cmd, m.scheduleTick())
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.relayout()
		return nil
	case tea.BackgroundColorMsg:
		if m.opts.theme == nil {
			m.theme = newTheme(msg.IsDark())
			clear(m.rows)
			m.detail = detailCache{}
			m.feedCache = feedCache{}
		}
		return nil
	case clockMsg:
		m.setNow(time.Time(msg))
		return nil
	case tickMsg:
		if msg.gen != m.tickGen {
			return nil // a superseded clock
		}
		m.setNow(msg.at)
		return m.scheduleTick()
	case journalMsg:
		return m.onJournal(msg)
	case historyMsg:
		m.onHistory(msg)
		return nil
	case registryMsg:
		m.regUp, m.regErr = msg.Up, msg.Err
		if msg.PID > 0 {
			m.regPID = msg.PID
		}
		m.relayout()
		return nil
	case guardOffMsg:
		if m.overlay == approvalOverlay && m.appr.id == msg.id && m.appr.gen == msg.gen {
			m.appr.guard = false
		}
		return nil
	case quietMsg:
		if msg.seq != m.keySeq {
			return nil // a key came since
		}
		m.quiet = true
		m.swallow = false
		return m.syncApproval()
	case bellOffMsg:
		return m.bellOff()
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
		m.keySeq++
		m.typing = !m.quiet // this key follows another within quietFor
		m.quiet = false
		seq := m.keySeq
		still := m.timer(m.opts.quietFor, func(time.Time) tea.Msg { return quietMsg{seq} })
		return tea.Batch(m.onKey(msg), still)
	}
	return nil
}

func (m *model) onJournal(msg journalMsg) tea.Cmd {
	if msg.Err != "" {
		m.journalErr = msg.Err
		m.relayout()
		return nil
	}
	m.journalErr = ""
	if msg.Reset {
		// First load, or the files were truncated or replaced: fold
		// everything again from scratch.
		m.deck = newDeck()
		if msg.Start != nil {
			m.deck = deckFrom(msg.Start)
		}
		m.history = map[string]bool{}
		m.breaks = nil
		clear(m.rows)
		m.detail = detailCache{}
		m.docs = map[string]leaseDoc{}
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

func (m *model) readOnly() bool { return m.opts.Actor == nil || m.opts.Mode == ReadOnly }

// canAct says why actions are refused, or "".
func (m *model) canAct() string {
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

// ensureDoc prepares a lease's Lease tab once: its signed JSON, pretty,
// and whether its signature verifies with the workspace key. A signed
// lease never changes, so this is computed once per lease, in Update.
func (m *model) ensureDoc(id string) {
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
	d := leaseDoc{Refused: l.Lease == nil}
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

// title is the terminal window's title: the pending count at a glance.
func (m *model) title() string {
	n := len(m.deck.Pending())
	if n == 0 {
		return "leasedeck"
	}
	return fmt.Sprintf("leasedeck — %d pending approval(s)", n)
}

// pidLabel is the registry segment of the status bar, long and short.
func (m *model) pidLabel() (long, short string, ok bool) {
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
