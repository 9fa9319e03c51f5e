package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap is every key the cockpit answers, one struct per context (UI
// rule 6). The `?` help screen and the key table in README-cockpit.md are
// both generated from it, so neither can drift from what the keys do.
type keyMap struct {
	Tree     treeKeys
	Approval approvalKeys
	Queue    queueKeys
	Quit     quitKeys
	Reason   reasonKeys
	Filter   filterKeys
	Help     helpKeys
}

// treeKeys act on the lease tree and the detail pane (no modal open).
type treeKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Toggle, Collapse, Expand                key.Binding
	NextTab, PrevTab, Tab                   key.Binding
	DetailDown, DetailUp                    key.Binding
	Revoke, Approvals, Filter, Sort         key.Binding
	Mute, Help, Quit                        key.Binding
}

// approvalKeys act in the approval modal. Enter is listed so that help
// says plainly what it does: it denies (the default), it never approves.
type approvalKeys struct {
	ApproveOnce, ApproveLease, Deny, Enter, Defer key.Binding
	ScrollDown, ScrollUp                          key.Binding
}

// queueKeys act in the approvals view.
type queueKeys struct {
	Up, Down, Open, Mark, MarkAll, DenyMarked, Sort, Filter, Mute, Close key.Binding
}

// quitKeys answer the quit question.
type quitKeys struct {
	Quit, Background, Stay key.Binding
}

// reasonKeys act while a reason is typed (deny, revoke).
type reasonKeys struct {
	Confirm, Cancel, Clear key.Binding
}

// filterKeys act while the filter is typed.
type filterKeys struct {
	Apply, Clear key.Binding
}

// helpKeys scroll and close the help screen.
type helpKeys struct {
	Down, Up, Close key.Binding
}

// defaultKeyMap is the cockpit's key map.
func defaultKeyMap() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Tree: treeKeys{
			Up:         b([]string{"up", "k"}, "↑/k", "previous lease"),
			Down:       b([]string{"down", "j"}, "↓/j", "next lease"),
			PageUp:     b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
			PageDown:   b([]string{"pgdown", "ctrl+f"}, "pgdn", "page down"),
			Top:        b([]string{"home", "g"}, "home/g", "first lease"),
			Bottom:     b([]string{"end", "G"}, "end/G", "last lease"),
			Toggle:     b([]string{"space", "enter"}, "space/enter", "expand or collapse the subtree"),
			Collapse:   b([]string{"left", "h"}, "←/h", "collapse, or go to the parent"),
			Expand:     b([]string{"right", "l"}, "→/l", "expand"),
			NextTab:    b([]string{"tab"}, "tab", "next detail tab"),
			PrevTab:    b([]string{"shift+tab"}, "shift+tab", "previous detail tab"),
			Tab:        b([]string{"1", "2", "3", "4"}, "1-4", "Narrowing, Budget, Activity, Lease tab"),
			DetailDown: b([]string{"J", "ctrl+d"}, "J", "scroll the detail pane down"),
			DetailUp:   b([]string{"K", "ctrl+u"}, "K", "scroll the detail pane up"),
			Revoke:     b([]string{"x"}, "x", "revoke the lease and its subtree (asks for a reason)"),
			Approvals:  b([]string{"a"}, "a", "every pending request: decide one, or deny many at once"),
			Filter:     b([]string{"/"}, "/", "filter: agent:, purpose:, status:, tool: or any text"),
			Sort:       b([]string{"s"}, "s", "cycle the sort order"),
			Mute:       b([]string{"M"}, "M", "mute or unmute the bell for new requests"),
			Help:       b([]string{"?"}, "?", "this help, and the legend of the tree"),
			Quit:       b([]string{"q"}, "q", "quit (asks first while its registry governs live sessions)"),
		},
		Approval: approvalKeys{
			ApproveOnce:  b([]string{"y"}, "y", "approve this call once"),
			ApproveLease: b([]string{"Y"}, "Y", "approve for the rest of this lease"),
			Deny:         b([]string{"n"}, "n", "deny (type an optional reason, enter to confirm)"),
			Enter:        b([]string{"enter"}, "enter", "deny: the default; enter never approves"),
			Defer:        b([]string{"esc"}, "esc", "decide later (hidden until the next request; a lists them)"),
			ScrollDown:   b([]string{"j", "down"}, "j/↓", "scroll a long call down"),
			ScrollUp:     b([]string{"k", "up"}, "k/↑", "scroll a long call up"),
		},
		Queue: queueKeys{
			Up:         b([]string{"up", "k"}, "↑/k", "previous request"),
			Down:       b([]string{"down", "j"}, "↓/j", "next request"),
			Open:       b([]string{"enter"}, "enter", "open the request: read it in full and decide"),
			Mark:       b([]string{"space"}, "space", "mark or unmark the request"),
			MarkAll:    b([]string{"*"}, "*", "mark or unmark every request shown"),
			DenyMarked: b([]string{"D"}, "D", "deny the marked requests (or the selected one) with one reason"),
			Sort:       b([]string{"s"}, "s", "sort: oldest first, deadline first, agent"),
			Filter:     b([]string{"/"}, "/", "filter by agent, tool, program or text"),
			Mute:       b([]string{"M"}, "M", "mute or unmute the bell"),
			Close:      b([]string{"esc", "q", "a"}, "esc", "close the approvals view"),
		},
		Quit: quitKeys{
			Quit:       b([]string{"y"}, "y", "quit: stop the registry, deny the waiting requests"),
			Background: b([]string{"b"}, "b", "quit, and keep a registry serving in the background"),
			Stay:       b([]string{"esc", "n", "q"}, "esc", "stay"),
		},
		Reason: reasonKeys{
			Confirm: b([]string{"enter"}, "enter", "confirm"),
			Cancel:  b([]string{"esc"}, "esc", "cancel"),
			Clear:   b([]string{"ctrl+u"}, "ctrl+u", "clear the text"),
		},
		Filter: filterKeys{
			Apply: b([]string{"enter"}, "enter", "apply the filter"),
			Clear: b([]string{"esc"}, "esc", "clear the filter"),
		},
		Help: helpKeys{
			Down:  b([]string{"down", "j"}, "↓/j", "scroll the help down"),
			Up:    b([]string{"up", "k"}, "↑/k", "scroll the help up"),
			Close: b([]string{"esc", "?", "q"}, "esc/?", "close the help"),
		},
	}
}

