package record

import (
	"time"

	"github.com/leasedeck/leasedeck/journal"

	"github.com/google/uuid"
)

// Audit event types leasedeck writes (the contract reserves other first
// segments; ours is the vendor name).
const (
	GateAllowed     = "leasedeck.gate.allowed"
	GateDenied      = "leasedeck.gate.denied"
	GateHeld        = "leasedeck.gate.held"
	BudgetSpent     = "leasedeck.budget.spent"
	ApprovalAsked   = "leasedeck.approval.requested"
	ApprovalDecided = "leasedeck.approval.decided"
	// ApprovalClientAsked: a held call was handed to the client's own
	// permission prompt (policy approvals.where "client"), not the cockpit.
	ApprovalClientAsked = "leasedeck.approval.client_asked"
	// ApprovalClientAnswered: what the client's next events say became of
	// a call asked in the client (details.outcome, details.source).
	ApprovalClientAnswered = "leasedeck.approval.client_answered"
	RegistryStarted        = "leasedeck.registry.started"
	ToolReported           = "leasedeck.tool.reported"
	ScopeViolation         = "leasedeck.scope.violated"
	SessionStarted         = "leasedeck.session.started"
	SessionBegun           = "leasedeck.session.begun"
	SessionFinalized       = "leasedeck.session.finalized"
)

// Audit is one line of the audit journal.
type Audit struct {
	SchemaVersion string
	Timestamp     string
	EventID       string
	EventType     string
	SessionID     string
	RequestID     string
	SpecSlug      string
	TaskID        string
	Phase         string
	Actor         Actor
	Summary       string
	Reasoning     string
	RequestHash   string
	Outcome       string
	Details       Details

	// Extra holds members this version does not know, and known members
	// whose value has an unexpected type, exactly as read.
	Extra map[string]any
}

// Actor is who or what acted: a kind, never a person.
type Actor struct {
	Kind         string
	Runtime      string
	ModelVendor  string
	ModelFamily  string
	ModelVersion string
	RuntimeAgent string
	Extra        map[string]any
}

// NewAudit starts an audit event written by the registry itself, with a
// fresh event id. The summary is clipped to the schema's cap.
func NewAudit(eventType string, at time.Time, summary string, d Details) Audit {
	return Audit{
		SchemaVersion: SchemaVersion, Timestamp: FormatTime(at), EventID: uuid.NewString(), EventType: eventType,
		Actor: Actor{Kind: "system", Runtime: "leasedeck"}, Summary: ClipField(summary, AuditSummary), Details: d,
	}
}

// Time is when the event says it happened.
func (a *Audit) Time() time.Time {
	t, _ := ParseTime(a.Timestamp)
	return t
}

// Value is the event as a journal value: free text (summary, reasoning,
// every string in details) clipped to the schema's caps and stripped of
// control characters, unknown members kept.
func (a *Audit) Value() map[string]any {
	m := make(map[string]any, 8+len(a.Extra))
	for k, v := range a.Extra {
		m[k] = v
	}
	putRequired(m, a.Extra, "schema_version", a.SchemaVersion)
	putRequired(m, a.Extra, "timestamp", a.Timestamp)
	putRequired(m, a.Extra, "event_type", a.EventType)
	putString(m, "event_id", a.EventID)
	putString(m, "session_id", a.SessionID)
	putString(m, "request_id", a.RequestID)
	putString(m, "spec_slug", a.SpecSlug)
	putString(m, "task_id", a.TaskID)
	putString(m, "phase", a.Phase)
	if !a.Actor.empty() {
		m["actor"] = a.Actor.value()
	}
	putString(m, "summary", ClipField(a.Summary, AuditSummary))
	putString(m, "reasoning", ClipField(a.Reasoning, AuditReasoning))
	putString(m, "request_hash", a.RequestHash)
	putString(m, "outcome", a.Outcome)
	if d := a.Details.value(); d != nil {
		m["details"] = d
	}
	return m
}

