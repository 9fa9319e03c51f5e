package registry

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry/record"
)

// Sessions and admissions: the registry half of the bridge's lifecycle
// contract. A client session (Claude Code, Codex, …) gets one lease, on
// its first turn; a subagent session gets a child lease under its parent
// session's; every turn is an admission under the session's lease. All
// of it is folded from audit lines, so it survives restarts. Session ids,
// turn ids and prompts arrive raw over the 0600 socket and are stored only
// as salted hashes (HMAC with the deployment key).

// Admission is one turn under a session's lease.
type Admission struct {
	ID          string
	LeaseID     string
	SessionHash string
	Client      string
	BegunAt     time.Time
	Gated       int // pre-tool calls gated
	Allowed     int
	Denied      int
	Reported    int      // post-tool reports
	Ungated     int      // post-tool reports with no allowed pre-tool before them
	Violations  []string // scope violations seen
	Telemetry   int      // usage reports with an accurate source
	Estimates   int      // usage reports without one
	Finalized   string   // "", "certified", "non_certified", "aborted"
	pendingOK   map[string]int
}

// Session is a client session: its lease and, for a subagent, its parent.
type Session struct {
	Hash       string
	LeaseID    string
	Client     string
	ParentHash string
	Current    string // the latest admission
	// CapabilityHash is the hash of the capability handed back when the
	// session began; "" for a subagent's session (its parent's holder
	// acts for it) and for sessions begun before capabilities existed.
	CapabilityHash string
}

// accurateSources are the cost/token provenances charged to budgets;
// anything else is recorded as an estimate and not charged.
var accurateSources = map[string]bool{"provider_reported": true, "sdk_result_message": true}

// SaltedHash hashes an identifier or prompt with the deployment key, so
// equal inputs fold to the same session while the journal never holds them.
func (s *Service) SaltedHash(kind, value string) string {
	return s.cfg.Key.MAC([]byte("leasedeck:" + kind + "\x00" + value))
}

// AdmitRequest starts a turn.
type AdmitRequest struct {
	Client        string
	Session       string // raw client session id
	ParentSession string // raw parent session id, for a subagent
	AgentName     string // display name for a new lease
	Manifest      any    // the declared manifest for a new session lease
	Prompt        string // raw prompt; only its salted hash is kept
	Turn          string // raw turn id; only its salted hash is kept
	// Resume returns the session's current admission when it has one
	// still open, instead of starting a new turn (a tool call from a
	// client whose turn began before the hooks did, a subagent's calls).
	Resume bool
	// NoTurn makes sure the session has its lease without starting a
	// turn: a client's SessionStart, whose first turn begins with the
	// first prompt. An empty turn would never be finalized.
	NoTurn bool
	// RunTicket is the ticket of the confined run the hook runs in
	// (RunTicketEnv): the session's lease is issued under the run's.
	RunTicket string

	// mustBeNew: the caller was authorized to begin a new session only
	// (it holds no capability for one that exists); refused if the
	// session began meanwhile.
	mustBeNew bool
	// noIssue: only resolve the session's existing lease (a gate naming
	// its session); a session without one must be admitted first.
	noIssue bool
}

// AdmitResult is the admission and the lease it runs under.
type AdmitResult struct {
	AdmissionID string       `json:"admission_id,omitempty"`
	LeaseID     string       `json:"lease_id,omitempty"`
	Allowed     bool         `json:"allowed"`
	Reason      string       `json:"reason,omitempty"`
	Refusals    []string     `json:"refusals,omitempty"`
	Lease       LeaseView    `json:"lease"`
	Context     string       `json:"context,omitempty"`
	Issue       *IssueResult `json:"issue,omitempty"`
	// Capability is handed back once, when a client session (not a
	// subagent's) begins; the journal keeps only its hash.
	Capability string `json:"capability,omitempty"`
}

// admitting is what Admit found about a session under the lock.
type admitting struct {
	sh, parentHash string
	sess           *Session
	leaseID        string // the session's live lease, "" for a new session
	parentLease    string
}

