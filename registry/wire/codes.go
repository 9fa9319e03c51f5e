package wire

import (
	"errors"
	"fmt"
)

// Code classifies an error the registry answers. Callers decide by code,
// never by matching message text.
type Code string

// Error codes of the socket protocol.
const (
	// BadRequest: the message is malformed, names an unknown op, or a
	// member has the wrong type or is missing.
	BadRequest Code = "bad_request"
	// TooLarge: the message is longer than MaxMessage, or the registry
	// already holds as many unfinished large messages as it allows; the
	// connection is closed after this answer.
	TooLarge Code = "too_large"
	// TooManyConnections: the registry already serves as many connections
	// as it allows; this one is closed after the answer.
	TooManyConnections Code = "too_many_connections"
	// TooSlow: a message did not reach its newline in time after its first
	// byte; the connection is closed after the answer.
	TooSlow Code = "too_slow"
	// Unauthorized: the op (or this use of it) needs the operator token.
	Unauthorized Code = "unauthorized"
	// WrongSession: the session capability is missing, or belongs to
	// another session than the one the message touches.
	WrongSession Code = "wrong_session"
	// UnknownLease: no such lease, admission or session.
	UnknownLease Code = "unknown_lease"
	// UnknownParent: a subagent's parent session has no lease yet; its
	// first turn must be admitted first.
	UnknownParent Code = "unknown_parent"
	// NotAllowed: the request is understood but the rules refuse it.
	NotAllowed Code = "not_allowed"
	// Closed: the lease is closed (revoked, expired, completed, stopped).
	Closed Code = "closed"
	// UnknownApproval: no such approval request.
	UnknownApproval Code = "unknown_approval"
	// AlreadyDecided: the approval request was already decided, expired or
	// cancelled.
	AlreadyDecided Code = "already_decided"
	// TooManyApprovals: the lease has as many pending approvals as the
	// policy allows; the call is refused until some are decided.
	TooManyApprovals Code = "too_many_approvals"
	// NeedsManifest: the session has no live lease and the message brought
	// no declared manifest to issue one from; resend with it.
	NeedsManifest Code = "needs_manifest"
	// JournalUnavailable: the journal could not be written or is broken;
	// nothing was decided.
	JournalUnavailable Code = "journal_unavailable"
	// Internal: anything else; a bug in the registry, never the caller's
	// fault. The connection keeps working.
	Internal Code = "internal"
)

// Error is an error answered by the registry.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message + " (" + string(e.Code) + ")" }

// Errorf makes an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf is the code of err when the registry answered it, "" otherwise
// (no answer at all, or a local failure).
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Codes lists every code with what it means, for the README and for
// callers that print them.
var Codes = []struct {
	Code Code
	Doc  string
}{
	{BadRequest, "the message is malformed, names an unknown op, or a member is missing, of the wrong type or out of range (a usage figure that is not finite, is negative, is above 2^53−1, or tokens that are not whole)"},
	{TooLarge, "the message is over 4 MiB, or the registry already holds 64 MiB of unfinished messages; the connection is closed after this answer"},
	{TooManyConnections, "the registry already serves as many connections as `max_connections` allows (256 by default), none of them idle for a second without a call being answered (the idlest is closed to make room); the connection is closed after this answer"},
	{TooSlow, "a message did not reach its newline within 10 s of its first byte; the connection is closed after this answer"},
	{Unauthorized, "the op, or this use of it, needs the operator token"},
	{WrongSession, "the session capability is missing or belongs to another session"},
	{UnknownLease, "no such lease, admission or session"},
	{UnknownParent, "a subagent's parent session has no lease yet: admit the parent first"},
	{NotAllowed, "understood, but the rules refuse it"},
	{Closed, "the lease is closed (revoked, expired, completed, stopped)"},
	{UnknownApproval, "no such approval request"},
	{AlreadyDecided, "the approval was already decided, expired or cancelled"},
	{TooManyApprovals, "the lease already has as many pending approvals as the policy allows"},
	{NeedsManifest, "the session has no live lease and no declared manifest came with the message"},
	{JournalUnavailable, "the journal cannot be written or is broken: nothing was decided"},
	{Internal, "anything else (a fault in the registry); the connection keeps working"},
}

// ErrUnreachable wraps every failure to reach the registry's socket or to
// get an answer from it, so callers can tell "no registry" (exit 4, fail
// closed) from an answer.
var ErrUnreachable = errors.New("registry unreachable")

// ErrConnectionLost (always with ErrUnreachable) means the connection
// ended, or could not be written, before the answer came: the registry
// stopped or crashed while the message was on its way. The message may or
// may not have been acted on; a caller that asks again (a hook, through a
// new, verified connection) may be charged twice, never allowed without an
// answer.
var ErrConnectionLost = errors.New("connection lost")
