package record

import "github.com/leasedeck/leasedeck/journal"

// Details are an audit event's flat scalars in leasedeck's vocabulary.
// Each member is written only when set; Extra keeps what another writer
// (or a newer leasedeck) put there.
type Details struct {
	LeaseID           string
	AdmissionID       string
	ApprovalID        string
	Tool              string
	Decision          string // gate: allow, deny, block, ask
	Client            string
	Names             string // approval names, space-separated
	Deadline          string
	Outcome           string // approval: approved, denied, expired; turn: certified, …
	Scope             string
	By                string
	Source            string
	SessionHash       string
	ParentSessionHash string
	TurnHash          string
	Status            string
	StopReason        string
	TelemetryQuality  string
	IssuerSession     string
	CapabilityHash    string // a session capability's hash (never the capability)

	Steps   *float64
	Tokens  *float64
	CostUSD *float64

	Accurate   *bool
	Violation  *bool
	EndSession *bool

	Extra map[string]any
}

// The vocabulary, once: member name to field.
var (
	detailStrings = []struct {
		name  string
		field func(*Details) *string
	}{
		{"lease_id", func(d *Details) *string { return &d.LeaseID }},
		{"admission_id", func(d *Details) *string { return &d.AdmissionID }},
		{"approval_id", func(d *Details) *string { return &d.ApprovalID }},
		{"tool", func(d *Details) *string { return &d.Tool }},
		{"decision", func(d *Details) *string { return &d.Decision }},
		{"client", func(d *Details) *string { return &d.Client }},
		{"names", func(d *Details) *string { return &d.Names }},
		{"deadline", func(d *Details) *string { return &d.Deadline }},
		{"outcome", func(d *Details) *string { return &d.Outcome }},
		{"scope", func(d *Details) *string { return &d.Scope }},
		{"by", func(d *Details) *string { return &d.By }},
		{"source", func(d *Details) *string { return &d.Source }},
		{"session_hash", func(d *Details) *string { return &d.SessionHash }},
		{"parent_session_hash", func(d *Details) *string { return &d.ParentSessionHash }},
		{"turn_hash", func(d *Details) *string { return &d.TurnHash }},
		{"status", func(d *Details) *string { return &d.Status }},
		{"stop_reason", func(d *Details) *string { return &d.StopReason }},
		{"telemetry_quality", func(d *Details) *string { return &d.TelemetryQuality }},
		{"issuer_session", func(d *Details) *string { return &d.IssuerSession }},
		{"capability_hash", func(d *Details) *string { return &d.CapabilityHash }},
	}
	detailNumbers = []struct {
		name  string
		field func(*Details) **float64
	}{
		{"steps", func(d *Details) **float64 { return &d.Steps }},
		{"tokens", func(d *Details) **float64 { return &d.Tokens }},
		{"cost_usd", func(d *Details) **float64 { return &d.CostUSD }},
	}
	detailBools = []struct {
		name  string
		field func(*Details) **bool
	}{
		{"accurate", func(d *Details) **bool { return &d.Accurate }},
		{"violation", func(d *Details) **bool { return &d.Violation }},
		{"end_session", func(d *Details) **bool { return &d.EndSession }},
	}
	detailString = func() map[string]int {
		m := map[string]int{}
		for i, f := range detailStrings {
			m[f.name] = i
		}
		return m
	}()
)

// SetString sets a string member of the vocabulary by name, or keeps it
// in Extra when the vocabulary has no such member.
func (d *Details) SetString(name, v string) {
	if i, ok := detailString[name]; ok {
		*detailStrings[i].field(d) = v
		return
	}
	d.Extra = keep(d.Extra, name, v)
}

// Get reads a string member of the vocabulary by name (or from Extra).
func (d *Details) Get(name string) string {
	if i, ok := detailString[name]; ok {
		return *detailStrings[i].field(d)
	}
	s, _ := d.Extra[name].(string)
	return s
}