// Admit begins a turn: it finds (or, for a new session, issues) the
// session's lease and records a new admission under it. A session's lease
// is issued once: when it has closed (completed, stopped, revoked,
// expired) the session is refused, never re-leased with a fresh budget.
func (s *Service) Admit(req AdmitRequest) (AdmitResult, error) {
	if err := s.Health(); err != nil {
		return AdmitResult{Reason: err.Error()}, err
	}
	if req.Session == "" {
		return AdmitResult{}, fmt.Errorf("%w: a session id is required", ErrNotAllowed)
	}
	now := s.Now()
	ad, early, err := s.admitLookup(req, now)
	if err == nil && early == nil && ad.sess == nil && !req.noIssue {
		// A new session: look again while no other admit can issue its
		// lease; one that did meanwhile is found (and, for a caller with
		// no capability for it, refused as a session that began).
		s.newSessions.Lock()
		defer s.newSessions.Unlock()
		ad, early, err = s.admitLookup(req, now)
	}
	if err != nil {
		return derefAdmit(early), err
	}
	if req.RunTicket != "" && (early == nil || early.Allowed) {
		// A hook inside a confined run: a new session's lease goes under
		// the run's, and an existing one must already be under it.
		runLease, err := s.runParent(req.RunTicket, ad.leaseID)
		if err != nil {
			return AdmitResult{Allowed: false, Reason: err.Error()}, nil
		}
		if ad.sess == nil && ad.parentLease == "" {
			ad.parentLease = runLease
		}
	}
	if early != nil {
		return *early, nil
	}
	var issued *IssueResult
	capability := ""
	if ad.sess == nil {
		res, refused, err := s.issueSessionLease(req, ad.parentLease)
		if refused != nil || err != nil {
			return derefAdmit(refused), err
		}
		issued, ad.leaseID = &res, res.LeaseID
		if ad.parentHash == "" {
			if capability, err = newCapability(); err != nil {
				return AdmitResult{}, err
			}
		}
	}
	d := record.Details{LeaseID: ad.leaseID, SessionHash: ad.sh, Client: req.Client, ParentSessionHash: ad.parentHash}
	if capability != "" {
		d.CapabilityHash = capabilityHash(capability)
	}
	if req.NoTurn {
		if ad.sess == nil {
			if err := s.appendAudit(record.NewAudit(EventSessionStarted, now, "session starts under lease "+record.ShortID(ad.leaseID), d)); err != nil {
				return AdmitResult{Reason: err.Error()}, err
			}
		}
		v, _ := s.View(ad.leaseID)
		return AdmitResult{LeaseID: ad.leaseID, Allowed: true, Lease: v, Context: scopeContext(v), Issue: issued, Capability: capability}, nil
	}
	admission := NewLeaseID()
	d.AdmissionID = admission
	if req.Turn != "" {
		d.TurnHash = s.SaltedHash("turn", req.Turn)
	}
	rec := record.NewAudit(EventSessionBegun, now, "turn begins under lease "+record.ShortID(ad.leaseID), d)
	if req.Prompt != "" {
		rec.RequestHash = s.SaltedHash("prompt", req.Prompt)
	}
	if err := s.appendAudit(rec); err != nil {
		return AdmitResult{Reason: err.Error()}, err
	}
	v, _ := s.View(ad.leaseID)
	return AdmitResult{AdmissionID: admission, LeaseID: ad.leaseID, Allowed: true, Lease: v, Context: scopeContext(v),
		Issue: issued, Capability: capability}, nil
}

func derefAdmit(r *AdmitResult) AdmitResult {
	if r == nil {
		return AdmitResult{}
	}
	return *r
}

