package bridge

import (
	"strings"
	"time"
)

// Turning registry answers (or their absence) into verdicts.

// VerdictFor turns a registry response into what to tell the client.
//
// On a gate event anything but allow is a refusal: block stays block (the
// admission cannot go on), error and any unexpected decision become deny
// (fail closed). An allow under `observed_only` becomes NoOpinion: a
// leasedeck that only observes must not approve calls the client would
// otherwise have asked the user about.
func VerdictFor(ev *Event, r Response) Verdict {
	v := Verdict{Reason: r.Reason, Context: r.Context, Warnings: r.Warnings}
	gate := ev != nil && ev.Gate
	op := OpNone
	if ev != nil {
		op = ev.Op
	}
	switch {
	case gate && r.AskInClient && r.Decision == DecisionDeny:
		v.Kind = Ask
	case gate:
		switch r.Decision {
		case DecisionAllow:
			v.Kind = Allow
			if r.IntegrationMode == ModeObservedOnly {
				v.Kind = NoOpinion
			}
		case DecisionBlock:
			v.Kind = Block
		default:
			v.Kind = Deny
			if r.Decision == DecisionError {
				v.Reason = "leasedeck could not check this call: " + nonEmpty(r.Reason, "registry error")
			}
		}
	case op == OpBegin:
		switch r.Decision {
		case DecisionAllow:
			v.Kind = Allow
		case DecisionDeny:
			v.Kind = Deny
		case DecisionBlock:
			v.Kind = Block
		case DecisionError:
			v.Kind = Fail
		}
	case op == OpPostTool:
		switch r.Decision {
		case DecisionBlock, DecisionDeny:
			// A post-tool refusal (scope violation) cannot undo the call; it
			// tells the agent, through the client's feedback channel, that
			// its lease is gone.
			v.Kind = Block
		case DecisionError:
			v.Kind = Fail
		}
	default:
		if r.Decision == DecisionError {
			v.Kind = Fail
		}
	}
	if v.Kind == Fail && len(v.Warnings) == 0 {
		v.Warnings = []string{"leasedeck: " + nonEmpty(r.Reason, "registry error")}
	}
	return v
}

// FailVerdict is the verdict for a failure before any registry answer (an
// unreadable payload, a request the registry refused to read): on a gate
// event enforce denies and observe leaves the client's flow alone with a
// warning; on other events it is a warning.
func FailVerdict(mode string, ev *Event, msg string) Verdict {
	msg = "leasedeck: " + nonEmpty(msg, "error")
	if ev != nil && ev.Gate {
		if mode == "observe" {
			return Verdict{Kind: NoOpinion, Warnings: []string{msg + " (observe mode: not enforced)"}}
		}
		return Verdict{Kind: Deny, Reason: msg}
	}
	return Verdict{Kind: Fail, Reason: msg, Warnings: []string{msg}}
}

// StartHint is how to start a registry, quoted in every unreachable reason.
const StartHint = "run 'leasedeck' (or 'leasedeck serve') in the workspace"

// Unreachable is the response when no registry answers. mode is the
// workspace's enforcement mode, "enforce" or "observe" (anything else is
// treated as enforce: fail closed). Enforce denies gate events and refuses
// a new turn; observe allows, with integration mode observed_only and a
// warning. Events that decide nothing get an error response that renders
// as a warning.
func Unreachable(mode string, ev *Event) Response {
	op := "unknown"
	gate, begin := false, false
	if ev != nil {
		if ev.Op != OpNone {
			op = string(ev.Op)
		}
		gate, begin = ev.Gate, ev.Op == OpBegin
	}
	const what = "the leasedeck registry is not reachable"
	r := Response{Op: op, SchemaVersion: SchemaVersion}
	switch {
	case mode == "observe" && (gate || begin):
		r.Decision = DecisionAllow
		r.IntegrationMode = ModeObservedOnly
		r.Warnings = []string{what + " (observe mode: allowed, not recorded); " + StartHint}
	case gate || begin:
		r.Decision = DecisionDeny
		r.Reason = what + " and this workspace enforces leases, so the call is refused; " + StartHint
	default:
		r.Decision = DecisionError
		r.Reason = what + "; nothing was recorded; " + StartHint
		r.Warnings = []string{r.Reason}
	}
	return r
}

// DefaultMargin is how long before the client's hook timeout an approval
// wait ends, so the hook answers "deny" itself instead of being killed
// (which most clients treat as "no decision", i.e. fail open).
const DefaultMargin = 5 * time.Second

// ApprovalWait is how long a hook may wait for a human: the smaller of the
// policy's approval timeout and the hook's timeout minus a margin.
// configured is the timeout written in the hook entry (0 = none written:
// the client's default applies); it is clamped to the client's maximum.
func ApprovalWait(a Adapter, native string, configured, policy time.Duration) time.Duration {
	hook := HookTimeout(a, native, configured)
	margin := DefaultMargin
	if hook/10 > margin {
		margin = hook / 10
	}
	w := hook - margin
	if policy > 0 && policy < w {
		w = policy
	}
	if w < 0 {
		w = 0
	}
	return w
}

// HookTimeout is how long the client gives the hook for native: as
// configured, or the client's default, within the client's maximum.
func HookTimeout(a Adapter, native string, configured time.Duration) time.Duration {
	t := a.Timeout(native)
	hook := configured
	if hook <= 0 {
		hook = t.Default
	}
	if t.Max > 0 && hook > t.Max {
		hook = t.Max
	}
	return hook
}

func nonEmpty(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// HookTimeoutFor is the hook timeout that leaves a full approval wait: the
// approval timeout plus max(30 s, a fifth of it), so that ApprovalWait
// (which keeps max(5 s, a tenth) as margin) still allows the whole policy
// timeout.
func HookTimeoutFor(approval time.Duration) time.Duration {
	extra := approval / 5
	if extra < 30*time.Second {
		extra = 30 * time.Second
	}
	return approval + extra
}
