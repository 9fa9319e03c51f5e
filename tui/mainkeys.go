package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The main screen's keys and mouse: the tree, the detail pane and the
// actions. An open dialog gets keys first (dialog.go).

// onKey routes a key: to the open dialog, else to the main screen.
func (m *model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.hardQuit()
	}
	if m.swallow {
		return nil // typing meant for a field that has closed
	}
	if d, ok := dialogs[m.overlay]; ok {
		return d.key(m, msg)
	}
	if m.lay.tooSmall {
		if key.Matches(msg, m.keys.Tree.Quit) {
			return m.hardQuit()
		}
		return nil
	}
	if m.treeKey(msg) || m.detailKey(msg) {
		return nil
	}
	return m.actionKey(msg)
}

// treeKey moves through the tree, expands and collapses; it reports
// whether the key was one of its own.
func (m *model) treeKey(msg tea.KeyPressMsg) bool {
	k := m.keys.Tree
	switch {
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
		m.collapseOrUp()
	case key.Matches(msg, k.Expand):
		if id := m.tree.selected(); m.tree.collapsed[id] {
			delete(m.tree.collapsed, id)
			m.tree.rebuild(m.deck, m.now)
		}
	default:
		return false
	}
	return true
}

// collapseOrUp collapses the selected subtree, or, when there is nothing
// to collapse, moves to the parent.
func (m *model) collapseOrUp() {
	id := m.tree.selected()
	if id != "" && len(m.deck.Children(id)) > 0 && !m.tree.collapsed[id] {
		m.tree.collapsed[id] = true
		m.tree.rebuild(m.deck, m.now)
		return
	}
	if l := m.deck.St.Leases[id]; l != nil {
		if i, ok := m.tree.index[l.ParentID]; ok {
			m.tree.cursor = i
			m.tree.clamp()
		}
	}
}

// detailKey switches and scrolls the detail pane's tabs.
func (m *model) detailKey(msg tea.KeyPressMsg) bool {
	k := m.keys.Tree
	switch {
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
	default:
		return false
	}
	return true
}

// actionKey opens dialogs and acts: sort, filter, help, approvals,
// revoke, quit.
func (m *model) actionKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Tree
	switch {
	case key.Matches(msg, k.Quit):
		return m.startQuit()
	case key.Matches(msg, k.Mute):
		return m.toggleMute()
	case key.Matches(msg, k.Sort):
		m.tree.sort = (m.tree.sort + 1) % sortModes
		m.tree.rebuild(m.deck, m.now)
		return m.setFlash("sorted by "+m.tree.sort.String(), false)
	case key.Matches(msg, k.Filter):
		m.overlay = filterOverlay
		m.filterIn = "" // a new filter, as in less or k9s; esc clears, enter keeps
	case key.Matches(msg, k.Help):
		m.overlay, m.helpOff = helpOverlay, 0
	case key.Matches(msg, k.Approvals):
		return m.openQueue()
	case key.Matches(msg, k.Revoke):
		return m.startRevoke()
	}
	return nil
}

func (m *model) onWheel(msg tea.MouseWheelMsg) tea.Cmd {
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

func (m *model) onClick(msg tea.MouseClickMsg) tea.Cmd {
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

func (m *model) inDetail(x, y int) bool {
	if m.lay.side {
		return x > m.lay.treeW && y >= m.lay.detY && y < m.lay.detY+m.lay.detH
	}
	return y >= m.lay.detY && y < m.lay.detY+m.lay.detH
}