func (ac *Actor) empty() bool {
	return ac.Kind == "" && ac.Runtime == "" && ac.ModelVendor == "" && ac.ModelFamily == "" &&
		ac.ModelVersion == "" && ac.RuntimeAgent == "" && ac.Extra == nil
}

func (ac *Actor) value() map[string]any {
	m := make(map[string]any, 2+len(ac.Extra))
	for k, v := range ac.Extra {
		m[k] = v
	}
	putRequired(m, ac.Extra, "kind", ac.Kind)
	putString(m, "runtime", ac.Runtime)
	putString(m, "model_vendor", ac.ModelVendor)
	putString(m, "model_family", ac.ModelFamily)
	putString(m, "model_version", ac.ModelVersion)
	putString(m, "runtime_agent", ac.RuntimeAgent)
	return m
}

// ParseAudit reads an audit-journal value. Members the journal itself
// adds (seq, prev, mac) are not part of the record and are left out.
func ParseAudit(v map[string]any) Audit {
	var a Audit
	for k, x := range v {
		ok := true
		switch k {
		case "seq", "prev", "mac":
		case "schema_version":
			a.SchemaVersion, ok = x.(string)
		case "timestamp":
			a.Timestamp, ok = x.(string)
		case "event_id":
			a.EventID, ok = x.(string)
		case "event_type":
			a.EventType, ok = x.(string)
		case "session_id":
			a.SessionID, ok = x.(string)
		case "request_id":
			a.RequestID, ok = x.(string)
		case "spec_slug":
			a.SpecSlug, ok = x.(string)
		case "task_id":
			a.TaskID, ok = x.(string)
		case "phase":
			a.Phase, ok = x.(string)
		case "actor":
			var m map[string]any
			if m, ok = x.(map[string]any); ok {
				a.Actor = parseActor(m)
			}
		case "summary":
			a.Summary, ok = x.(string)
		case "reasoning":
			a.Reasoning, ok = x.(string)
		case "request_hash":
			a.RequestHash, ok = x.(string)
		case "outcome":
			a.Outcome, ok = x.(string)
		case "details":
			var m map[string]any
			if m, ok = x.(map[string]any); ok {
				a.Details = parseDetails(m)
			}
		default:
			ok = false
		}
		if !ok {
			a.Extra = keep(a.Extra, k, x)
		}
	}
	return a
}

func parseActor(v map[string]any) Actor {
	var ac Actor
	for k, x := range v {
		if s, ok := x.(string); !ok || !ac.setText(k, s) {
			ac.Extra = keep(ac.Extra, k, x)
		}
	}
	return ac
}

func (ac *Actor) setText(k, s string) bool {
	switch k {
	case "kind":
		ac.Kind = s
	case "runtime":
		ac.Runtime = s
	case "model_vendor":
		ac.ModelVendor = s
	case "model_family":
		ac.ModelFamily = s
	case "model_version":
		ac.ModelVersion = s
	case "runtime_agent":
		ac.RuntimeAgent = s
	default:
		return false
	}
	return true
}

// AuditFrom is ParseAudit for an audit line the journal decoded directly
// (journal.Line.Audit): the same Audit, without the generic tree.
func AuditFrom(f *journal.AuditFields) Audit {
	a := Audit{
		SchemaVersion: f.SchemaVersion, Timestamp: f.Timestamp, EventID: f.EventID, EventType: f.EventType,
		SessionID: f.SessionID, RequestID: f.RequestID, SpecSlug: f.SpecSlug, TaskID: f.TaskID, Phase: f.Phase,
		Summary: f.Summary, Reasoning: f.Reasoning, RequestHash: f.RequestHash, Outcome: f.Outcome,
	}
	for i := range f.Actor {
		sc := &f.Actor[i]
		if sc.Kind != journal.ScalarString || !a.Actor.setText(sc.Name, sc.Text) {
			a.Actor.Extra = keep(a.Actor.Extra, sc.Name, sc.Value())
		}
	}
	if f.HasDetails {
		a.Details = detailsFrom(f.Details)
	}
	return a
}
