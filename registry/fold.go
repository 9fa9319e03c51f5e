package registry

import (
	"strings"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
)

// fold applies one journal line to the state and the approval book.
func (s *Service) fold(k journal.Kind, rec map[string]any) error {
	return Fold(s.st, s.book, k, rec)
}

// Fold applies one journal line to a state and an approval book. It is
// the one definition of what the journal means, shared by the registry,
// `journal verify` and every cockpit watching the files.
func Fold(st *State, book *approvals.Book, k journal.Kind, rec map[string]any) error {
	if k == journal.Leases {
		if err := st.ApplyLeaseRecord(rec); err != nil {
			return err
		}
		if ev, _ := rec["event"].(string); ev != "granted" && ev != "refused" && ev != "narrowed" {
			if id, _ := rec["lease_id"].(string); id != "" {
				book.ForgetLease(id)
			}
		}
		return nil
	}
	st.ApplyAudit(rec)
	et, _ := rec["event_type"].(string)
	d, _ := rec["details"].(map[string]any)
	switch et {
	case EventApprovalAsked:
		at, _ := ParseTime(str(rec, "timestamp"))
		deadline, _ := ParseTime(str(d, "deadline"))
		return book.Add(approvals.Request{
			ID: str(d, "approval_id"), LeaseID: str(d, "lease_id"), Client: str(d, "client"),
			Tool: str(d, "tool"), Summary: str(rec, "summary"), Reason: str(rec, "reasoning"),
			Names: splitNames(str(d, "names")), InputHash: str(rec, "request_hash"),
			CreatedAt: at, Deadline: deadline,
		})
	case EventApprovalDecided:
		at, _ := ParseTime(str(rec, "timestamp"))
		return book.Apply(approvals.Decision{
			RequestID: str(d, "approval_id"), Outcome: approvals.Outcome(str(d, "outcome")),
			Scope: approvals.Scope(str(d, "scope")), Reason: str(rec, "reasoning"), By: str(d, "by"), At: at,
		})
	}
	return nil
}

func splitNames(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}
