package registry

import (
	"fmt"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

// IssueResult is the answer to presenting a manifest.
type IssueResult struct {
	LeaseID  string         `json:"lease_id"`
	Status   Status         `json:"status"`
	Lease    map[string]any `json:"lease,omitempty"`
	Diff     map[string]any `json:"diff,omitempty"`
	Refusals []string       `json:"refusals,omitempty"`
	Reason   string         `json:"reason,omitempty"`
}

// Issue presents a declared manifest (a JSON tree), optionally under a
// parent lease, and records the decision: `granted` (+ `narrowed` when
// the grant took anything away) or `refused`. Refusals are results, not
// errors; an error means nothing could be recorded.
func (s *Service) Issue(declared any, parentID string) (IssueResult, error) {
	if err := s.Health(); err != nil {
		return IssueResult{Status: Refused, Refusals: []string{"runtime_error:journal_unavailable"}, Reason: err.Error()}, err
	}
	now := s.Now()
	m, _ := ParseManifest(declared)
	errs, err := schemas.Validate(schemas.Manifest, declared)
	if err != nil {
		return IssueResult{}, err
	}
	if len(errs) > 0 || m == nil {
		var parts []string
		for i, e := range errs {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(errs)-3))
				break
			}
			parts = append(parts, e.String())
		}
		if m == nil {
			parts = append(parts, "/ type the manifest must be a JSON object")
		}
		return s.refuse(declared, parentID, now, []string{"runtime_error:invalid_manifest"}, "manifest does not validate: "+strings.Join(parts, "; "))
	}

	s.mu.Lock()
	var parent Parent
	if parentID == "" {
		parent = Parent{Manifest: s.cfg.Root}
	} else {
		p := s.st.Leases[parentID]
		if p == nil || p.Granted == nil {
			s.mu.Unlock()
			return s.refuse(declared, "", now, []string{"runtime_error:unknown_parent"}, "parent lease "+parentID+" does not exist")
		}
		if ok, why := s.st.Live(parentID, now); !ok {
			s.mu.Unlock()
			return s.refuse(declared, parentID, now, []string{"runtime_error:parent_closed"}, "parent lease cannot delegate: "+why)
		}
		parent, _ = s.st.ParentView(parentID, now)
		s.applyInflight(parentID, parent.Manifest)
	}
	dec, err := s.issuer.Issue(m, parent, now)
	if err != nil {
		s.mu.Unlock()
		return s.refuse(declared, parentID, now, []string{"runtime_error:issue_failed"}, err.Error())
	}
	if dec.Narrowed.Refused() {
		s.mu.Unlock()
		return s.refuse(declared, parentID, now, dec.Narrowed.Refusals, dec.Narrowed.Reason())
	}
	if parentID != "" {
		s.inflightChildren[parentID]++
	}
	s.mu.Unlock()

	at := FormatTime(dec.IssuedAt)
	recs := []record.Lease{record.NewGranted(at, dec.LeaseID, parentID, dec.Lease, dec.Declared, dec.DeclaredHash, dec.GrantedHash)}
	if !dec.Narrowed.Diff.Empty() {
		recs = append(recs, record.NewNarrowed(at, dec.LeaseID, dec.Narrowed.Diff.Summary()))
	}
	err = s.appendLeases(recs...)
	if parentID != "" {
		s.mu.Lock()
		s.inflightChildren[parentID]--
		s.mu.Unlock()
	}
	if err != nil {
		return IssueResult{Status: Refused, Refusals: []string{"runtime_error:journal_unavailable"},
			Reason: "the grant could not be recorded, so it is not given: " + err.Error()}, err
	}
	s.wakeBy(dec.ExpiresAt)
	return IssueResult{LeaseID: dec.LeaseID, Status: Granted, Lease: dec.Lease, Diff: dec.Narrowed.Diff.JSON()}, nil
}

func (s *Service) refuse(declared any, parentID string, now time.Time, codes []string, reason string) (IssueResult, error) {
	id := NewLeaseID()
	h, err := schemas.Hash(declared)
	if err != nil {
		b, _ := schemas.Pretty(declared)
		h = schemas.SHA256Hex(b)
	}
	var valid map[string]any
	if obj, ok := declared.(map[string]any); ok {
		if errs, _ := schemas.Validate(schemas.Manifest, obj); len(errs) == 0 {
			valid = obj
		}
	}
	if parentID != "" {
		if _, known := s.lease(parentID); !known {
			parentID = ""
		}
	}
	// The reason is clipped to the record's cap: a refusal is always
	// recorded, however much there is to say about it.
	rec := record.NewRefused(now, id, parentID, codes, reason, h, valid)
	res := IssueResult{LeaseID: id, Status: Refused, Refusals: codes, Reason: reason}
	if err := s.appendLeases(rec); err != nil {
		res.Refusals = append(res.Refusals, "runtime_error:journal_unavailable")
		res.Reason += "; and the refusal could not be recorded: " + err.Error()
		return res, err
	}
	return res, nil
}