// admitLookup reads the session under the lock. early is a complete
// answer (a resumed turn, a closed session); otherwise ad says what to do.
func (s *Service) admitLookup(req AdmitRequest, now time.Time) (ad admitting, early *AdmitResult, err error) {
	ad.sh = s.SaltedHash("session", req.Session)
	if req.ParentSession != "" {
		ad.parentHash = s.SaltedHash("session", req.ParentSession)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ad.sess = s.st.Sessions[ad.sh]
	if ad.sess != nil && req.mustBeNew {
		return ad, nil, fmt.Errorf("%w: session %q began meanwhile, and this caller holds no capability for it", ErrWrongSession, clipID(req.Session))
	}
	if ad.sess != nil {
		if ok, why := s.st.Live(ad.sess.LeaseID, now); !ok {
			return ad, &AdmitResult{Allowed: false, LeaseID: ad.sess.LeaseID,
				Reason: "the session's lease " + why + "; a session's lease is issued once, so this session can do nothing more (start a new one)"}, nil
		}
		ad.leaseID = ad.sess.LeaseID
		if req.Resume && ad.sess.Current != "" {
			if a := s.st.Admissions[ad.sess.Current]; a != nil && a.Finalized == "" {
				v := s.st.View(s.st.Leases[ad.leaseID], now, true)
				return ad, &AdmitResult{AdmissionID: a.ID, LeaseID: ad.leaseID, Allowed: true, Lease: v}, nil
			}
		}
		return ad, nil, nil
	}
	if ad.parentHash != "" {
		ps := s.st.Sessions[ad.parentHash]
		if ps == nil {
			return ad, nil, ErrUnknownParent
		}
		ad.parentLease = ps.LeaseID
	}
	return ad, nil, nil
}

// issueSessionLease issues a new session's lease from the declared
// manifest, under the parent session's lease for a subagent.
func (s *Service) issueSessionLease(req AdmitRequest, parentLease string) (IssueResult, *AdmitResult, error) {
	if req.noIssue {
		// A gate names a session that has no lease yet: it must be
		// admitted first, which hands the caller the session's capability.
		return IssueResult{}, nil, fmt.Errorf("%w: the session has no lease yet; admit it first (client %s)", ErrNeedsManifest, req.Client)
	}
	m, err := s.declaredFor(req.Client, req.Manifest)
	if err != nil {
		return IssueResult{}, nil, err
	}
	res, err := s.Issue(withAgentName(m, req.AgentName), parentLease)
	if err != nil {
		return res, &AdmitResult{Reason: res.Reason, Refusals: res.Refusals}, err
	}
	if res.Status != Granted {
		return res, &AdmitResult{Allowed: false, Reason: "no lease: " + res.Reason, Refusals: res.Refusals, Issue: &res}, nil
	}
	return res, nil, nil
}

// ErrNeedsManifest: a session without a live lease was named with no
// declared manifest to issue one from; the caller resends with it.
var ErrNeedsManifest = errors.New("needs a declared manifest")

// Live reports whether a lease can act now, and why not.
func (s *Service) Live(id string) (bool, string) {
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Live(id, now)
}

func withAgentName(m map[string]any, name string) map[string]any {
	if name == "" {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if a, ok := m["agent"].(map[string]any); ok {
		na := make(map[string]any, len(a))
		for k, v := range a {
			na[k] = v
		}
		na["name"] = record.Clip(name, 120)
		out["agent"] = na
	}
	return out
}

// scopeContext tells an agent its scope in a few lines, so it stays inside
// the lease instead of learning it by refusal.
func scopeContext(v LeaseView) string {
	m, err := ParseManifest(v.Lease["manifest"])
	if err != nil || m == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "leasedeck lease %s governs this session (expires %s).\n", record.ShortID(v.ID), v.ExpiresAt)
	fmt.Fprintf(&b, "You may write: %s. You may read: %s.\n", listOrNone(m.Allow.WritePaths), listOrNone(m.Allow.ReadPaths))
	fmt.Fprintf(&b, "Commands allowed: %s.\n", listOrNone(m.Allow.Commands))
	fmt.Fprintf(&b, "Hosts: %s. Denied paths: %s. Denied commands: %s.\n", listOrNone(m.Allow.Hosts), listOrNone(m.Deny.Paths), listOrNone(m.Deny.Commands))
	if len(m.Approvals) > 0 {
		fmt.Fprintf(&b, "A human must approve: %s.\n", strings.Join(m.Approvals, ", "))
	}
	if st, ok := v.Remaining["steps"]; ok {
		fmt.Fprintf(&b, "Budget: %v tool calls left.", st)
	}
	return strings.TrimSpace(b.String())
}