// Float and Bool make optional figures and flags.
func Float(v float64) *float64 { return &v }
func Bool(v bool) *bool        { return &v }

func parseDetails(v map[string]any) Details {
	var d Details
	for k, x := range v {
		if !d.setString(k, x) && !d.setScalar(k, x) {
			d.Extra = keep(d.Extra, k, x)
		}
	}
	return d
}

// setString and setScalar read a known member. They are switches rather
// than a walk of the tables above so that parsing a line does not move
// its Details to the heap (a replay parses millions).
func (d *Details) setString(k string, x any) bool {
	s, ok := x.(string)
	return ok && d.setText(k, s)
}

func (d *Details) setText(k, s string) bool {
	switch k {
	case "lease_id":
		d.LeaseID = s
	case "admission_id":
		d.AdmissionID = s
	case "approval_id":
		d.ApprovalID = s
	case "tool":
		d.Tool = s
	case "decision":
		d.Decision = s
	case "client":
		d.Client = s
	case "names":
		d.Names = s
	case "deadline":
		d.Deadline = s
	case "outcome":
		d.Outcome = s
	case "scope":
		d.Scope = s
	case "by":
		d.By = s
	case "source":
		d.Source = s
	case "session_hash":
		d.SessionHash = s
	case "parent_session_hash":
		d.ParentSessionHash = s
	case "turn_hash":
		d.TurnHash = s
	case "status":
		d.Status = s
	case "stop_reason":
		d.StopReason = s
	case "telemetry_quality":
		d.TelemetryQuality = s
	case "issuer_session":
		d.IssuerSession = s
	case "capability_hash":
		d.CapabilityHash = s
	default:
		return false
	}
	return true
}

func (d *Details) setScalar(k string, x any) bool {
	switch k {
	case "steps", "tokens", "cost_usd":
		n, ok := number(x)
		return ok && d.setFigure(k, n)
	case "accurate", "violation", "end_session":
		b, ok := x.(bool)
		return ok && d.setFlag(k, b)
	}
	return false
}

func (d *Details) setFigure(k string, n *float64) bool {
	switch k {
	case "steps":
		d.Steps = n
	case "tokens":
		d.Tokens = n
	case "cost_usd":
		d.CostUSD = n
	default:
		return false
	}
	return true
}

func (d *Details) setFlag(k string, b bool) bool {
	switch k {
	case "accurate":
		d.Accurate = &b
	case "violation":
		d.Violation = &b
	case "end_session":
		d.EndSession = &b
	default:
		return false
	}
	return true
}

// detailsFrom is parseDetails for the scalars of a line the journal
// decoded directly: the same fields, the same Extra.
func detailsFrom(list []journal.Scalar) Details {
	var d Details
	for i := range list {
		sc := &list[i]
		ok := false
		switch sc.Kind {
		case journal.ScalarString:
			ok = d.setText(sc.Name, sc.Text)
		case journal.ScalarNumber:
			if isFigure(sc.Name) {
				var n *float64
				n, ok = numberText(sc.Text)
				ok = ok && d.setFigure(sc.Name, n)
			}
		case journal.ScalarBool:
			ok = d.setFlag(sc.Name, sc.Bool)
		}
		if !ok {
			d.Extra = keep(d.Extra, sc.Name, sc.Value())
		}
	}
	return d
}

func isFigure(k string) bool { return k == "steps" || k == "tokens" || k == "cost_usd" }

// value is the details object, every string clipped to the schema's cap
// for a details value; nil when nothing is set.
func (d *Details) value() map[string]any {
	m := map[string]any{}
	for k, v := range d.Extra {
		if s, ok := v.(string); ok {
			v = ClipField(s, DetailString)
		}
		m[k] = v
	}
	for _, f := range detailStrings {
		putString(m, f.name, ClipField(*f.field(d), DetailString))
	}
	for _, f := range detailNumbers {
		putNumber(m, f.name, *f.field(d))
	}
	for _, f := range detailBools {
		if b := *f.field(d); b != nil {
			m[f.name] = *b
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
