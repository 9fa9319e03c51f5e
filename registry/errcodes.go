package registry

import (
	"errors"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// ErrUnknownParent: a subagent's session names a parent session that has
// no lease yet. The caller admits the parent first and retries.
var ErrUnknownParent = errors.New("the parent session has no lease; its first turn must begin before a subagent's")

// ErrJournalUnfolded: replay found journal lines that do not fold; the
// registry serves what it has read-only and refuses to add to it.
var ErrJournalUnfolded = errors.New("journal does not fold")

// codeOf classifies a service error for the wire. Anything not
// recognised here is internal: a caller is never told the journal is
// unavailable unless the journal's own errors say so.
func codeOf(err error) wire.Code {
	var (
		writeErr *journal.WriteError
		breakErr *journal.BreakError
	)
	switch {
	case errors.Is(err, ErrBadRequest):
		return wire.BadRequest
	case errors.Is(err, ErrWrongSession):
		return wire.WrongSession
	case errors.Is(err, ErrTooManyApprovals):
		return wire.TooManyApprovals
	case errors.Is(err, ErrUnknownParent):
		return wire.UnknownParent
	case errors.Is(err, ErrUnknownLease):
		return wire.UnknownLease
	case errors.Is(err, ErrNeedsManifest):
		return wire.NeedsManifest
	case errors.Is(err, ErrNotAllowed), errors.Is(err, approvals.ErrInvalid):
		return wire.NotAllowed
	case errors.Is(err, ErrClosed):
		return wire.Closed
	case errors.Is(err, approvals.ErrUnknown):
		return wire.UnknownApproval
	case errors.Is(err, approvals.ErrDecided):
		return wire.AlreadyDecided
	case errors.As(err, &writeErr), errors.As(err, &breakErr),
		errors.Is(err, journal.ErrStopped), errors.Is(err, journal.ErrClosed),
		errors.Is(err, ErrJournalUnfolded):
		return wire.JournalUnavailable
	}
	return wire.Internal
}