// helpSection is one context's bindings, for the help screen and docs.
type helpSection struct {
	Title    string
	Bindings []key.Binding
}

// Sections lists the contexts in the order help shows them.
func (k keyMap) Sections() []helpSection {
	t := k.Tree
	return []helpSection{
		{"Lease tree", []key.Binding{t.Up, t.Down, t.PageUp, t.PageDown, t.Top, t.Bottom, t.Toggle, t.Collapse, t.Expand}},
		{"Detail pane", []key.Binding{t.NextTab, t.PrevTab, t.Tab, t.DetailDown, t.DetailUp}},
		{"Actions", []key.Binding{t.Revoke, t.Approvals, t.Filter, t.Sort, t.Mute, t.Help, t.Quit}},
		{"Approval request", []key.Binding{k.Approval.ApproveOnce, k.Approval.ApproveLease, k.Approval.Deny, k.Approval.Enter, k.Approval.Defer,
			k.Approval.ScrollDown, k.Approval.ScrollUp}},
		{"Approvals view", []key.Binding{k.Queue.Up, k.Queue.Down, k.Queue.Open, k.Queue.Mark, k.Queue.MarkAll, k.Queue.DenyMarked,
			k.Queue.Sort, k.Queue.Filter, k.Queue.Mute, k.Queue.Close}},
		{"Quitting", []key.Binding{k.Quit.Quit, k.Quit.Background, k.Quit.Stay}},
		{"Typing a reason", []key.Binding{k.Reason.Confirm, k.Reason.Cancel, k.Reason.Clear}},
		{"Filter", []key.Binding{k.Filter.Apply, k.Filter.Clear}},
		{"Help", []key.Binding{k.Help.Down, k.Help.Up, k.Help.Close}},
	}
}

// MarkdownTable renders the key map as the README's table.
func (k keyMap) MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| context | key | what it does |\n|---|---|---|\n")
	for _, s := range k.Sections() {
		for _, kb := range s.Bindings {
			h := kb.Help()
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", s.Title, h.Key, h.Desc)
		}
	}
	return b.String()
}
