package tui

import (
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"

	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry/wire"
)

func (m *model) setFlash(s string, isErr bool) tea.Cmd {
	m.flashID++
	m.flash, m.flashErr = s, isErr
	id := m.flashID
	return m.timer(6*time.Second, func(time.Time) tea.Msg { return flashOffMsg{id} })
}

func (m *model) onAction(a actionDone) tea.Cmd {
	if a.err != nil {
		msg := actionError(a.err)
		switch a.kind {
		case "revoke":
			if m.overlay == revokeOverlay && m.rev.id == a.target {
				m.rev.sending, m.rev.err = false, msg
				return nil
			}
			return m.setFlash("revoke failed: "+msg, true)
		case "deny-at-quit":
			return tea.Quit // told whom it could; quitting goes on
		case "deny-many":
			for _, id := range a.failed {
				delete(m.deciding, id)
			}
			m.queue.err = fmt.Sprintf("%d denied; %d could not be: %s", a.revoked, len(a.failed), msg)
			return m.setFlash("deny failed: "+msg, true)
		default:
			// The request is decidable again: show it with the error.
			delete(m.deciding, a.target)
			fromQueue := m.appr.fromQueue
			m.appr = approvalState{id: a.target, err: msg}
			cmd := m.openApproval(a.target, true)
			m.appr.fromQueue = fromQueue
			return tea.Batch(m.setFlash(a.kind+" failed: "+msg, true), cmd)
		}
	}
	switch a.kind {
	case "revoke":
		if m.overlay == revokeOverlay && m.rev.id == a.target {
			m.overlay = noOverlay
		}
		return tea.Batch(m.setFlash(fmt.Sprintf("revoked %d lease(s) from %s", a.revoked, record.ShortID(a.target)), false), m.syncApproval())
	case "deny-many":
		return tea.Batch(m.setFlash(fmt.Sprintf("denied %d request(s): %s", a.revoked, termtext.Clean(a.label)), false), m.syncApproval())
	case "deny-at-quit":
		return tea.Quit
	case "approve":
		return tea.Batch(m.setFlash("approved once: "+termtext.Clean(a.label), false), m.syncApproval())
	case "approve-lease":
		return tea.Batch(m.setFlash("approved for the lease: "+termtext.Clean(a.label), false), m.syncApproval())
	}
	return tea.Batch(m.setFlash("denied: "+termtext.Clean(a.label), false), m.syncApproval())
}

// actionError says what went wrong in words a person can act on.
func actionError(err error) string {
	var re *wire.Error
	switch {
	case errors.As(err, &re):
		return re.Message
	case errors.Is(err, wire.ErrUnreachable):
		return "the registry is unreachable: " + err.Error()
	}
	return err.Error()
}
